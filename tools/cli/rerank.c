/* rerank.c — `tfenc rerank --model DIR QUERY DOC...`: a cross-encoder's
 * score of each (QUERY, DOC) pair, or a multi-vector (ColBERT) folder's
 * MaxSim, best first. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "job_output.h"
#include "options.h"
#include "pipeline_cli.h"
#include "tfenc.h"

typedef pipeline_cli_line rerank_options; /* ARGs: QUERY, then the DOCs */

typedef struct ranked {
    float score;
    size_t index;
} ranked;

static void rerank_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc rerank --model DIR_OR_ID [--json] " PIPELINE_CLI_JOB_OPTIONS "\n"
            "                    QUERY [--file DOCS.txt|-] [DOC ...]\n"
            "Scores each (QUERY, DOC) pair with the cross-encoder in DIR (a\n"
            "*ForSequenceClassification folder: its logits through the folder's activation,\n"
            "sigmoid for one label by default, as sentence-transformers' CrossEncoder.predict),\n"
            "or by MaxSim with a PyLate (ColBERT) folder (QUERY encoded as a query, each\n"
            "DOC as a document, as PyLate's rank.rerank), and prints them best first:\n"
            "score, the DOC's position (from 0) and the DOC, tab-separated; --json: a list\n"
            "of {\"index\", \"score\", \"text\"} (scores that read back as the same\n"
            "float32). --file: more DOCs, one a line (-: standard input), after the DOC\n"
            "arguments. --batch-size N pairs per forward call (default %d; the same\n"
            "scores for any N), --threads N at most (default: one per core). A folder of\n"
            "another kind is refused, naming the subcommand that runs it.\n",
            PIPELINE_CLI_BATCH);
    cli_model_usage(out, "");
}

static int by_score(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    return a->score < b->score ? 1 : a->score > b->score ? -1 : a->index < b->index ? -1 : 1;
}

static void print_ranking(const rerank_options *o, const ranked *r, size_t n)
{
    if (o->json)
        printf("[");
    for (size_t i = 0; i < n; i++) {
        const char *doc = o->args[1 + r[i].index];
        if (!o->json) {
            printf("%.6f\t%zu\t%s\n", (double)r[i].score, r[i].index, doc);
            continue;
        }
        char number[CLI_FLOAT_CHARS];
        printf("%s{\"index\": %zu, \"score\": %s, \"text\": ", i ? ", " : "", r[i].index,
               cli_float_text(number, r[i].score));
        pipeline_cli_json_string(stdout, doc);
        printf("}");
    }
    if (o->json)
        printf("]\n");
}

static int rerank(const rerank_options *o)
{
    tf_pipeline *p = pipeline_cli_load("rerank", o->model, 0,
                                       PIPELINE_CLI_KIND(TF_PIPELINE_CROSS_ENCODER) |
                                           PIPELINE_CLI_KIND(TF_PIPELINE_MULTI_VECTOR));
    if (!p)
        return CLI_FAILED;
    const size_t n = o->n_args - 1;
    const char **queries = malloc(n * sizeof *queries);
    float *scores = malloc(n * sizeof *scores); /* [n]: one label's, or MaxSim */
    ranked *r = malloc(n * sizeof *r);
    int rc = 0;
    size_t truncated = 0;
    if (!queries || !scores || !r) {
        cli_error("rerank", "out of memory");
        rc = CLI_FAILED;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        queries[i] = o->args[0];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = n, a.texts = queries, a.pairs = o->args + 1, a.truncated = &truncated;
    a.out = scores, a.out_len = n;
    pipeline_cli_job_args(o, &a);
    if (rc == 0)
        rc = pipeline_cli_run("rerank", p, tf_pipeline_score, &a, 1, o->source.progress,
                              "documents");
    if (rc == 0) {
        pipeline_cli_truncated("rerank", truncated, p);
        for (size_t i = 0; i < n; i++)
            r[i] = (ranked){scores[i], i};
        qsort(r, n, sizeof *r, by_score);
        print_ranking(o, r, n);
    }
    free(queries);
    free(scores);
    free(r);
    tf_pipeline_destroy(p);
    return rc;
}

int tfenc_rerank(int argc, char **argv)
{
    rerank_options o;
    int status;
    if (!pipeline_cli_parse(&o, "rerank", rerank_usage, argc, argv, 2, 0, &status))
        return status;
    status = rerank(&o);
    pipeline_cli_line_free(&o);
    return status;
}
