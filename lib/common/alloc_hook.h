/* alloc_hook.h — control of the allocation-failure hook (test builds of
 * the library only: TF_ALLOC_FAILURE_HOOK). */
#ifndef TF_ALLOC_HOOK_H
#define TF_ALLOC_HOOK_H

#include <stddef.h>

/* The nth allocation from now fails (1 = the next one); 0 = none fails. */
void tf__alloc_hook_fail_at(long n);
/* 1 if the planned failure has happened. */
int tf__alloc_hook_failed(void);
/* Allocations made so far (failed ones excluded). */
long tf__alloc_hook_count(void);
/* Allocations not freed yet, and their bytes. */
long tf__alloc_hook_live(void);
size_t tf__alloc_hook_live_bytes(void);
/* The most bytes live at once since the last reset. */
size_t tf__alloc_hook_peak_bytes(void);
void tf__alloc_hook_reset_peak(void);

#endif
