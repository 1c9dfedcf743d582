/* rng.h — a small deterministic generator (splitmix64) for weight init.
 * The same seed gives the same weights on every platform and build. */
#ifndef TF_RNG_H
#define TF_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct tf__rng {
    uint64_t state;
} tf__rng;

static inline uint64_t tf__rng_next(tf__rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double tf__rng_uniform(tf__rng *r)
{
    return (double)(tf__rng_next(r) >> 11) * 0x1.0p-53;
}

/* Standard normal (Box-Muller; one value per call). */
static inline double tf__rng_normal(tf__rng *r)
{
    double u1 = 1.0 - tf__rng_uniform(r); /* (0, 1]: log is finite */
    double u2 = tf__rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
