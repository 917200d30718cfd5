/* libFuzzer harness: the checker's streaming detail-log reader (ck_dlog_load: block reads,
 * universal newlines, the 64-byte line-end/UTF-8 scan, the memo of the previous record's middle
 * part, the repeated-key shortcut, long values validated ahead of the line end or remembered
 * from an earlier input) and, line by line, ms_mllog_scan_line_memo against the
 * stateless ms_mllog_scan_line: any difference in a result aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>

#include "checker/internal.h"
#include "common/mllog.h"

static void differential(const char *data, size_t size)
{
    ms_mllog_memo memo;
    memset(&memo, 0, sizeof memo);
    const char *p = data, *end = data + size;
    char m1[200], m2[200];
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        ms_mllog_rec r1, r2;
        const char *k1, *k2;
        size_t kl1, kl2;
        int a = ms_mllog_scan_line(p, n, &r1, &k1, &kl1, m1, sizeof m1);
        int b = ms_mllog_scan_line_memo(p, n, &r2, &k2, &kl2, &memo, m2, sizeof m2);
        if (a != b)
            abort();
        if (a > 0 && (k1 != k2 || kl1 != kl2 || r1.kind != r2.kind || r1.raw != r2.raw ||
                      r1.raw_len != r2.raw_len || r1.is_error != r2.is_error ||
                      r1.is_warning != r2.is_warning))
            abort();
        p += n + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* as a worker thread of the check: the long values of one input are remembered for the
     * next ones (dlog.c, "values seen before") */
    static int memo_on;
    if (!memo_on) {
        ck_dlog_memo_begin();
        memo_on = 1;
    }
    differential((const char *)data, size);
    int fd = memfd_create("dlog", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ck_dlog d;
    ms_err e;
    if (ck_dlog_load(&d, path, &e) == MS_OK) {
        double v;
        int64_t i;
        (void)ck_dlog_num(&d, "result_samples_per_second", &v);
        (void)ck_dlog_i64(&d, "num_errors", &i);
        free(ck_dlog_text(&d, "effective_scenario"));
        ck_dlog_free(&d);
    }
    close(fd);
    return 0;
}
