/* Scenario checks, power group (W): the power directory of a performance run, the
 * ranging run and the PTD logs. Dispatched by ck_eval_scenario (scenario.c). */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checker/scen.h"
#include "common/pyfmt.h"

/* ------------------------------------------------------------------- power ---- */

/* "MM-DD-YYYY HH:MM:SS.ffffff" (fraction 1-6 digits) -> microseconds since 1970 */
static int parse_ptd_time(const char *s, long long *us)
{
    int mo, dd, yy, hh, mi, ss, n = 0;
    if (sscanf(s, "%2d-%2d-%4d %2d:%2d:%2d%n", &mo, &dd, &yy, &hh, &mi, &ss, &n) != 6)
        return -1;
    const char *p = s + n;
    long frac = 0;
    if (*p != '.')
        return -1;
    p++;
    int digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 6) {
        frac = frac * 10 + (*p - '0');
        p++;
        digits++;
    }
    if (!digits)
        return -1;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    if (*p)
        return -1;
    for (int i = digits; i < 6; i++)
        frac *= 10;
    if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 59)
        return -1;
    /* days from civil (proleptic Gregorian) */
    int y = yy - (mo <= 2);
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = era * 146097 + doe - 719468;
    *us = ((days * 86400 + hh * 3600 + mi * 60 + ss) * 1000000LL) + frac;
    return 0;
}

/* W1 (unified; the legacy profile checks it with P1): run_1 holds spl.txt. Where the round
 * only logs P1 (performance_file_list_stops off), check_power_dir of tags v1.0.1-v3.0 still
 * fails the power result on the same run_1 file list mismatch (`is_valid = False`). */
static void power_run_files(sctx *c, const char *run_rel)
{
    const ck_rules *r = c->r;
    if (!c->unified && r->sw.performance_file_list_stops)
        return;
    const char *spl[2] = {"spl.txt", NULL};
    char *diff = NULL;
    char *run_abs = absof(c, run_rel);
    if (!run_abs || ck_files_diff(r, run_abs, ck_rget(r, "perf_dir_required_files"),
                                  ck_rget(r, "perf_dir_optional_files"), spl, &diff))
        c->run->oom = 1;
    if (diff)
        FIND(c, CK_ID(W1), CK_SEV_ERROR, run_rel, 0, NULL, diff, "%s has file list mismatch (%s)",
             run_rel, diff);
    free(diff);
    free(run_abs);
}

/* W2: the ranging and the power folders hold their files */
static void power_file_sets(sctx *c, const char *rng_rel, const char *rng_abs, const char *pwr_rel,
                            const char *pwr_abs)
{
    const ck_rules *r = c->r;
    const char *spl[2] = {"spl.txt", NULL};
    char *diff = NULL;
    if (ck_files_diff(r, rng_abs, ck_rget(r, "perf_dir_required_files"),
                      ck_rget(r, "perf_dir_optional_files"), spl, &diff) == 0 && diff) {
        FIND(c, CK_ID(W2), CK_SEV_ERROR, rng_rel, 0, NULL, diff, "%s has file list mismatch (%s)", rng_rel,
             diff);
        free(diff);
        diff = NULL;
    }
    if (ck_files_diff(r, pwr_abs, ck_rget(r, "power_dir_required_files"), NULL, NULL, &diff) == 0 &&
        diff) {
        FIND(c, CK_ID(W2), CK_SEV_ERROR, pwr_rel, 0, NULL, diff, "%s has file list mismatch (%s)", pwr_rel,
             diff);
        free(diff);
    }
}

/* W3: ranging result computable (ranging_run_checked: up to tag v3.0 check_power_dir
 * only compares the ranging folder's file list) */
static void power_ranging(sctx *c, const char *rng_rel)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    if (!r->sw.ranging_run_checked)
        return;
    char *rlog = ck_join(rng_rel, "mlperf_log_detail.txt");
    ck_dlog d;
    memset(&d, 0, sizeof d);
    size_t before = s->f.n;
    if (rlog && load_dlog(c, rlog, CK_ID(W3), &d)) {
        char *S = ck_dlog_str(&d, "effective_scenario");
        const char *field = S ? json_string_value(ck_rget3(r, "result_field_overrides",
                                                           s->mlperf_model, S)) : NULL;
        if (S && !field)
            field = json_string_value(ck_rget2(r, "result_field", S));
        double v;
        if (!field || ck_dlog_num(&d, field, &v))
            FIND(c, CK_ID(W3), CK_SEV_ERROR, rlog, 0, field ? field : "a result field", "None",
                 "%s caused exception in check_ranging_dir: %s is missing", rng_rel,
                 field ? field : "effective_scenario");
        free(S);
    }
    for (size_t i = before; i < s->f.n; i++)
        s->f.v[i].id = CK_ID(W3);
    ck_dlog_free(&d);
    free(rlog);
}

/* W5: the power samples of spl.txt after power_begin and before power_end (b_us, e_us): their
 * sum and count. 0 when the file could not be read (missing: a finding). */
static int spl_samples(sctx *c, const char *spl_rel, long long b_us, long long e_us, double *sum, size_t *nsamp)
{
    textfile t;
    read_textfile(c, spl_rel, CK_ID(W5), 1, &t);
    if (t.ok) {
        ms_lines it;
        ms_lines_init(&it, t.text, t.len);
        const char *line;
        size_t len;
        int nl;
        char *lb = NULL;
        while (ms_lines_next(&it, &line, &len, &nl)) {
            if (len < 4 || memcmp(line, "Time", 4))
                continue;
            free(lb);
            lb = malloc(len + 1);
            if (!lb)
                break;
            memcpy(lb, line, len);
            lb[len] = '\0';
            char *fields[8] = {0};
            int nf = 0;
            for (char *q = lb, *tok; nf < 8 && (tok = strsep(&q, ","));)
                fields[nf++] = tok;
            long long ts;
            double w;
            if (nf < 4 || parse_ptd_time(fields[1], &ts) ||
                ms_py_float_parse(fields[3], strlen(fields[3]), &w)) {
                FIND(c, CK_ID(W5), CK_SEV_ERROR, spl_rel, (long)it.line_no, "Time,<timestamp>,..,<watts>",
                     NULL, "malformed power sample line");
                continue;
            }
            if (ts > b_us && ts < e_us && w > 0) {
                *sum += w;
                (*nsamp)++;
            }
        }
        free(lb);
    } else if (t.missing) {
        FIND(c, CK_ID(W5), CK_SEV_ERROR, spl_rel, 0, NULL, NULL, "%s is missing", spl_rel);
    }
    free(t.text);
    return t.ok;
}

/* W5: the power metric from the average power avg over dur seconds: watts (Offline, Server,
 * Interactive), energy per query (SingleStream, MultiStream) */
static void power_metric_value(sctx *c, const ck_dlog *run_log, const char *run_log_rel, double avg, double dur)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    const char *F = canon_or_raw(r, s->scen_fixed);
    const char *S = s->effective_scenario ? s->effective_scenario : F;
    if (CK_SCEN_IS(F, RU_OFFLINE) || CK_SCEN_IS(F, RU_SERVER) || CK_SCEN_IS(F, RU_INTERACTIVE)) {
        s->power_metric = avg;
        s->power_eff = s->value.set ? s->value.d / avg : 0;
        return;
    }
    /* power_energy_scale: J per query before v3.0 (1), mJ from v3.0 on (1000);
     * before v2.0 the log has no result_query_count (check_power_dir of
     * v2.0: generated queries for MultiStream, QPS x duration for SingleStream) */
    const json_t *jsc = ck_rget(r, "power_energy_scale");
    double scale = json_is_number(jsc) ? json_number_value(jsc) : 1000;
    int64_t nq = 0;
    double nqd = 0;
    if (!r->sw.detail_log_query_count) {
        int64_t g = 0, spq = 0;
        double qps = 0;
        if (CK_SCEN_IS(F, RU_MULTI_STREAM) &&
            !ck_dlog_i64(run_log, "generated_query_count", &g) &&
            !ck_dlog_i64(run_log, "generated_samples_per_query", &spq))
            nqd = (double)g * (double)spq;
        else if (CK_SCEN_IS(F, RU_SINGLE_STREAM) &&
                 !ck_dlog_num(run_log, "result_qps_with_loadgen_overhead", &qps))
            nqd = qps * dur;
    } else if (!ck_dlog_i64(run_log, "result_query_count", &nq)) {
        nqd = (double)nq;
    }
    if (nqd == 0) {
        FIND(c, CK_ID(W5), CK_SEV_ERROR, run_log_rel, 0, "result_query_count", "None",
             "result_query_count is missing or zero");
    } else if (CK_SCEN_IS(F, RU_MULTI_STREAM) && CK_SCEN_IS(S, RU_SINGLE_STREAM) &&
               r->sw.early_stopping) {
        s->power_metric = avg * dur * 8 * scale / nqd;
        s->power_eff = 8000 / s->power_metric;
    } else {
        s->power_metric = avg * dur * scale / nqd;
        s->power_eff = (CK_SCEN_IS(F, RU_MULTI_STREAM) ? 8000 : 1000) / s->power_metric;
    }
}

/* W5: the power metric of the main run (its power_begin/power_end window over spl.txt) */
static void power_metric(sctx *c, const ck_dlog *run_log, const char *run_rel, const char *spl_rel)
{
    char *pb = ck_dlog_str(run_log, "power_begin"), *pe = ck_dlog_str(run_log, "power_end");
    long long b_us, e_us;
    char *run_log_rel = ck_join(run_rel, "mlperf_log_detail.txt");
    if (!pb || !pe || parse_ptd_time(pb, &b_us) || parse_ptd_time(pe, &e_us)) {
        FIND(c, CK_ID(W5), CK_SEV_ERROR, run_log_rel, kline(run_log, "power_begin"),
             "power_begin/power_end as MM-DD-YYYY HH:MM:SS.ffffff",
             pb ? pb : "None", "power_begin/power_end missing or malformed");
    } else {
        double sum = 0;
        size_t nsamp = 0;
        int ok = spl_samples(c, spl_rel, b_us, e_us, &sum, &nsamp);
        if (ok && nsamp == 0)
            FIND(c, CK_ID(W5), CK_SEV_ERROR, spl_rel, 0, "samples between power_begin and power_end",
                 "none", "%s has no power samples falling in power range: %s - %s", spl_rel,
                 pb, pe);
        else if (ok)
            power_metric_value(c, run_log, run_log_rel, sum / (double)nsamp, (double)(e_us - b_us) / 1e6);
    }
    free(pb);
    free(pe);
    free(run_log_rel);
}

void group_power(sctx *c, const char *scen_rel, const ck_dlog *run_log, int run_log_ok)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    char *perf_rel = ck_join(scen_rel, "performance");
    char *rng_rel = ck_join(perf_rel, "ranging");
    char *pwr_rel = ck_join(perf_rel, "power");
    char *run_rel = ck_join(perf_rel, "run_1");
    char *rng_abs = absof(c, rng_rel), *pwr_abs = absof(c, pwr_rel);
    char *spl_rel = ck_join(run_rel, "spl.txt");
    if (!perf_rel || !rng_rel || !pwr_rel || !run_rel || !rng_abs || !pwr_abs || !spl_rel) {
        c->run->oom = 1;
        goto out;
    }
    power_run_files(c, run_rel);
    power_file_sets(c, rng_rel, rng_abs, pwr_rel, pwr_abs);
    power_ranging(c, rng_rel);
    if (run_log_ok)
        power_metric(c, run_log, run_rel, spl_rel);
    /* W4: the Power WG checker (power.c); before v5.0 only with --more-power-check */
    if (r->sw.power_wg_default || c->run->o->more_power_check)
        ck_power_wg_check(c->run, &s->f, &c->w, perf_rel, c->kept, CK_KEPT_LOGS);
out:
    free(perf_rel);
    free(rng_rel);
    free(pwr_rel);
    free(run_rel);
    free(rng_abs);
    free(pwr_abs);
    free(spl_rel);
}
