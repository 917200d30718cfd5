/* A one-line progress indicator on stderr, shown only when stderr is a terminal and the work
 * has lasted longer than a second. Thread-compatible: one owner updates it. */
#ifndef MS_PROGRESS_H
#define MS_PROGRESS_H

#include <stdint.h>

typedef struct ms_progress {
    int enabled;          /* stderr is a tty and not disabled by MLSUBMIT_NO_PROGRESS */
    int shown;            /* something was printed (needs clearing) */
    int64_t start_ns;
    int64_t last_ns;
    char label[64];
} ms_progress;

void ms_progress_init(ms_progress *p, const char *label);
/* done/total (total 0 = unknown); unit is a short word ("queries", "files", "MB"). */
void ms_progress_update(ms_progress *p, uint64_t done, uint64_t total, const char *unit);
/* Clears the line if something was shown. */
void ms_progress_end(ms_progress *p);

/* Monotonic clock in nanoseconds. */
int64_t ms_now_ns(void);

#endif
