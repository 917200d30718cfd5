/* --sut cheat-len:mode=truncate|pad: a tokens SUT that changes its output length in performance
 * mode only (forbidden).
 *
 * Rule broken: the SUT must generate the same outputs in performance mode as in accuracy mode
 * (TEST09's purpose, mlcommons/inference compliance/TEST09/README.md). truncate stops every
 * generation at half its length (fewer tokens, higher throughput); pad generates twice as many
 * tokens (e.g. to meet a tokens-per-second figure). Token counts, first tokens and EOS use stay
 * consistent, so TEST06 passes; accuracy mode is honest. TEST09 sees the mean output length
 * leave the benchmark's bounds. */
#include <string.h>

#include "loadgen/suts/tokens.h"

static int cheat_len_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    const char *mode = lg_sut_opt_str(opts, "mode");
    tk_cheat c = {0};
    if (!mode || !strcmp(mode, "truncate"))
        c.perf_len_num = 1, c.perf_len_den = 2;
    else if (!strcmp(mode, "pad"))
        c.perf_len_num = 2, c.perf_len_den = 1;
    else
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option mode: expected truncate or pad, got '%s'", opts->sut_name,
                          mode);
    char label[48];
    snprintf(label, sizeof label, "cheat-len %s", mode ? mode : "truncate");
    return tk_start(si, opts, env, &c, label, e);
}

LG_SUT_DEFINE(cheat_len, "CHEATER (TEST09): tokens SUT that truncates (or pads) its outputs in performance mode",
              "               breaks: the same outputs in performance as in accuracy mode (TEST09 catches it)\n"
              "               mode=truncate (default): half-length outputs   mode=pad: double-length outputs\n"
              "               the tokens options:\n" TK_OPTIONS_HELP, cheat_len_create)
