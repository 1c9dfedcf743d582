/* serve.c — `tfenc serve --model DIR`: the command line, the model, the
 * batcher and the HTTP server started; SIGTERM or SIGINT stop accepting,
 * finish what was admitted, and exit 0. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "file_replace.h"
#include "http.h"
#include "kind_text.h"
#include "model_arg.h"
#include "options.h"
#include "pipeline_cli.h"
#include "quantize_cli.h"
#include "route_table.h"
#include "serve_precision.h"
#include "server.h"
#include "stop_signal.h"
#include "utf8.h"

/* Seconds a stop waits for the responses of admitted requests to be sent. */
#define SERVE_DRAIN_SECONDS 30

/* Connections beyond --max-concurrent by default (their requests get 429,
 * not a refused connection), and the timeouts' defaults in seconds. */
#define SERVE_SPARE_CONNECTIONS 256
#define SERVE_REQUEST_SECONDS 30
#define SERVE_KEEP_ALIVE_SECONDS 15

/* --max-image-pixels' default: 4096 x 4096 (an image of 2 MB of PNG can
 * say far more; PIL's limit, the CLI's, is 89478485). */
#define SERVE_MAX_IMAGE_PIXELS (4096 * 4096)

typedef struct serve_options {
    cli_model source;  /* --model and where it comes from */
    const char *model; /* the folder it names (a Hub id's, resolved) */
    const char *host, *port_file, *model_id;
    const char *pooling;     /* --pooling: NULL, or "splade" */
    const char *calibration; /* --calibration FILE.npy: int8 / uint8 ranges, or NULL */
    int32_t port, threads, max_batch_tokens, max_client_batch, max_concurrent, payload_limit;
    int32_t max_connections, max_client_connections; /* 0: from --max-concurrent */
    int32_t max_image_pixels;
    int32_t request_timeout, keep_alive_timeout;
    int auto_truncate, dimensions_layer_norm;
    const char *api_key;
} serve_options;

static void serve_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc serve --model DIR_OR_ID [--host 127.0.0.1] [--port 8080]\n"
            "                   [--threads N] [--max-batch-tokens 16384] [--max-client-batch 32]\n"
            "                   [--max-concurrent 512] [--payload-limit 2000000]\n"
            "                   [--max-connections N] [--max-client-connections N]\n"
            "                   [--request-timeout %d] [--keep-alive-timeout %d]\n"
            "                   [--auto-truncate] [--dimensions-layer-norm] [--api-key KEY]\n"
            "                   [--model-id NAME (default: the Hub id, or DIR's name)]\n"
            "                   [--port-file FILE] [--pooling splade]\n"
            "                   [--max-image-pixels %d]\n"
            "                   [--calibration EMBEDDINGS.npy]\n"
            "Serves the model folder DIR (its tokenizer, pooling and normalisation, as\n"
            "tfenc embed --model DIR runs them) over HTTP: OpenAI's POST /v1/embeddings,\n"
            "GET /v1/models, and text-embeddings-inference's POST / (the model's route),\n"
            "/embed, /similarity, /embed_all (every token's vector), /rerank (a\n"
            "cross-encoder, or a PyLate ColBERT folder by MaxSim),\n"
            "/predict (a classifier), /tokenize, /decode and GET (or HEAD) /info,\n"
            "/health, /metrics, /api-doc/openapi.json and /docs (docs/server.md). A\n"
            "token classifier's folder is refused (TEI has no route for it). --pooling\n"
            "splade serves a bare *ForMaskedLM folder as SPLADE on /embed_sparse (TEI's\n"
            "--pooling splade); without it such a folder is an embedding (mean pooling).\n"
            "Requests wait in one queue (at most --max-concurrent, beyond which 429); one\n"
            "compute thread packs their inputs into forward calls of at most\n"
            "--max-batch-tokens real tokens (an input of more runs alone), the oldest\n"
            "first. An input longer than the model's max_seq_length is refused unless the\n"
            "request says \"truncate\": true or the server runs with --auto-truncate. A\n"
            "request has at most --max-client-batch inputs (TEI's default, 32; OpenAI's\n"
            "2048 on /v1/embeddings) and --payload-limit bytes.\n"
            "An image model (ViT, CLIP, SigLIP; ViTForImageClassification on /predict)\n"
            "takes each input as a data URI, data:image/png;base64,... (image/jpeg,\n"
            "image/webp), within --payload-limit, of at most --max-image-pixels pixels\n"
            "(height x width, read from the file's header before it is decoded); a\n"
            "request's \"modality\": \"image\" or \"text\" says what its inputs are\n"
            "(infinity's field; default: the model's) (docs/server.md).\n"
            "--dimensions-layer-norm: an embedding request's \"dimensions\" follows\n"
            "nomic-embed-text-v1.5's recipe (layer norm, cut, unit length) unless it\n"
            "says \"dimensions_layer_norm\": false (without the flag: unless true).\n"
            "--threads: the forward's threads (0, the default: one per core). --port 0\n"
            "takes a free port; the port is printed on stderr and written to --port-file.\n"
            "--api-key: every route but /health needs \"Authorization: Bearer KEY\".\n"
            "\"precision\" (/embed, /v1/embeddings, /embed_all) quantizes a request's\n"
            "vectors as sentence-transformers' quantize_embeddings: int8 and uint8 map each\n"
            "dimension's range onto 256 buckets, the range of --calibration's rows (float32\n"
            "embeddings [rows, D] of this model, as tfenc embed --calibration takes) or,\n"
            "without it, of the request's own vectors (one input has none: refused).\n"
            "Connections: at most --max-connections (default --max-concurrent + %d,\n"
            "at most %d), at most --max-client-connections from one address (default\n"
            "half of --max-connections); one beyond is answered 503 (429 for one\n"
            "address) when it comes, and closed. A connection's next request line must\n"
            "come within --keep-alive-timeout seconds of its start or its last response,\n"
            "the request's headers and body within --request-timeout seconds of its\n"
            "request line, however slowly bytes trickle in; one that reads nothing of\n"
            "its response for --keep-alive-timeout seconds is closed too.\n"
            "A request's body is read by one Content-Length or as \"Transfer-Encoding:\n"
            "chunked\"; another framing, or a NUL byte in its head, is refused and the\n"
            "connection closed.\n"
            "One line per request on stderr (a byte that is not UTF-8, or a control byte,\n"
            "as \\xNN): method, path, status, tokens, queue and compute milliseconds.\n"
            "SIGTERM or SIGINT: stop accepting, finish what is queued, exit 0.\n",
            SERVE_REQUEST_SECONDS, SERVE_KEEP_ALIVE_SECONDS, SERVE_MAX_IMAGE_PIXELS,
            SERVE_SPARE_CONNECTIONS, SERVE_MAX_CONNECTIONS);
    cli_model_usage(out, "");
}

static int take_serve(cli_args *a, const char *arg, void *user)
{
    serve_options *o = user;
    const cli_string_flag strings[] = {
        {"--host", "an IP address", &o->host},
        {"--port-file", "a file", &o->port_file},
        {"--model-id", "a name", &o->model_id},
        {"--api-key", "a key", &o->api_key},
        {"--pooling", "splade", &o->pooling},
        {"--calibration", "a float32 .npy of embeddings", &o->calibration},
    };
    const cli_int_flag ints[] = {
        {"--port", 0, 65535, &o->port},
        {"--threads", 0, 4096, &o->threads},
        {"--max-batch-tokens", 1, 1 << 24, &o->max_batch_tokens},
        {"--max-client-batch", 1, 1 << 16, &o->max_client_batch},
        {"--max-concurrent", 1, 1 << 16, &o->max_concurrent},
        {"--payload-limit", 1, 1 << 30, &o->payload_limit},
        {"--max-connections", 1, SERVE_MAX_CONNECTIONS, &o->max_connections},
        {"--max-client-connections", 1, SERVE_MAX_CONNECTIONS, &o->max_client_connections},
        {"--request-timeout", 1, 86400, &o->request_timeout},
        {"--keep-alive-timeout", 1, 86400, &o->keep_alive_timeout},
        {"--max-image-pixels", 1, 1 << 30, &o->max_image_pixels},
    };
    if (!strcmp(arg, "--auto-truncate") || !strcmp(arg, "--dimensions-layer-norm")) {
        *(arg[2] == 'a' ? &o->auto_truncate : &o->dimensions_layer_norm) = 1;
        return 1;
    }
    int rc = cli_string_table(a, arg, CLI_TABLE(strings));
    if (!rc)
        rc = cli_model_option(a, arg, &o->source);
    return rc ? rc : cli_int_table(a, arg, CLI_TABLE(ints));
}

/* host:port as a socket address (a numeric IPv4 or IPv6 address). */
static int resolve(const serve_options *o, struct sockaddr_storage *addr, int *ipv6)
{
    char port[8];
    snprintf(port, sizeof port, "%d", (int)o->port);
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                             .ai_socktype = SOCK_STREAM},
                    *res;
    const int rc = getaddrinfo(o->host, port, &hints, &res);
    if (rc) {
        cli_error("serve", "--host: expected an IP address, got '%s' (%s)", o->host,
                  gai_strerror(rc));
        return -1;
    }
    memcpy(addr, res->ai_addr, res->ai_addrlen);
    *ipv6 = res->ai_family == AF_INET6;
    freeaddrinfo(res);
    return 0;
}

static int write_port_file(const char *path, unsigned port)
{
    char text[16];
    const int n = snprintf(text, sizeof text, "%u\n", port);
    char why[512];
    if (tf__file_replace(path, text, (size_t)n, why, sizeof why) != 0) {
        cli_error("serve", "--port-file: %s", why);
        return -1;
    }
    return 0;
}

/* The folder's last name, for /info, responses and the start-up line (its
 * bytes as they are: json_out writes those that are not UTF-8 as U+FFFD,
 * cli_line as \xNN). */
static const char *folder_name(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    static char name[256]; /* NAME_MAX bytes and the NUL; a cut ends between characters */
    const size_t len = n - start < sizeof name ? n - start : sizeof name - 1;
    snprintf(name, sizeof name, "%.*s", tf__utf8_prefix(dir + start, len), dir + start);
    return name;
}

/* The connections' caps as given, else --max-concurrent +
 * SERVE_SPARE_CONNECTIONS in all (at most SERVE_MAX_CONNECTIONS) and half
 * of those from one address (so that no one client can take them all);
 * the timeouts. */
static serve_connection_limits connection_limits(const serve_options *o)
{
    serve_connection_limits c = {.request_seconds = (unsigned)o->request_timeout,
                                 .keep_alive_seconds = (unsigned)o->keep_alive_timeout};
    const size_t spare = (size_t)o->max_concurrent + SERVE_SPARE_CONNECTIONS;
    c.max_connections = o->max_connections ? (size_t)o->max_connections
        : spare < SERVE_MAX_CONNECTIONS    ? spare
                                           : SERVE_MAX_CONNECTIONS;
    c.max_client_connections = o->max_client_connections ? (size_t)o->max_client_connections
                                                         : c.max_connections / 2;
    if (c.max_client_connections == 0) /* --max-connections 1 */
        c.max_client_connections = 1;
    return c;
}

/* Whether a route serves p's kind of folder; if not, says so (before
 * anything starts). */
static int served(const tf_pipeline *p, const char *dir)
{
    const int32_t kind = tf_pipeline_kind_of(p);
    char routes[256], kinds[128], what[64];
    if (routes_of_kind(kind, routes, sizeof routes))
        return 1;
    routes_served_kinds(kinds, sizeof kinds);
    kind_text(what, sizeof what, kind);
    const char *runs = pipeline_cli_runs(kind);
    cli_error("serve",
              "%s: %s folder; tfenc serve serves %s folders (TEI's API has no route "
              "for it)%s%s%s",
              dir, what, kinds, runs ? "; " : "", runs ? runs : "", runs ? " runs it" : "");
    return 0;
}

/* --calibration's ranges for p's vectors into *c (c->ranges owned); 0, or
 * CLI_FAILED after a message: a model whose routes answer no quantized
 * vectors, or a file that is not float32 [rows, D] of finite values
 * (tfenc embed --calibration's reader and its messages). */
static int load_calibration(const char *path, const tf_pipeline *p, const char *dir,
                            serve_calibration *c)
{
    const int32_t kind = tf_pipeline_kind_of(p);
    if (kind != TF_PIPELINE_EMBEDDING && kind != TF_PIPELINE_MULTI_VECTOR) {
        char what[64];
        kind_text(what, sizeof what, kind);
        cli_error("serve",
                  "--calibration: %s is %s folder; only an embedding or multi-vector model's "
                  "vectors are quantized (\"precision\")",
                  dir, what);
        return CLI_FAILED;
    }
    c->dim = tf_pipeline_dim(p);
    if (!(c->ranges = malloc(2 * (size_t)c->dim * sizeof *c->ranges))) {
        cli_error("serve", "out of memory");
        return CLI_FAILED;
    }
    if (cli_calibration_ranges("serve", path, c->dim, c->ranges)) {
        free(c->ranges);
        c->ranges = NULL;
        return CLI_FAILED;
    }
    return 0;
}

/* Until the requests admitted have been answered, at most SERVE_DRAIN_SECONDS. */
static void drain(serve_server *s)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 100 * SERVE_DRAIN_SECONDS && atomic_load(&s->active) > 0; i++)
        nanosleep(&tick, NULL);
}

static int run(serve_server *s, const serve_options *o)
{
    struct sockaddr_storage addr;
    int ipv6;
    if (resolve(o, &addr, &ipv6))
        return CLI_USAGE;
    const serve_batcher_options bo = {.max_batch_tokens = s->limits.max_batch_tokens,
                                      .max_jobs = s->limits.max_concurrent,
                                      .n_threads = o->threads,
                                      .max_image_pixels = o->max_image_pixels,
                                      .on_batch = serve_metrics_batch,
                                      .user = &s->metrics};
    if (!(s->batcher = serve_batcher_start(s->p, &bo))) {
        cli_error("serve", "cannot start the compute thread: %s", strerror(errno));
        return CLI_FAILED;
    }
    struct MHD_Daemon *d = serve_http_start(s, (const struct sockaddr *)&addr, ipv6);
    if (!d) {
        cli_error("serve", "cannot listen on %s port %d: %s", o->host, (int)o->port,
                  strerror(errno));
        serve_batcher_stop(s->batcher);
        serve_batcher_destroy(s->batcher);
        return CLI_FAILED;
    }
    const unsigned port = serve_http_port(d);
    int rc = o->port_file && write_port_file(o->port_file, port) ? CLI_FAILED : 0;
    if (rc == 0) {
        cli_line("tfenc serve: %s (%s) on http://%s%s%s:%u", s->model_id,
                 tf_pipeline_kind_name(tf_pipeline_kind_of(s->p)), ipv6 ? "[" : "", o->host,
                 ipv6 ? "]" : "", port);
        const int sig = stop_signal_wait();
        cli_line("tfenc serve: %s: finishing %zu queued requests",
                 sig == SIGINT ? "SIGINT" : "SIGTERM", serve_batcher_depth(s->batcher));
    }
    atomic_store(&s->stopping, 1);
    serve_http_quiesce(d);
    serve_batcher_stop(s->batcher); /* every admitted job computed */
    drain(s);                       /* and answered */
    serve_http_stop(s, d);          /* no handler runs any more: a late one saw -2 */
    serve_batcher_destroy(s->batcher);
    return rc;
}

int tfenc_serve(int argc, char **argv)
{
    serve_options o = {.source = CLI_MODEL_INIT,
                       .host = "127.0.0.1",
                       .port = 8080,
                       .max_batch_tokens = 16384,
                       .max_client_batch = 32,
                       .max_concurrent = 512,
                       .payload_limit = 2000000,
                       .request_timeout = SERVE_REQUEST_SECONDS,
                       .keep_alive_timeout = SERVE_KEEP_ALIVE_SECONDS,
                       .max_image_pixels = SERVE_MAX_IMAGE_PIXELS};
    cli_args a = cli_args_start("serve", serve_usage, argc, argv);
    int rc = cli_parse(&a, take_serve, &o);
    if (rc == 0 && !o.source.model)
        rc = cli_usage_error(&a);
    if (rc == 0 && o.pooling && strcmp(o.pooling, "splade") != 0) {
        cli_error("serve",
                  "--pooling: expected splade (a *ForMaskedLM folder as SPLADE), got '%s'; an "
                  "embedding folder's pooling is its own (1_Pooling/config.json)",
                  o.pooling);
        rc = -1; /* a bad command line: cli_parse_status's exit status 2 */
    }
    if (rc)
        return cli_parse_status(rc);
    if (!(o.model = cli_model_path("serve", &o.source, &rc)))
        return rc;
    if (stop_signal_catch() != 0) {
        cli_error("serve", "cannot catch SIGTERM and SIGINT: %s", strerror(errno));
        cli_model_free(&o.source);
        return CLI_FAILED;
    }
    /* a bare *ForMaskedLM folder: its head with --pooling splade, else its encoder */
    const unsigned kinds = o.pooling
        ? PIPELINE_CLI_ANY_KIND
        : PIPELINE_CLI_ANY_KIND & ~PIPELINE_CLI_KIND(TF_PIPELINE_FILL_MASK);
    tf_pipeline *p = pipeline_cli_load("serve", o.model, 0, kinds);
    if (p && o.pooling && tf_pipeline_kind_of(p) != TF_PIPELINE_FILL_MASK &&
        tf_pipeline_kind_of(p) != TF_PIPELINE_SPARSE) {
        char what[64];
        kind_text(what, sizeof what, tf_pipeline_kind_of(p));
        cli_error("serve", "--pooling splade: %s is %s folder; splade takes a *ForMaskedLM one",
                  o.model, what);
        tf_pipeline_destroy(p);
        p = NULL;
    }
    serve_calibration calibration = {0};
    if (!p || !served(p, o.model) ||
        (o.calibration && load_calibration(o.calibration, p, o.model, &calibration))) {
        tf_pipeline_destroy(p);
        cli_model_free(&o.source);
        return CLI_FAILED;
    }
    const char *hub_id = cli_model_hub_id(&o.source);
    serve_server s = {.p = p,
                      .model_id = o.model_id ? o.model_id
                          : hub_id           ? hub_id
                                             : folder_name(o.model),
                      .started_at = time(NULL),
                      .calibration = o.calibration ? &calibration : NULL,
                      .limits = {.max_batch_tokens = (size_t)o.max_batch_tokens,
                                 .max_client_batch = (size_t)o.max_client_batch,
                                 .max_concurrent = (size_t)o.max_concurrent,
                                 .payload_limit = (size_t)o.payload_limit,
                                 .auto_truncate = o.auto_truncate,
                                 .dimensions_layer_norm = o.dimensions_layer_norm,
                                 .api_key = o.api_key,
                                 .connections = connection_limits(&o)}};
    serve_metrics_init(&s.metrics);
    rc = run(&s, &o);
    serve_metrics_destroy(&s.metrics);
    free(calibration.ranges);
    tf_pipeline_destroy(p);
    cli_model_free(&o.source);
    return rc;
}
