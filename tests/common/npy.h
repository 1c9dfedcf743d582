/* npy.h — reads the .npy files of the test fixtures (little-endian '<f4'
 * and '<i4', C order). Test-only. */
#ifndef TEST_NPY_H
#define TEST_NPY_H

#include <stddef.h>
#include <stdint.h>

typedef struct npy_array {
    char dtype;          /* 'f' (float32) or 'i' (int32) */
    int rank;
    int64_t dims[8];
    size_t count;        /* product of dims */
    void *data;          /* count elements */
} npy_array;

/* 0 on success; on failure a message in err. */
int npy_read(const char *path, npy_array *out, char *err, size_t err_size);
void npy_free(npy_array *a);

#endif
