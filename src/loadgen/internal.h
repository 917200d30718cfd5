/* Declarations shared by the LoadGen's own files (not part of the public API). */
#ifndef LG_INTERNAL_H
#define LG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "loadgen/loadgen.h"

/* ---- settings.c ---- */

/* Embedded mlperf.conf text for a compat version. */
const char *lg_embedded_mlperf_conf(lg_compat c, size_t *len, const char **name);

/* Config errors the session collected for the detail log (error_invalid_config values). */
size_t lg_conf_session_nlog_errors(const lg_conf_session *cs);
const char *lg_conf_session_log_error(const lg_conf_session *cs, size_t i);
lg_compat lg_conf_session_compat(const lg_conf_session *cs);
/* Whether audit.config may set test05 and the test05_* seeds (lg_run_options.audit_test05). */
void lg_conf_session_set_audit_test05(lg_conf_session *cs, int on);

/* ---- plan.c ---- */

/* What the release vr derives differently from this LoadGen (sets ef->rules). */
void lg_effective_apply_rules(lg_effective *ef, const lg_test_settings *s, const lg_version_rules *vr,
                              double ms_qps, uint64_t ms_async);

/* ---- run.c ---- */

/* The accuracy-log sampling probability of a performance series (reference loadgen.cc,
 * GenerateQueries: accuracy_log_rng_seed). */
double lg_accuracy_log_probability(const lg_effective *ef);

/* A test object that belongs to no run: completions go to fn (see lg_sink_new in sink.c). */
lg_test *lg_test_new_sink(lg_sink_fn fn, void *ctx);

#endif
