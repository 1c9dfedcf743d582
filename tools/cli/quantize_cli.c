/* quantize_cli.c — tfenc embed --precision and --calibration. */
#include "quantize_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_message.h"
#include "npy.h"
#include "options.h"
#include "tfenc.h"

int cli_calibration_ranges(const char *command, const char *path, int32_t D, float *ranges)
{
    npy_array a;
    char err[512];
    if (npy_read(path, &a, err, sizeof err) != 0) {
        cli_error(command, "--calibration %s: %s", path, err);
        return CLI_FAILED;
    }
    int rc = 0;
    if (a.dtype != 'f' || a.rank != 2 || a.dims[1] != D || a.dims[0] < 1) {
        char shape[64] = "";
        for (int i = 0, at = 0; i < a.rank && at < (int)sizeof shape; i++)
            at += snprintf(shape + at, sizeof shape - (size_t)at, "%s%lld", i ? ", " : "",
                           (long long)a.dims[i]);
        cli_error(command,
                  "--calibration %s: expected float32 embeddings [rows, %d] (rows >= 1), got "
                  "%s [%s]",
                  path, (int)D, a.dtype == 'f' ? "float32" : "int32", shape);
        rc = CLI_FAILED;
    }
    const float *x = a.data; /* [rows, D] */
    for (size_t i = 0; rc == 0 && i < a.count; i++)
        if (!isfinite(x[i])) {
            cli_error(command, "--calibration %s: row %zu, value %zu is %g", path, i / (size_t)D,
                      i % (size_t)D, (double)x[i]);
            rc = CLI_FAILED;
        }
    for (int32_t k = 0; rc == 0 && k < D; k++) {
        float lo = x[k], hi = x[k];
        for (int64_t r = 1; r < a.dims[0]; r++) {
            const float v = x[r * D + k];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        ranges[k] = lo, ranges[D + k] = hi;
    }
    npy_free(&a);
    return rc;
}

int cli_quantize(const char *command, int32_t precision, const char *calibration,
                 const float *vectors, size_t n, int32_t D, cli_rows *rows)
{
    const size_t row_bytes = tf_precision_row_bytes(precision, D);
    *rows = (cli_rows){.precision = precision, .n = n, .width = (size_t)D};
    if (precision == TF_PRECISION_FLOAT32) {
        rows->floats = vectors;
        return 0;
    }
    rows->width = row_bytes;
    float *ranges = calibration ? malloc(2 * (size_t)D * sizeof *ranges) : NULL; /* [2, D] */
    rows->bytes = malloc(n * row_bytes + 1);
    if (!rows->bytes || (calibration && !ranges)) {
        cli_error(command, "out of memory");
        free(ranges);
        cli_rows_free(rows);
        return CLI_FAILED;
    }
    int rc = calibration ? cli_calibration_ranges(command, calibration, D, ranges) : 0;
    const tf_status s = rc
        ? TF_OK
        : tf_quantize(vectors, n, D, precision, ranges, rows->bytes, n * row_bytes);
    if (s) {
        cli_error(command, "--precision %s: %s", tf_precision_name(precision), tf_last_error());
        rc = CLI_FAILED;
    }
    free(ranges);
    if (rc) /* on failure nothing stays allocated */
        cli_rows_free(rows);
    return rc;
}

void cli_rows_free(cli_rows *rows)
{
    free(rows->bytes);
    rows->bytes = NULL;
}

static int is_signed(int32_t precision)
{
    return precision == TF_PRECISION_INT8 || precision == TF_PRECISION_BINARY;
}

const char *cli_row_value_text(char buf[CLI_FLOAT_CHARS], const cli_rows *rows, size_t i, size_t k)
{
    const size_t at = i * rows->width + k;
    if (rows->precision == TF_PRECISION_FLOAT32)
        return cli_float_text(buf, rows->floats[at]);
    if (is_signed(rows->precision))
        snprintf(buf, CLI_FLOAT_CHARS, "%d", (int)((const int8_t *)rows->bytes)[at]);
    else
        snprintf(buf, CLI_FLOAT_CHARS, "%u", (unsigned)((const uint8_t *)rows->bytes)[at]);
    return buf;
}

const char *cli_rows_npy_descr(const cli_rows *rows, size_t *item_bytes)
{
    *item_bytes = rows->precision == TF_PRECISION_FLOAT32 ? sizeof(float) : 1;
    return rows->precision == TF_PRECISION_FLOAT32 ? "<f4"
        : is_signed(rows->precision)               ? "|i1"
                                                   : "|u1";
}
