/* libFuzzer harness: the nameplate-power YAML reader (W6, libyaml) and the PTD timestamp
 * parser of the power checks. The YAML reader takes a path, so the input goes through
 * /dev/shm. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "checker/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t us;
    (void)ck_ptd_strptime((const char *)data, size < 64 ? size : 64, &us);
    char path[64];
    snprintf(path, sizeof path, "/dev/shm/mlsubmit-fuzz-nameplate-%d.yaml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    char *value = NULL, err[256];
    if (ck_nameplate_yaml(path, &value, err, sizeof err) == 0)
        free(value);
    unlink(path);
    return 0;
}
