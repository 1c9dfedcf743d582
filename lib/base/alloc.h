/* alloc.h — every allocation of the library goes through these. In a
 * normal build they are the C library's; a test build of the library
 * (TF_ALLOC_FAILURE_HOOK, see alloc_hook.c) counts them and can make the
 * Nth one fail, to prove every failure path frees what it holds. */
#ifndef TF_ALLOC_H
#define TF_ALLOC_H

#include <stdlib.h>

#ifdef TF_ALLOC_FAILURE_HOOK
void *tf__malloc(size_t n);
void *tf__calloc(size_t count, size_t size);
void *tf__realloc(void *p, size_t n);
void *tf__aligned_alloc(size_t alignment, size_t n);
void tf__free(void *p);
#else
static inline void *tf__malloc(size_t n)
{
    return malloc(n);
}
static inline void *tf__calloc(size_t count, size_t size)
{
    return calloc(count, size);
}
static inline void *tf__realloc(void *p, size_t n)
{
    return realloc(p, n);
}
static inline void *tf__aligned_alloc(size_t alignment, size_t n)
{
    return aligned_alloc(alignment, n);
}
static inline void tf__free(void *p)
{
    free(p);
}
#endif

#endif
