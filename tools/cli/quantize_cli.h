/* quantize_cli.h — tfenc embed --precision: the vectors in a tf_precision
 * (tf_quantize), each dimension's range from --calibration FILE.npy (the
 * minimum and maximum of its rows) or from the vectors themselves. */
#ifndef TFENC_QUANTIZE_CLI_H
#define TFENC_QUANTIZE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "job_output.h"

/* Vectors as written: floats, or the bytes tf_quantize gives. */
typedef struct cli_rows {
    int32_t precision;   /* a tf_precision */
    size_t n, width;     /* rows, values a row: D, or ceil(D / 8) for the bits */
    const float *floats; /* [n, width] for float32 (the caller's) */
    void *bytes;         /* [n, width] int8_t or uint8_t otherwise (owned) */
} cli_rows;

/* ranges [2, D] = the minima, then the maxima, of the rows of the float32
 * [rows, D] array in the .npy file path (rows >= 1, every value finite):
 * 0, or CLI_FAILED after a message naming --calibration and the file
 * (tfenc embed's and tfenc serve's --calibration). */
int cli_calibration_ranges(const char *command, const char *path, int32_t D, float *ranges);

/* *rows = vectors [n, D] in precision, ranges from the .npy file
 * `calibration` (NULL: the vectors'): 0, or CLI_FAILED after a message
 * with nothing left allocated. */
int cli_quantize(const char *command, int32_t precision, const char *calibration,
                 const float *vectors, size_t n, int32_t D, cli_rows *rows);
void cli_rows_free(cli_rows *rows);

/* Value k of row i as text: a float's round-trip text, or the integer. */
const char *cli_row_value_text(char buf[CLI_FLOAT_CHARS], const cli_rows *rows, size_t i, size_t k);
/* The .npy dtype of rows ("<f4", "|i1", "|u1") and its item's bytes. */
const char *cli_rows_npy_descr(const cli_rows *rows, size_t *item_bytes);

#endif
