#include "common/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int64_t ms_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void ms_progress_init(ms_progress *p, const char *label)
{
    memset(p, 0, sizeof *p);
    const char *off = getenv("MLSUBMIT_NO_PROGRESS");
    p->enabled = isatty(STDERR_FILENO) && !(off && *off && strcmp(off, "0"));
    p->start_ns = p->last_ns = ms_now_ns();
    snprintf(p->label, sizeof p->label, "%s", label);
}

void ms_progress_update(ms_progress *p, uint64_t done, uint64_t total, const char *unit)
{
    if (!p->enabled)
        return;
    int64_t now = ms_now_ns();
    if (now - p->start_ns < 1000000000LL || now - p->last_ns < 200000000LL)
        return;
    p->last_ns = now;
    double secs = (double)(now - p->start_ns) / 1e9;
    if (total)
        fprintf(stderr, "\r%s: %llu/%llu %s (%.0f%%), %.1fs   ", p->label, (unsigned long long)done,
                (unsigned long long)total, unit, 100.0 * (double)done / (double)total, secs);
    else
        fprintf(stderr, "\r%s: %llu %s, %.1fs   ", p->label, (unsigned long long)done, unit, secs);
    fflush(stderr);
    p->shown = 1;
}

void ms_progress_end(ms_progress *p)
{
    if (p->shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->shown = 0;
}
