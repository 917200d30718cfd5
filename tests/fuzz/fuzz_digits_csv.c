/* libFuzzer harness: the digits dataset CSV parser. */
#include <stdint.h>

#include "loadgen/digits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    digits_dataset ds;
    ms_err e;
    if (digits_parse_csv((const char *)data, size, "fuzz.csv", &ds, &e) == MS_OK)
        digits_dataset_free(&ds);
    return 0;
}
