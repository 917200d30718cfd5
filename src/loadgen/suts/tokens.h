/* The engine of the tokens SUT (tokens.c), shared with the LLM cheaters that bend one of its
 * token-accounting rules (cheat_eos.c, cheat_len.c). No LG_SUT_DEFINE here. */
#ifndef LG_SUTS_TOKENS_H
#define LG_SUTS_TOKENS_H

#include "loadgen/suts/sut.h"

/* EOS id the tokens SUT family uses (the Llama-2 tokenizer's, upstream TEST06's default). */
#define TK_EOS_ID 2u

/* Departures from the honest SUT; all zero = honest. */
typedef struct tk_cheat {
    unsigned extra_eos;     /* EOS tokens appended to every output (counted in token_count) */
    unsigned first_shift;   /* the reported first token is the output's first + this (mod vocab) */
    unsigned count_mul;     /* reported token count = count_mul x the output's length (0 = 1) */
    unsigned perf_len_num;  /* performance mode only: output length x num / den (0 = unchanged) */
    unsigned perf_len_den;
} tk_cheat;

/* Parses the tokens options (ttft, tpot, len, seed), starts the scheduler and fills si. label
 * names the SUT in its sut_name. */
int tk_start(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, const tk_cheat *cheat,
             const char *label, ms_err *e);

/* The honest outputs, a pure function of the seed and the sample index (for accuracy scoring):
 * the length in lo..hi, and token k (an id in [0, 32000)). */
uint32_t tk_gen_len(uint64_t seed, uint64_t lo, uint64_t hi, uint64_t idx);
uint32_t tk_gen_token(uint64_t seed, uint64_t idx, uint32_t k);

/* Option help shared by the tokens SUT family. */
#define TK_OPTIONS_HELP \
    "               ttft=D (50ms)  tpot=D (5ms)  len=LO..HI (32..256) tokens per sample  seed=N (1)\n"

#endif
