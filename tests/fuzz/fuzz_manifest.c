/* libFuzzer harness: dataset manifest reader (sha256sum/md5sum/sha1sum text and the JSON
 * manifest), and writing back what was read. */
#include <stdint.h>
#include <stdio.h>

#include "common/treehash.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_ds_manifest m;
    ms_err e;
    if (ms_ds_manifest_parse((const char *)data, size, "fuzz.manifest", &m, &e) != MS_OK)
        return 0;
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        ms_ds_write_sums(&m, devnull, &e);
        ms_ds_write_json(&m, devnull, &e);
        fclose(devnull);
    }
    ms_ds_manifest_free(&m);
    return 0;
}
