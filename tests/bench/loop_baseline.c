/* Baseline for the LoadGen benchmarks, measured in the same run on the same machine: the
 * cheapest possible SingleStream loop (two monotonic clock reads, one indirect call that
 * "completes" with an atomic add) and the cost of touching 8 bytes per sample. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static _Atomic uint64_t done;
static int64_t *lat;

static void complete(uint64_t k, int64_t sched)
{
    lat[k] = now_ns() - sched;
    atomic_fetch_add(&done, 1);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000;
    void (*volatile cb)(uint64_t, int64_t) = complete;
    lat = malloc(n * sizeof *lat);
    if (!lat)
        return 1;
    int64_t t0 = now_ns();
    for (uint64_t k = 0; k < n; k++) {
        int64_t s = now_ns();
        cb(k, s);
        while (atomic_load(&done) != k + 1)
            ;
    }
    int64_t t1 = now_ns();
    printf("%.0f\n", (double)n / ((double)(t1 - t0) / 1e9));
    free(lat);
    return 0;
}
