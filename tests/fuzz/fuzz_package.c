/* libFuzzer harness: the tarball reader of `mlsubmit package --verify` (gzip + tar through
 * libarchive, the embedded SQLite index deserialized from memory, every member re-hashed). */
#include <stdint.h>

#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_err e;
    rp_verify_stats st;
    rp_package_verify_mem(data, size, "fuzz.tar.gz", NULL, NULL, &st, &e);
    return 0;
}
