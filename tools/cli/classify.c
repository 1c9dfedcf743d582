/* classify.c — `tfenc classify --model DIR TEXT...`: a classifier's label
 * probabilities for each text; with --tokens a token classifier's entities. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "image_cli.h"
#include "job_output.h"
#include "options.h"
#include "pipeline_cli.h"
#include "tfenc.h"
#include "utf8.h"

typedef pipeline_cli_line classify_options; /* ARGs: the TEXTs */

static void classify_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc classify --model DIR_OR_ID [--json] " PIPELINE_CLI_JOB_OPTIONS "\n"
            "                      [--file TEXTS.txt|-] [TEXT ...]\n"
            "       tfenc classify --tokens [--aggregation none|simple|first|average|max]\n"
            "                      --model DIR_OR_ID [--json] [--file TEXTS.txt|-] [TEXT ...]\n"
            "The label probabilities of each TEXT from the sequence classifier in DIR\n"
            "(*ForSequenceClassification: softmax, or sigmoid for multi-label models\n"
            "and one-label ones, as transformers' text-classification pipeline). Prints\n"
            "the best label, its probability and the text, tab-separated; --json: a list of\n"
            "{\"text\", \"labels\": [{\"label\", \"score\"}, ...]}, best first.\n"
            "--tokens: the entities of each TEXT from the token classifier in DIR\n"
            "(*ForTokenClassification, as transformers' token-classification pipeline with\n"
            "aggregation_strategy simple, the default here, none, first, average or max):\n"
            "one line each, the text's number, the entity, its score, its start and end\n"
            "(characters) and its word (the tokenizer's decoding of its tokens), tab-\n"
            "separated; --json: a list of {\"text\", \"entities\":\n"
            "[{\"entity_group\" (none: \"entity\" and \"index\"), \"score\", \"word\",\n"
            "\"start\", \"end\"}, ...]}.\n"
            "--file: more TEXTs, one a line (-: standard input), after the TEXT arguments.\n"
            "--batch-size N texts per forward call (default %d; the same probabilities for\n"
            "any N), --threads N at most (default: one per core); scores in JSON read back\n"
            "as the same float32.\n"
            "A folder of another kind is refused, naming the subcommand that runs it.\n",
            PIPELINE_CLI_BATCH);
    cli_model_usage(out, "");
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
        char number[CLI_FLOAT_CHARS];
        printf(", \"score\": %s}", cli_float_text(number, probs[order[k]]));
    }
    printf("]}");
}

static int classify(const classify_options *o)
{
    /* a cross-encoder is a one-label classifier (sigmoid) */
    tf_pipeline *p = pipeline_cli_load("classify", o->model, 0,
                                       PIPELINE_CLI_KIND(TF_PIPELINE_CLASSIFIER) |
                                           PIPELINE_CLI_KIND(TF_PIPELINE_CROSS_ENCODER));
    if (!p)
        return CLI_FAILED;
    const int32_t labels = tf_pipeline_dim(p);
    float *probs = malloc(o->n_args * (size_t)(labels ? labels : 1) * sizeof *probs);
    int32_t *order = malloc((size_t)(labels ? labels : 1) * sizeof *order);
    size_t truncated = 0;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = o->n_args, a.texts = o->args, a.truncated = &truncated;
    a.out = probs, a.out_len = o->n_args * (size_t)labels;
    int rc = 0;
    if (!probs || !order) {
        cli_error("classify", "out of memory"); /* not the library's: no message of its own */
        rc = CLI_FAILED;
    } else {
        pipeline_cli_job_args(o, &a);
        rc = pipeline_cli_run("classify", p, tf_pipeline_classify, &a, (size_t)labels,
                              o->source.progress, "texts");
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

/* ---- --tokens ------------------------------------------------------------------- */

static void print_entities(const classify_options *o, size_t t, const tf_entities *e,
                           int32_t aggregation)
{
    const char *text = o->args[t];
    if (o->json) {
        printf("%s{\"text\": ", t ? ", " : "");
        pipeline_cli_json_string(stdout, text);
        printf(", \"entities\": [");
    }
    for (size_t i = 0; i < tf_entities_count(e); i++) {
        const size_t start = tf__utf8_count(text, (size_t)tf_entities_start(e, i));
        const size_t end = tf__utf8_count(text, (size_t)tf_entities_end(e, i));
        if (!o->json) {
            printf("%zu\t%s\t%.6f\t%zu\t%zu\t%s\n", t, tf_entities_label(e, i),
                   (double)tf_entities_score(e, i), start, end, tf_entities_word(e, i));
            continue;
        }
        printf("%s{\"%s\": ", i ? ", " : "", aggregation ? "entity_group" : "entity");
        pipeline_cli_json_string(stdout, tf_entities_label(e, i));
        char number[CLI_FLOAT_CHARS];
        printf(", \"score\": %s, \"word\": ", cli_float_text(number, tf_entities_score(e, i)));
        pipeline_cli_json_string(stdout, tf_entities_word(e, i));
        printf(", \"start\": %zu, \"end\": %zu", start, end);
        if (!aggregation)
            printf(", \"index\": %d", (int)tf_entities_index(e, i));
        printf("}");
    }
    if (o->json)
        printf("]}");
}

/* --aggregation's value: transformers' name (tf_aggregation_name), simple
 * when not given; -1 for another. */
static int32_t aggregation_of(const char *name)
{
    if (!name)
        return TF_AGGREGATION_SIMPLE;
    for (int32_t k = TF_AGGREGATION_NONE; k <= TF_AGGREGATION_MAX; k++)
        if (!strcmp(name, tf_aggregation_name(k)))
            return k;
    return -1;
}

static int classify_tokens(const classify_options *o)
{
    const int32_t aggregation = aggregation_of(o->aggregation);
    if (aggregation < 0) {
        cli_error("classify",
                  "--aggregation: expected none, simple, first, average or max, "
                  "got '%s'",
                  o->aggregation);
        return CLI_USAGE;
    }
    tf_pipeline *p = pipeline_cli_load("classify", o->model, 0,
                                       PIPELINE_CLI_KIND(TF_PIPELINE_TOKEN_CLASSIFIER));
    if (!p)
        return CLI_FAILED;
    int rc = 0;
    if (o->json)
        printf("[");
    for (size_t t = 0; rc == 0 && t < o->n_args; t++) {
        tf_entities *e;
        const tf_status s = tf_pipeline_entities(p, o->args[t], aggregation, &e);
        if (s) {
            rc = pipeline_cli_fail("classify", s);
            break;
        }
        print_entities(o, t, e, aggregation);
        tf_entities_destroy(e);
    }
    if (o->json)
        printf(rc ? "\n" : "]\n");
    tf_pipeline_destroy(p);
    return rc;
}

int tfenc_classify(int argc, char **argv)
{
    if (image_cli_wanted(argc, argv))
        return image_cli_classify(argc, argv);
    classify_options o;
    int status;
    if (!pipeline_cli_parse(&o, "classify", classify_usage, argc, argv, 1, 1, &status))
        return status;
    status = o.tokens ? classify_tokens(&o) : classify(&o);
    pipeline_cli_line_free(&o);
    return status;
}
