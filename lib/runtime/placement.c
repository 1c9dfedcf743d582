/* placement.c — keeping workers off the caller's core (placement.h), with
 * Linux's affinity calls; elsewhere nothing moves. */
#define _GNU_SOURCE
#include "placement.h"

#ifdef __linux__
#include <sched.h>

static cpu_set_t allowed; /* the workers' cores, as noted */
static int noted;

int tf__cpu_now(void)
{
    return sched_getcpu();
}

void tf__cpu_note_cores(void)
{
    noted = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
}

void tf__cpu_keep_off(const pthread_t *workers, int n, int cpu)
{
    if (!noted)
        return;
    cpu_set_t others = allowed;
    if (cpu >= 0 && cpu < CPU_SETSIZE)
        CPU_CLR(cpu, &others);
    const cpu_set_t *set = CPU_COUNT(&others) > 0 ? &others : &allowed;
    for (int i = 0; i < n; i++)
        pthread_setaffinity_np(workers[i], sizeof *set, set);
}
#else
int tf__cpu_now(void)
{
    return -1;
}

void tf__cpu_note_cores(void)
{
}

void tf__cpu_keep_off(const pthread_t *workers, int n, int cpu)
{
    (void)workers, (void)n, (void)cpu;
}
#endif
