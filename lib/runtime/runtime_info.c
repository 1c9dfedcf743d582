/* runtime_info.c — tf_runtime_info_get: the BLAS, its kernels and threads,
 * the build of the vector loops, the pool's width. */
#include <string.h>

#include "abi.h"
#include "blas.h"
#include "error.h"
#include "kernels.h"
#include "threadpool.h"

tf_status tf_runtime_info_get_sized(tf_runtime_info *info, size_t struct_size)
{
    if (!info)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "info is NULL");
    const tf_runtime_info now = {
        .struct_size = sizeof now,
        .blas = tf__blas_name(),
        .blas_build = tf__blas_build(),
        .blas_kernels = tf__blas_kernels(),
        .vector_loops = tf__kernel_build_chosen()->name,
        .blas_threads = tf__blas_threads(),
        .max_threads = tf__pool_width(),
    };
    /* Written here first, so that a refused struct_size leaves *info as it was. */
    unsigned char staged[TF_ABI_MAX_STRUCT_SIZE];
    memcpy(staged, &struct_size, sizeof struct_size);
    const tf_status s = tf__abi_write(staged, &now, sizeof now, TF_RUNTIME_INFO_SIZE_0_3, "info");
    if (s == TF_OK)
        memcpy(info, staged, struct_size);
    return s;
}
