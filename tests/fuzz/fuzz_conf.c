/* libFuzzer harness: mlperf.conf / user.conf / audit.config parsing and application, with the
 * per-line findings of check-conf. The input is applied as each of the three file types. */
#include <stdint.h>
#include <stdlib.h>

#include "loadgen/loadgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int types[] = {0, 1, 2};
    for (int i = 0; i < 3; i++) {
        ms_err e;
        lg_conf_session *cs = lg_conf_session_new(LG_COMPAT_6_0, NULL, &e);
        if (!cs)
            return 0;
        lg_test_settings s;
        lg_settings_default(&s);
        lg_settings_from_config_text(cs, &s, "fuzz.conf", (const char *)data, size,
                                     types[i] == 2 ? "*" : "resnet50", "Offline", types[i]);
        lg_conf_session_finish(cs);
        for (size_t k = 0; k < lg_conf_session_nfindings(cs); k++)
            (void)lg_conf_session_finding(cs, k);
        lg_effective ef;
        lg_effective_derive(&ef, &s, 1000, 100);
        lg_conf_session_free(cs);
    }
    return 0;
}
