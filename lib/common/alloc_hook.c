/* alloc_hook.c — the allocation functions of test builds of the library
 * (TF_ALLOC_FAILURE_HOOK): they count allocations and live bytes, and can
 * make the Nth allocation fail. Each block carries a header of 64 bytes
 * or its alignment, if larger (its last 64 bytes hold the block's size and
 * alignment), which also keeps every returned pointer that aligned. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "alloc_hook.h"

#define HEADER 64

static atomic_long countdown; /* > 0: allocations until the planned failure */
static atomic_int failed;
static atomic_long live, allocations;
static atomic_size_t live_bytes, peak_bytes;

void tf__alloc_hook_fail_at(long n)
{
    atomic_store(&countdown, n);
    atomic_store(&failed, 0);
}

int tf__alloc_hook_failed(void)
{
    return atomic_load(&failed);
}
long tf__alloc_hook_count(void)
{
    return atomic_load(&allocations);
}
long tf__alloc_hook_live(void)
{
    return atomic_load(&live);
}
size_t tf__alloc_hook_live_bytes(void)
{
    return atomic_load(&live_bytes);
}
size_t tf__alloc_hook_peak_bytes(void)
{
    return atomic_load(&peak_bytes);
}
void tf__alloc_hook_reset_peak(void)
{
    atomic_store(&peak_bytes, atomic_load(&live_bytes));
}

/* 1 if this allocation is the one planned to fail. */
static int fail_now(void)
{
    long n = atomic_load(&countdown);
    while (n > 0 && !atomic_compare_exchange_weak(&countdown, &n, n - 1))
        ;
    if (n == 1) {
        atomic_store(&failed, 1);
        return 1;
    }
    return 0;
}

/* n bytes aligned to `alignment` (a power of two, at least HEADER). */
static void *hooked_alloc(size_t alignment, size_t n)
{
    if (fail_now() || n > SIZE_MAX - alignment)
        return NULL;
    void *base;
    if (posix_memalign(&base, alignment, n + alignment) != 0)
        return NULL;
    char *p = (char *)base + alignment;
    memcpy(p - HEADER, &n, sizeof n);
    memcpy(p - HEADER + sizeof n, &alignment, sizeof alignment);
    atomic_fetch_add(&allocations, 1);
    atomic_fetch_add(&live, 1);
    const size_t now = atomic_fetch_add(&live_bytes, n) + n;
    size_t peak = atomic_load(&peak_bytes);
    while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now))
        ;
    return p;
}

void *tf__malloc(size_t n)
{
    return hooked_alloc(HEADER, n);
}

void tf__free(void *p)
{
    if (!p)
        return;
    size_t n, alignment;
    memcpy(&n, (char *)p - HEADER, sizeof n);
    memcpy(&alignment, (char *)p - HEADER + sizeof n, sizeof alignment);
    atomic_fetch_sub(&live, 1);
    atomic_fetch_sub(&live_bytes, n);
    free((char *)p - alignment);
}

void *tf__calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = tf__malloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void *tf__realloc(void *p, size_t n)
{
    void *q = tf__malloc(n);
    if (q && p) {
        size_t old;
        memcpy(&old, (char *)p - HEADER, sizeof old);
        memcpy(q, p, old < n ? old : n);
        tf__free(p);
    }
    return q;
}

void *tf__aligned_alloc(size_t alignment, size_t n)
{
    if (alignment & (alignment - 1)) /* (aligned_alloc's alignments are powers of two) */
        return NULL;
    return hooked_alloc(alignment > HEADER ? alignment : HEADER, n);
}
