/* Evidence (see README, Audits: STRICT checks) in the audited run's detail log that its
 * audit.config was found, parsed and applied. Upstream checks none of this (a TEST04 run without
 * its audit.config passes the comparison trivially), so these are STRICT checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_int.h"

/* Compares a logged value with the expected text; u64/bools compared by text. */
static void expect_value(au_rep *rep, const ms_mllog *log, const char *key, const char *want)
{
    const ms_mllog_rec *r = ms_mllog_find(log, key);
    if (!r) {
        au_rep_check(rep, AU_FAILED, "%s = %s: the key is not in the log", key, want);
        return;
    }
    char *v = r->kind == MS_JV_STRING ? ms_mllog_rec_str(r) : strndup(r->raw, r->raw_len);
    int ok = v && !strcmp(v, want);
    au_rep_check(rep, ok ? AU_PASSED : AU_FAILED, "%s = %s%s%s", key, want, ok ? "" : ", logged: ",
                 ok ? "" : (v ? v : "?"));
    free(v);
}

static void expect_u64(au_rep *rep, const ms_mllog *log, const char *key, uint64_t want)
{
    char w[32];
    snprintf(w, sizeof w, "%llu", (unsigned long long)want);
    expect_value(rep, log, key, w);
}

/* error_invalid_config entries that mean the whole audit.config was rejected */
static int rejected(const ms_mllog *log, char *first, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < log->nrecs; i++) {
        const ms_mllog_rec *r = &log->recs[i];
        if (strcmp(r->key, "error_invalid_config") != 0)
            continue;
        char *v = ms_mllog_rec_str(r);
        if (v && (strstr(v, "value needs to be integer or double") || strstr(v, "expected 'key=value'"))) {
            if (!bad)
                snprintf(first, n, "line %zu: %s", r->line_no, v);
            bad++;
        }
        free(v);
    }
    return bad;
}

void au_check_applied(au_rep *rep, au_test t, const ms_mllog *log, const au_rules *r, uint64_t target,
                      const uint64_t *seeds, long long acc_records)
{
    au_logged lg;
    char why[512];
    int have = au_logged_settings(log, -1, &lg, why, sizeof why) == 0;
    au_rep_check(rep, have && lg.audit_warning ? AU_PASSED : AU_FAILED,
                 "warning 'Found Audit Config file (audit.config)' in %s%s", log->path,
                 have && lg.audit_warning ? "" : ": absent (the run did not see an audit.config)");
    char first[600];
    int nrej = rejected(log, first, sizeof first);
    if (nrej)
        au_rep_check(rep, AU_FAILED, "audit.config parsed: rejected by the LoadGen (%s); nothing of it was applied", first);
    else
        au_rep_check(rep, AU_PASSED, "audit.config parsed: no 'value needs to be integer or double' / "
                                     "'expected key=value' errors");
    expect_value(rep, log, "effective_test_mode", "PerformanceOnly");
    switch (t) {
    case AU_TEST01:
        expect_u64(rep, log, "effective_accuracy_log_rng_seed", au_rules_test01_seed(r));
        if (target)
            expect_u64(rep, log, "effective_accuracy_log_sampling_target", target);
        else {
            uint64_t v = 0;
            int ok = ms_mllog_get_u64(log, "effective_accuracy_log_sampling_target", &v) == 0 && v > 0;
            au_rep_check(rep, ok ? AU_PASSED : AU_FAILED,
                         "effective_accuracy_log_sampling_target > 0 (any target), logged %llu",
                         (unsigned long long)v);
        }
        if (acc_records >= 0)
            au_rep_check(rep, acc_records > 0 ? AU_PASSED : AU_FAILED,
                         "accuracy log of the audited run is not empty (%lld records)", acc_records);
        break;
    case AU_TEST04:
        expect_value(rep, log, "effective_performance_issue_same", "true");
        expect_u64(rep, log, "effective_performance_issue_same_index", au_rules_same_index(r));
        expect_value(rep, log, "effective_performance_issue_unique", "false");
        break;
    case AU_TEST05:
        au_rep_check(rep, have && lg.test05_warning ? AU_PASSED : AU_FAILED,
                     "warning 'Test05 flag detected Overriding random seeds'%s",
                     have && lg.test05_warning ? "" : ": absent (the alternate seeds were not applied)");
        if (seeds) {
            expect_u64(rep, log, "effective_qsl_rng_seed", seeds[0]);
            expect_u64(rep, log, "effective_sample_index_rng_seed", seeds[1]);
            expect_u64(rep, log, "effective_schedule_rng_seed", seeds[2]);
        }
        break;
    default: /* TEST06-TEST09: llm.c checks their settings */
        break;
    }
}
