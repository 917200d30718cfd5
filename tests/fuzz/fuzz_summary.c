/* libFuzzer harness: the summary-log reader and its "name : value" lookups. */
#include <stdint.h>
#include <stdlib.h>

#include "common/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_summary s;
    ms_err e;
    if (ms_summary_parse(&s, (const char *)data, size, "fuzz", &e) != MS_OK)
        return 0;
    static const char *const keys[] = {"Scenario", "Result is", "Completed samples per second",
                                       "Samples per second", "target_latency (ns)", "SUT name"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        free(ms_summary_get(&s, keys[i]));
    for (size_t i = 0; i < s.nlines; i++) {
        const char *v;
        size_t n;
        (void)ms_summary_line_value(&s.lines[i], &v, &n);
    }
    ms_summary_free(&s);
    return 0;
}
