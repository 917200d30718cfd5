/* --sut cheat-eos:mode=extra-eos|first-token|count: a tokens SUT that breaks one of the LLM
 * token-accounting rules (forbidden).
 *
 * Rules broken (the purpose of TEST06, mlcommons/inference compliance/TEST06/README.md):
 *   extra-eos    every output ends with three EOS tokens (padding that costs nothing but counts
 *                as generated tokens: "EOS check pass: False")
 *   first-token  the first token reported for TTFT is a placeholder, not the output's first
 *                token ("First token check pass: False"; outside Offline only, where the first
 *                token is reported separately)
 *   count        the reported token count is twice the output's length (inflates tokens/s:
 *                "Sample length check pass: False")
 * Timings, lengths and every other byte are the tokens SUT's, so TEST09 (mean output length)
 * passes. */
#include <string.h>

#include "loadgen/suts/tokens.h"

static int cheat_eos_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    const char *mode = lg_sut_opt_str(opts, "mode");
    tk_cheat c = {0};
    if (!mode || !strcmp(mode, "extra-eos"))
        c.extra_eos = 3;
    else if (!strcmp(mode, "first-token"))
        c.first_shift = 1;
    else if (!strcmp(mode, "count"))
        c.count_mul = 2;
    else
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option mode: expected extra-eos, first-token or count, got '%s'",
                          opts->sut_name, mode);
    char label[48];
    snprintf(label, sizeof label, "cheat-eos %s", mode ? mode : "extra-eos");
    return tk_start(si, opts, env, &c, label, e);
}

LG_SUT_DEFINE(cheat_eos, "CHEATER (TEST06): tokens SUT with extra EOS tokens, a false first token or a false token count",
              "               breaks: LLM output consistency (TEST06 catches it)\n"
              "               mode=extra-eos (default): three EOS tokens end every output\n"
              "               mode=first-token: the reported first token differs from the output's\n"
              "               mode=count: the reported token count is twice the output's length\n"
              "               the tokens options:\n" TK_OPTIONS_HELP, cheat_eos_create)
