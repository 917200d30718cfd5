/* The engine of the recs SUT (recs.c), shared with cheat-acc (cheat_acc.c). No LG_SUT_DEFINE. */
#ifndef LG_SUTS_RECS_H
#define LG_SUTS_RECS_H

#include "loadgen/suts/sut.h"

/* Starts a recs SUT; cheat != 0: in performance mode every prediction is 0.5 (no inference). */
int recs_start(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, int cheat, ms_err *e);

#define RECS_OPTIONS_HELP \
    "               seed=N (1)  per-sample ranking: ts_idx = index / 16, query_idx = index % 16, 2..4 candidates\n"

#endif
