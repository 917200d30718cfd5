/* libFuzzer harness: the rules-file loader of the checker (JSON -> ck_rules, with and without
 * the smoke profile). The loader reads a path, so each input goes through a file in /dev/shm. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "checker/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/dev/shm/mlsubmit-fuzz-rules-%d.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    static const char *const profiles[] = {NULL, "smoke"};
    for (int i = 0; i < 2; i++) {
        ck_rules r;
        ms_err e;
        if (ck_rules_load(&r, path, profiles[i], &e) == MS_OK)
            ck_rules_free(&r);
    }
    unlink(path);
    return 0;
}
