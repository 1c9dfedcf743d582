/* classify.c — `tfenc classify --model DIR TEXT...`: a classifier's label
 * probabilities for each text. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "pipeline_cli.h"
#include "tfenc.h"

typedef pipeline_cli_line classify_options; /* ARGs: the TEXTs */

static void classify_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc classify --model DIR [--json] TEXT [TEXT ...]\n"
            "The label probabilities of each TEXT from the sequence classifier in DIR\n"
            "(BertForSequenceClassification: softmax, or sigmoid for multi-label models\n"
            "and one-label ones, as transformers' text-classification pipeline). Prints\n"
            "the best label, its probability and the text, tab-separated; --json: a list of\n"
            "{\"text\", \"labels\": [{\"label\", \"score\"}, ...]}, best first.\n");
}

/* order [labels]: label indices by probs (labels), best first. */
static void rank_labels(int32_t *order, const float *probs, int32_t labels)
{
    for (int32_t i = 0; i < labels; i++)
        order[i] = i;
    for (int32_t i = 1; i < labels; i++) /* insertion sort: stable, few labels */
        for (int32_t j = i; j > 0 && probs[order[j]] > probs[order[j - 1]]; j--) {
            const int32_t t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
}

static void print_text(const classify_options *o, const tf_pipeline *p, size_t i,
                       const float *probs, const int32_t *order)
{
    const int32_t labels = tf_pipeline_dim(p);
    if (!o->json) {
        printf("%s\t%.6f\t%s\n", tf_pipeline_label(p, order[0]), (double)probs[order[0]],
               o->args[i]);
        return;
    }
    printf("%s{\"text\": ", i ? ", " : "");
    pipeline_cli_json_string(stdout, o->args[i]);
    printf(", \"labels\": [");
    for (int32_t k = 0; k < labels; k++) {
        printf("%s{\"label\": ", k ? ", " : "");
        pipeline_cli_json_string(stdout, tf_pipeline_label(p, order[k]));
        printf(", \"score\": %.7g}", (double)probs[order[k]]);
    }
    printf("]}");
}

static int classify(const classify_options *o)
{
    tf_pipeline *p = pipeline_cli_load("classify", o->model, 0);
    if (!p)
        return CLI_FAILED;
    const int32_t labels = tf_pipeline_dim(p);
    float *probs = malloc(o->n_args * (size_t)(labels ? labels : 1) * sizeof *probs);
    int32_t *order = malloc((size_t)(labels ? labels : 1) * sizeof *order);
    size_t truncated = 0;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = o->n_args, a.texts = o->args, a.out = probs, a.truncated = &truncated;
    int rc = 0;
    if (!probs || !order) {
        cli_error("classify", "out of memory"); /* not the library's: no message of its own */
        rc = CLI_FAILED;
    } else {
        const tf_status s = tf_pipeline_classify(p, &a);
        rc = s ? pipeline_cli_fail("classify", s) : 0;
    }
    if (rc == 0) {
        pipeline_cli_truncated("classify", truncated, p);
        if (o->json)
            printf("[");
        for (size_t i = 0; i < o->n_args; i++) {
            rank_labels(order, probs + i * (size_t)labels, labels);
            print_text(o, p, i, probs + i * (size_t)labels, order);
        }
        if (o->json)
            printf("]\n");
    }
    free(probs);
    free(order);
    tf_pipeline_destroy(p);
    return rc;
}

int tfenc_classify(int argc, char **argv)
{
    classify_options o;
    int status;
    if (!pipeline_cli_parse(&o, "classify", classify_usage, argc, argv, 1, &status))
        return status;
    status = classify(&o);
    free(o.args);
    return status;
}
