/* npy.h — NumPy's .npy files: reading little-endian '<f4' and '<i4' arrays
 * in C order (the test fixtures, tfenc explain --compare, tfenc embed
 * --calibration) and writing '<f4' ones (tfenc explain --dump) and the
 * int8 / uint8 ones of tfenc embed --precision. */
#ifndef TEST_NPY_H
#define TEST_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct npy_array {
    char dtype; /* 'f' (float32) or 'i' (int32) */
    int rank;
    int64_t dims[8];
    size_t count; /* product of dims */
    void *data;   /* count elements */
} npy_array;

/* 0 on success; on failure a message in err. */
int npy_read(const char *path, npy_array *out, char *err, size_t err_size);
void npy_free(npy_array *a);

/* Writes data (float32, rank dims) onto an open stream, which stays open;
 * 0, or -1 with errno saying why. */
int npy_fwrite_f32(FILE *f, const float *data, int rank, const int64_t *dims);
/* Any dtype: descr its name ("<f4", "|i1", "|u1"), item_bytes its size. */
int npy_fwrite(FILE *f, const char *descr, size_t item_bytes, const void *data, int rank,
               const int64_t *dims);

#endif
