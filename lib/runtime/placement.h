/* placement.h — keeping a job's worker threads off the caller's core.
 *
 * Why: on a virtual machine whose cores have sat idle (about 100 ms here),
 * the hypervisor has descheduled them, and Linux does not wake a thread on
 * a core it sees as preempted: the worker a call wakes lands on the
 * caller's own core and waits there for its turn, at every step. Measured
 * on this project's 2-core VM (the Python binding, one BERT-base layer,
 * T = 128, 2 threads): 7.4 ms back to back, 12.7 ms after 100 ms idle;
 * with the workers kept off the caller's core, 8 ms. */
#ifndef TF_PLACEMENT_H
#define TF_PLACEMENT_H

#include <pthread.h>

/* The core the calling thread runs on, or -1 where the system does not
 * say. */
int tf__cpu_now(void);

/* Remembers the cores the calling thread may run on as the workers' cores
 * (the pool calls it once, as it starts them). */
void tf__cpu_note_cores(void);

/* Lets each of the n threads in workers[] run on the noted cores except
 * `cpu` (the caller's own); on all of them when cpu is -1 or no other
 * remains. Never changes the calling thread's own set. Costs n system
 * calls; allocates nothing. Where the system has no such call it does
 * nothing. */
void tf__cpu_keep_off(const pthread_t *workers, int n, int cpu);

#endif
