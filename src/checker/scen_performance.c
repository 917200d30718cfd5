/* Scenario checks, performance group (P, I): a LoadGen performance run's detail log
 * (check_perf_log, also used for compliance and ranging runs) and, for v0.7.1's rounds, results
 * read from the summary file. Dispatched by ck_eval_scenario (scenario.c). */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checker/scen.h"
#include "common/pyfmt.h"

/* -------------------------------------------------------------- performance ---- */

static int pf(pctx *p, const char *pid, ck_sev sev, long line, const char *exp,
              const char *found, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int pf(pctx *p, const char *pid, ck_sev sev, long line, const char *exp,
              const char *found, const char *fmt, ...)
{
    if (ck_skipped(p->c->run, pid))
        return 0;
    va_list ap;
    va_start(ap, fmt);
    char *msg = ms_vfmt(fmt, ap);
    va_end(ap);
    const char *id = pid;
    char prefix[64] = "";
    if (p->tag && !strcmp(p->tag, "ranging")) {
        id = CK_ID(W3);
        snprintf(prefix, sizeof prefix, "ranging run (%s): ", pid);
    } else if (p->tag) {
        id = CK_ID(C3);
        snprintf(prefix, sizeof prefix, "%s performance run (%s): ", p->tag, pid);
    }
    int rc = ck_report_finding(p->c->run, &p->c->s->f, &p->c->w, id, sev, p->file, line, NULL,
                               exp, found, "%s%s", prefix, msg ? msg : "");
    free(msg);
    return rc;
}

/* The severity of a performance check the round's checker may only log: a warning when the
 * rules list its id in performance_findings_logged_only (check_performance_dir of tag v3.0
 * logs wrong seeds, a missed latency bound, too few queries, samples per query or too short a
 * run without making the run invalid), else an error. */
static ck_sev logged_only_sev(const pctx *p, const char *pid)
{
    const json_t *l = ck_rget(p->c->r, "performance_findings_logged_only");
    for (size_t i = 0; !p->c->unified && i < json_array_size(l); i++)
        if (!strcmp(json_string_value(json_array_get(l, i)) ?: "", pid))
            return CK_SEV_WARNING;
    return CK_SEV_ERROR;
}

long kline(const ck_dlog *d, const char *key)
{
    const ck_dval *v = ck_dlog_get(d, key);
    return v ? (long)v->line : 0;
}

static int need_num(pctx *p, const ck_dlog *d, const char *pid, const char *key, double *out)
{
    if (ck_dlog_num(d, key, out) == 0)
        return 1;
    char *t = ck_dlog_text(d, key);
    pf(p, pid, CK_SEV_ERROR, kline(d, key), "a number", t ? t : "None",
       "%s is missing or not a number (the MLCommons checker raises an exception)", key);
    free(t);
    return 0;
}

const char *canon_or_raw(const ck_rules *r, const char *s)
{
    const char *c = s ? ru_scenario_canon(r->j, s) : NULL;
    return c ? c : s;
}

/* ---- check_perf_log: one function per check, in the order the reference makes them ---- */

/* P2: the run is VALID (a smoke round may accept an INVALID run whose constraints were met) */
static void perf_validity(pctx *p, const ck_dlog *d)
{
    const json_t *smoke = p->c->r->smoke;
    char *validity = ck_dlog_str(d, "result_validity");
    int valid_ok = validity && !strcmp(validity, "VALID");
    if (!valid_ok && smoke && json_is_true(json_object_get(smoke, "accept_invalid_if_perf_constraints_met")) &&
        ck_dlog_truthy(d, "result_perf_constraints_met"))
        valid_ok = 1;
    if (!valid_ok && p->c->r->sw.llm_check_decides_validity &&
        ck_rlist_has(p->c->r, "llm_models", p->c->s->mlperf_model))
        /* check_performance_dir of tags v4.0 and v4.1: `llama_constraint, is_valid =
         * extra_check_llm(...)` overwrites the validity read from the log, so the token-latency
         * check (P3) alone decides */
        pf(p, CK_ID(P2), CK_SEV_WARNING, kline(d, "result_validity"), "VALID",
           validity ? validity : "None", "result_validity is %s (not an error in %s: the LLM "
           "token-latency check decides the run's validity)", validity ? validity : "missing",
           p->c->r->version);
    else if (!valid_ok)
        pf(p, CK_ID(P2), p->c->pp->p2_invalid, kline(d, "result_validity"), "VALID",
           validity ? validity : "None", "result_validity is %s%s", validity ? validity : "missing",
           p->c->pp->p2_note);
    free(validity);
}

/* P8: the result value of scenario S (its result field, ns to ms where the rules say) */
static void perf_result(pctx *p, const ck_dlog *d, const char *S, ck_value *val)
{
    const ck_rules *r = p->c->r;
    const char *model = p->c->s->mlperf_model;
    const char *field = json_string_value(ck_rget3(r, "result_field_overrides", model, S));
    if (!field)
        field = json_string_value(ck_rget2(r, "result_field", S));
    double res = NAN;
    int have_res = 0;
    if (!field) {
        pf(p, CK_ID(P8), CK_SEV_ERROR, kline(d, "effective_scenario"), "a known scenario", S,
           "no result field for scenario %s in %s rules", S, r->version);
    } else if (need_num(p, d, CK_ID(P8), field, &res)) {
        have_res = 1;
    }
    const json_t *to_ms = ck_rget(r, "result_ns_to_ms_scenarios");
    if (have_res && (to_ms ? ck_jlist_has(to_ms, S)
                           : (CK_SCEN_IS(S, RU_SINGLE_STREAM) || CK_SCEN_IS(S, RU_MULTI_STREAM)))) {
        res /= 1000000.0;
        double div = json_number_value(ck_rget2(r, "result_extra_divisor", model));
        if (div > 0)
            res /= div;
    }
    if (have_res) {
        val->set = 1;
        val->d = res;
        ms_py_float_repr(res, val->text);
    }
}

/* P3: an LLM benchmark logs token latencies, within the TTFT/TPOT limits of Server/Interactive */
static void perf_token_latencies(pctx *p, const ck_dlog *d, const char *S)
{
    sctx *c = p->c;
    const ck_rules *r = c->r;
    const char *model = c->s->mlperf_model;
    char e1[64], e2[64];
    if (ck_rlist_has(r, "llm_models", model)) {
        if (!ck_dlog_truthy(d, "requested_use_token_latencies")) {
            pf(p, CK_ID(P3), CK_SEV_ERROR, kline(d, "requested_use_token_latencies"), "true",
               "false", "use_token_latencies flag needs to be enabled for LLM benchmarks");
        } else {
            const char *lim_scen = c->pp->token_limits_by_log ? S : p->fixed;
            /* extra_check_llm of tags v4.1 and v5.0.1 (extra_check_llama2 of v4.0) compares every
             * run but Offline with the model's one limit (token_limits_all_but_offline: the
             * rules' Server entry); v5.1.1 only Server and Interactive runs, each with its own */
            if (lim_scen && r->sw.token_limits_all_but_offline && !CK_SCEN_IS(lim_scen, RU_OFFLINE) &&
                !CK_SCEN_IS(lim_scen, RU_INTERACTIVE))
                lim_scen = "Server";
            if (lim_scen && (CK_SCEN_IS(lim_scen, RU_SERVER) || CK_SCEN_IS(lim_scen, RU_INTERACTIVE))) {
                const json_t *lim = ck_rget3(r, "llm_token_latency_limits_ns", model, lim_scen);
                double ttft, tpot;
                if (!lim) {
                    pf(p, CK_ID(P3), CK_SEV_ERROR, 0, "a TTFT/TPOT limit", "none",
                       "no TTFT/TPOT limits for %s %s in %s (the MLCommons checker fails it)",
                       model, lim_scen, r->version);
                } else if (need_num(p, d, CK_ID(P3), "result_first_token_99.00_percentile_latency_ns", &ttft) &&
                           need_num(p, d, CK_ID(P3), "result_time_per_output_token_99.00_percentile_ns", &tpot)) {
                    double lt = json_number_value(json_object_get(lim, "ttft"));
                    double lp = json_number_value(json_object_get(lim, "tpot"));
                    if (!(ttft < lt && tpot < lp)) {
                        snprintf(e1, sizeof e1, "TTFT < %.0f, TPOT < %.0f", lt, lp);
                        snprintf(e2, sizeof e2, "TTFT %.0f, TPOT %.0f", ttft, tpot);
                        pf(p, CK_ID(P3), CK_SEV_ERROR, kline(d, "result_first_token_99.00_percentile_latency_ns"),
                           e1, e2, "Failed extra check for TTFT and TPOT (%s limits of %s): "
                           "obtained TTFT 99-tile %.4f, TPOT 99-tile %.4f",
                           lim_scen, model, ttft, tpot);
                    }
                }
            }
        }
    }
}

/* P4: equal-issue mode (rules list; empty in the unified rounds) */
static void perf_equal_issue(pctx *p, const ck_dlog *d)
{
    const char *model = p->c->s->mlperf_model;
    /* Config.requires_equal_issue(model, division) of tags v4.1 and v5.0.1: closed and network
     * only (equal_issue_closed_only); tag v5.1.1 drops the division */
    if (p->c->r->sw.equal_issue_closed_only && !p->c->s->closed)
        return;
    if (p->c->r->sw.equal_issue_from_conf) {
        /* check_results_dir of tag v4.1: `if not (conf_equal_issue_check or
         * performance_equal_issue_check)`, the latter `mlperf_log[...] == "true"`, true only for
         * a string value (LoadGen logs a boolean); the main performance run only */
        char *v = ck_dlog_str(d, "effective_sample_concatenate_permutation");
        int log_true = v && !strcmp(v, "true");
        free(v);
        if (!p->tag && ck_rlist_has(p->c->r, "equal_issue_required_models", model) &&
            !p->c->s->conf_equal_issue && !log_true)
            pf(p, CK_ID(P4), CK_SEV_ERROR, kline(d, "effective_sample_concatenate_permutation"),
               "true", "false", "%s requires equal issue mode (sample_concatenate_permutation), "
               "set neither in mlperf.conf / user.conf nor as the string \"true\" in the log", model);
        return;
    }
    if (ck_rlist_has(p->c->r, "equal_issue_required_models", model) &&
        !ck_dlog_truthy(d, "effective_sample_concatenate_permutation"))
        pf(p, CK_ID(P4), CK_SEV_ERROR, kline(d, "effective_sample_concatenate_permutation"), "true",
           "false", "%s requires equal issue mode (sample_concatenate_permutation)", model);
}

/* P5: the log's errors (a compliance or ranging run reports them under its own ID) */
static void perf_log_errors(pctx *p, const ck_dlog *d)
{
    sctx *c = p->c;
    size_t before = c->s->f.n;
    check_log_errors(c, d, p->file, CK_ID(P5), p->compliance, p->tag);
    if (p->tag && c->s->f.n > before) {
        ck_finding *f = &c->s->f.v[c->s->f.n - 1];
        f->id = !strcmp(p->tag, "ranging") ? CK_ID(W3) : CK_ID(C3);
    }
}

/* P6: the performance sample count at least the model's */
static void perf_sample_count(pctx *p, const ck_dlog *d)
{
    const ck_rules *r = p->c->r;
    const char *model = p->c->s->mlperf_model;
    char e1[64], e2[64];
    const json_t *psc = ck_rget2(r, "performance_sample_count", ck_remap(r, model));
    double pscv;
    if (!psc) {
        pf(p, CK_ID(P6), CK_SEV_ERROR, 0, "a known model", model,
           "model %s has no performance_sample_count in %s rules", model, r->version);
    } else if (need_num(p, d, CK_ID(P6), "effective_performance_sample_count", &pscv) &&
               pscv < json_number_value(psc)) {
        snprintf(e1, sizeof e1, ">= %.0f", json_number_value(psc));
        snprintf(e2, sizeof e2, "%.0f", pscv);
        pf(p, CK_ID(P6), CK_SEV_ERROR, kline(d, "effective_performance_sample_count"), e1, e2,
           "performance_sample_count, found %.0f, needs to be >= %.0f", pscv,
           json_number_value(psc));
    }
}

/* P7: the seeds, as exact unsigned 64-bit integers (TEST05: the round's alternate seeds) */
static void perf_seeds(pctx *p, const ck_dlog *d)
{
    const ck_rules *r = p->c->r;
    char e1[64], e2[64];
    static const char *const seed_keys[3] = {"effective_qsl_rng_seed",
                                             "effective_sample_index_rng_seed",
                                             "effective_schedule_rng_seed"};
    static const char *const seed_names[3] = {"qsl_rng_seed", "sample_index_rng_seed",
                                              "schedule_rng_seed"};
    const uint64_t *seeds = p->tag && strstr(p->tag, "TEST05") && r->sw.has_test05_seeds
                                ? r->sw.test05_seeds : r->seeds;
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        snprintf(e1, sizeof e1, "%llu", (unsigned long long)seeds[i]);
        if (ck_dlog_u64(d, seed_keys[i], &v) != 0) {
            char *t = ck_dlog_text(d, seed_keys[i]);
            pf(p, CK_ID(P7), t ? logged_only_sev(p, CK_ID(P7)) : CK_SEV_ERROR, kline(d, seed_keys[i]), e1,
               t ? t : "None",
               "%s is wrong, expected=%s, found=%s", seed_names[i], e1, t ? t : "None");
            free(t);
        } else if (v != seeds[i]) {
            snprintf(e2, sizeof e2, "%llu", (unsigned long long)v);
            pf(p, CK_ID(P7), logged_only_sev(p, CK_ID(P7)), kline(d, seed_keys[i]), e1, e2,
               "%s is wrong, expected=%s, found=%s", seed_names[i], e1, e2);
        }
    }
}

/* P9, P10 (rounds with early stopping, SingleStream, MultiStream, Server): early stopping met,
 * and the target latency within the model's constraint */
static void perf_early_stopping(pctx *p, const ck_dlog *d, const char *S)
{
    sctx *c = p->c;
    const ck_rules *r = c->r;
    const char *model = c->s->mlperf_model;
    const json_t *smoke = r->smoke;
    int ignore_es = smoke && json_is_true(json_object_get(smoke, "ignore_early_stopping"));
    char e1[64], e2[64];
    int met = ck_dlog_truthy(d, "early_stopping_met");
    if (!met && !ignore_es) {
        char *msg = ck_dlog_text(d, "early_stopping_result");
        pf(p, CK_ID(P9), c->pp->p9_early_stopping, kline(d, "early_stopping_met"),
           "true", "false", "Early stopping condition was not met, msg=%s%s",
           msg ? msg : "None", c->pp->logged_note);
        free(msg);
    }
    const json_t *lc = ck_rget3(r, "latency_constraint_ns", model, S);
    double tl;
    if ((met || !c->unified) && json_is_number(lc) && json_number_value(lc) != 0 &&
        need_num(p, d, CK_ID(P10), "effective_target_latency_ns", &tl) &&
        tl > json_number_value(lc)) {
        snprintf(e1, sizeof e1, "<= %.0f", json_number_value(lc));
        snprintf(e2, sizeof e2, "%.0f", tl);
        pf(p, CK_ID(P10), logged_only_sev(p, CK_ID(P10)), kline(d, "effective_target_latency_ns"), e1, e2,
           "Latency constraint with early stopping not met, expected=%.0f, found=%.0f",
           json_number_value(lc), tl);
    }
}

/* P11 (without early stopping): the 99th percentile latency within the model's constraint */
static void perf_latency(pctx *p, const ck_dlog *d, const char *S)
{
    sctx *c = p->c;
    const ck_rules *r = c->r;
    const char *model = c->s->mlperf_model;
    char e1[64], e2[64];
    const json_t *lc = ck_rget3(r, "latency_constraint_ns", model, c->pp->p11_by_dir ? p->fixed : S);
    double l99;
    if (json_is_number(lc) && json_number_value(lc) != 0 &&
        need_num(p, d, CK_ID(P11), "result_99.00_percentile_latency_ns", &l99) &&
        l99 > json_number_value(lc)) {
        snprintf(e1, sizeof e1, "<= %.0f", json_number_value(lc));
        snprintf(e2, sizeof e2, "%.0f", l99);
        pf(p, CK_ID(P11), c->pp->p11_latency,
           kline(d, "result_99.00_percentile_latency_ns"), e1, e2,
           "Latency constraint not met, expected=%.0f, found=%.0f", json_number_value(lc), l99);
    }
}

/* P12 (without early stopping): the minimum query count of the model (a smoke round's lower one) */
static void perf_min_queries(pctx *p, const ck_dlog *d, const char *S)
{
    const ck_rules *r = p->c->r;
    const char *model = p->c->s->mlperf_model;
    const json_t *smoke = r->smoke;
    char e1[64], e2[64];
    const json_t *mq = ck_rget2(r, "min_queries", ck_remap(r, model));
    double mqc;
    if (!mq) {
        pf(p, CK_ID(P12), CK_SEV_ERROR, 0, "a known model", model,
           "model %s has no min_queries entry in %s rules (the MLCommons checker raises)",
           model, r->version);
    } else {
        const json_t *req = json_object_get(mq, S);
        double need = json_number_value(req);
        if (smoke && json_is_number(json_object_get(smoke, "min_query_count")) &&
            need > json_number_value(json_object_get(smoke, "min_query_count")))
            need = json_number_value(json_object_get(smoke, "min_query_count"));
        if (req && need && need_num(p, d, CK_ID(P12), "effective_min_query_count", &mqc) &&
            mqc < need) {
            snprintf(e1, sizeof e1, ">= %.0f", need);
            snprintf(e2, sizeof e2, "%.0f", mqc);
            pf(p, CK_ID(P12), logged_only_sev(p, CK_ID(P12)), kline(d, "effective_min_query_count"), e1, e2,
               "Required minimum Query Count not met by user config, Expected=%.0f, Found=%.0f",
               need, mqc);
        }
    }
}

/* P13 (Offline): the samples per query at least the model's minimum */
static void perf_offline_samples(pctx *p, const ck_dlog *d, const char *S)
{
    sctx *c = p->c;
    const ck_rules *r = c->r;
    const ck_scen *s = c->s;
    const char *model = s->mlperf_model;
    char e1[64], e2[64];
    if (CK_SCEN_IS(S, RU_OFFLINE) || (c->unified && !strcasecmp(S, "offline"))) {
        const json_t *spq = ck_rget2(r, "offline_min_samples_per_query", model);
        double v;
        if (!spq) {
            pf(p, CK_ID(P13), CK_SEV_ERROR, 0, "a known model", model,
               "model %s has no Offline minimum samples per query in %s rules (the MLCommons "
               "checker raises)", model, r->version);
        } else if ((!c->unified || !strcmp(s->division, "closed")) &&
                   need_num(p, d, CK_ID(P13), "effective_samples_per_query", &v) &&
                   v < json_number_value(spq)) {
            snprintf(e1, sizeof e1, ">= %.0f", json_number_value(spq));
            snprintf(e2, sizeof e2, "%.0f", v);
            pf(p, CK_ID(P13), logged_only_sev(p, CK_ID(P13)), kline(d, "effective_samples_per_query"), e1, e2,
               "Required minimum samples per query not met by user config, Expected=%.0f, Found=%.0f",
               json_number_value(spq), v);
        }
    }
}

/* P14: the minimum duration (a smoke round's own), unless the model is exempt */
static void perf_min_duration(pctx *p, const ck_dlog *d)
{
    const ck_rules *r = p->c->r;
    const char *model = p->c->s->mlperf_model;
    const json_t *smoke = r->smoke;
    char e1[64], e2[64];
    if (!ck_rlist_has(r, "min_duration_exempt_models", model)) {
        double need = json_number_value(ck_rget(r, "min_test_duration_ms"));
        if (smoke && json_is_number(json_object_get(smoke, "min_duration_ms")))
            need = json_number_value(json_object_get(smoke, "min_duration_ms"));
        double v;
        if (need_num(p, d, CK_ID(P14), "effective_min_duration_ms", &v) && v < need) {
            snprintf(e1, sizeof e1, ">= %.0f", need);
            snprintf(e2, sizeof e2, "%.0f", v);
            pf(p, CK_ID(P14), logged_only_sev(p, CK_ID(P14)), kline(d, "effective_min_duration_ms"), e1, e2,
               "Test duration less than 600s in user config. expected=%.0f, found=%.0f", need, v);
        }
    }
}

/* P15: the network mode of the system matches its division; a network SUT is named so */
static void perf_network_mode(pctx *p, const ck_dlog *d)
{
    const ck_rules *r = p->c->r;
    const ck_scen *s = p->c->s;
    if (s->sys) {
        int net = s->sys->is_network;
        int want = !strcmp(s->division, "network") ? 1 : !strcmp(s->division, "closed") ? 0 : -1;
        if (want >= 0 && want != net)
            pf(p, CK_ID(P15), CK_SEV_ERROR, 0, want ? "a network system" : "a non-network system",
               net ? "network" : "not network", "incorrect network mode (=%s) for division '%s'",
               net ? "True" : "False", s->division);
        if (net) {
            char *sut = ck_dlog_str(d, "sut_name");
            const char *sub = json_string_value(ck_rget(r, "network_sut_name_substring"));
            if (!sut || !sub || !strstr(sut, sub))
                pf(p, CK_ID(P15), CK_SEV_ERROR, kline(d, "sut_name"), sub ? sub : "Network SUT",
                   sut ? sut : "None",
                   "invalid sut name for network mode. expecting the substring '%s' got '%s'",
                   sub ? sub : "", sut ? sut : "None");
            free(sut);
        }
    }
}

/* P17 (stricter): a main performance run made in PerformanceOnly mode */
static void perf_test_mode(pctx *p, const ck_dlog *d)
{
    char *mode = ck_dlog_str(d, "effective_test_mode");
    if (mode && strcmp(mode, "PerformanceOnly") && !p->tag)
        pf(p, CK_ID(P17), CK_SEV_WARNING, kline(d, "effective_test_mode"), "PerformanceOnly", mode,
           "the performance run was made in %s mode", mode);
    free(mode);
}

/* P16, I1-I4: a result of the directory's scenario inferred from a log of another one */
static void perf_inference(pctx *p, const ck_dlog *d, const char *S, const char *Sc, ck_value *val, int *inferred)
{
    sctx *c = p->c;
    const ck_rules *r = c->r;
    const ck_scen *s = c->s;
    const char *F = p->fixed;
    *inferred = 0;
    int differs = c->pp->scenario_casefold ? (F && strcasecmp(S, F) != 0) : (F && strcmp(Sc ? Sc : S, F) != 0);
    if (F && differs && !(c->unified && !strcasecmp(S, "Server") && !strcasecmp(F, "Interactive"))) {
        const char *Fc = canon_or_raw(r, F);
        const char *Scn = Sc ? Sc : S;
        /* check_performance_dir (submission-checker.py): MultiStream from SingleStream and
         * Offline from MultiStream are inferred only `not config.uses_legacy_multistream()`
         * (tag v2.0 on); tags v1.0.1/r1.1 infer only Offline from SingleStream (`if
         * scenario_fixed in ["Offline"] and scenario != scenario_fixed`), any other log is
         * checked and reported as its own effective_scenario under the folder's name */
        int ms_inf = r->sw.multistream_inference;
        int pair_ss_ms = ms_inf && CK_SCEN_IS(Fc, RU_MULTI_STREAM) && CK_SCEN_IS(Scn, RU_SINGLE_STREAM);
        int pair_ms_off = ms_inf && CK_SCEN_IS(Fc, RU_OFFLINE) && CK_SCEN_IS(Scn, RU_MULTI_STREAM);
        int pair_ss_off = CK_SCEN_IS(Fc, RU_OFFLINE) && CK_SCEN_IS(Scn, RU_SINGLE_STREAM);
        int allowed = pair_ss_ms || pair_ms_off || pair_ss_off;
        if (c->unified) {
            const char *st = s->sys ? s->sys->category : NULL;
            if (!st || !strstr(st, "edge")) {
                pf(p, CK_ID(P16), CK_SEV_ERROR, kline(d, "effective_scenario"), "an edge system",
                   st ? st : "None", "Result can not be inferred for %s suite. Scenario: %s, "
                   "Scenario fixed: %s", st ? st : "None", S, F);
                allowed = 0;
            } else if (!allowed) {
                pf(p, CK_ID(P16), CK_SEV_ERROR, kline(d, "effective_scenario"), "an allowed inference",
                   S, "Result for scenario %s can not be inferred from %s", F, S);
            }
        }
        if (c->unified && !allowed) {
            /* the unified checker rejects the result before computing a value */
        } else if (pair_ss_off) {
            *inferred = 1;
            const ck_dval *q = ck_dlog_get(d, "result_qps_without_loadgen_overhead");
            double v;
            if (!q || !q->raw || ck_dlog_num(d, "result_qps_without_loadgen_overhead", &v)) {
                pf(p, CK_ID(I1), CK_SEV_ERROR, 0, "a number", "None",
                   "result_qps_without_loadgen_overhead is missing (Offline inferred from "
                   "SingleStream)");
                val->set = 0;
            } else {
                val->set = 1;
                val->d = v;
                ms_buf b = MS_BUF_INIT;
                if (ms_py_str_lexeme(&b, q->kind, q->raw, q->raw_len) == 0 && b.data)
                    snprintf(val->text, sizeof val->text, "%s", b.data);
                ms_buf_free(&b);
            }
        } else if (!ms_inf && CK_SCEN_IS(Fc, RU_OFFLINE)) {
            /* v1.0.1/r1.1: `res = qps_wo_loadgen_overhead`, set only for a SingleStream log */
            *inferred = 1;
            pf(p, CK_ID(I1), CK_SEV_ERROR, kline(d, "effective_scenario"), "SingleStream", S,
               "an Offline result inferred from a %s log has no value (the MLCommons checker "
               "raises an exception)", S);
            val->set = 0;
        } else if (pair_ms_off) {
            *inferred = 1;
            double spq, lat;
            if (need_num(p, d, CK_ID(I2), "effective_samples_per_query", &spq) &&
                need_num(p, d, CK_ID(I2), "result_mean_query_latency_ns", &lat)) {
                val->set = 1;
                val->d = (spq * 1000) / (lat / 1000000.0);
                ms_py_float_repr(val->d, val->text);
            } else {
                val->set = 0;
            }
        } else if (pair_ss_ms) {
            *inferred = 1;
            double es;
            if (need_num(p, d, CK_ID(I3), "early_stopping_latency_ms", &es)) {
                if (es == 0)
                    pf(p, CK_ID(I3), CK_SEV_ERROR, kline(d, "early_stopping_latency_ms"), "> 0", "0",
                       "Not enough samples were processed for early stopping to make an estimate");
                val->set = 1;
                val->d = (es * 8) / 1000000.0;
                ms_py_float_repr(val->d, val->text);
            } else {
                val->set = 0;
            }
        } else if (r->sw.interactive_needs_server && CK_SCEN_IS(Fc, RU_INTERACTIVE) &&
                   !CK_SCEN_IS(Scn, RU_SERVER)) {
            /* check_performance_dir of tag v5.1.1 (interactive_needs_server_log; before, the
             * folder name is only the row's label) */
            pf(p, CK_ID(I4), CK_SEV_ERROR, kline(d, "effective_scenario"), "Server", S,
               "an Interactive result needs a Server-scenario log, found %s", S);
        }
    } else if (c->unified && F && CK_SCEN_IS(F, RU_INTERACTIVE) && !CK_SCEN_IS(S, RU_SERVER)) {
        /* unreachable: differs would be set */
    }
}

/* Checks one LoadGen performance run (P2-P17 and inference). Fills the value. Returns 1 if
 * the log could be evaluated (validity is in the findings). */
int check_perf_log(pctx *p, const ck_dlog *d, ck_value *val, int *inferred, char **eff_out)
{
    sctx *c = p->c;
    const ck_rules *r = c->r;
    perf_validity(p, d);
    char *S = ck_dlog_str(d, "effective_scenario");
    if (!S) {
        pf(p, CK_ID(P8), CK_SEV_ERROR, 0, "a scenario", "None",
           "effective_scenario is missing (the MLCommons checker raises an exception)");
        return 0;
    }
    const char *Sc = canon_or_raw(r, S);
    if (eff_out)
        *eff_out = strdup(S);
    perf_result(p, d, S, val);
    perf_token_latencies(p, d, S);
    perf_equal_issue(p, d);
    perf_log_errors(p, d);
    perf_sample_count(p, d);
    perf_seeds(p, d);
    int early = r->sw.early_stopping &&
                (CK_SCEN_IS(S, RU_SINGLE_STREAM) || CK_SCEN_IS(S, RU_MULTI_STREAM) || CK_SCEN_IS(S, RU_SERVER));
    if (early) {
        perf_early_stopping(p, d, S);
    } else {
        perf_latency(p, d, S);
        perf_min_queries(p, d, S);
    }
    perf_offline_samples(p, d, S);
    perf_min_duration(p, d);
    perf_network_mode(p, d);
    perf_test_mode(p, d);
    perf_inference(p, d, S, Sc, val, inferred);
    free(S);
    return 1;
}

/* Performance of the main run (P0/P1 + the log). */
void group_performance(sctx *c, const char *scen_rel, ck_dlog *log_out, int *log_ok)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    char *run_rel = ck_join3(scen_rel, "performance", "run_1");
    char *run_abs = absof(c, run_rel);
    char *log_rel = ck_join(run_rel, "mlperf_log_detail.txt");
    *log_ok = 0;
    if (!run_rel || !run_abs || !log_rel) {
        c->run->oom = 1;
        goto out;
    }
    if (!ck_pexists(run_abs)) {
        if (c->unified)
            FIND(c, CK_ID(P0), CK_SEV_ERROR, log_rel, 0, NULL, NULL,
                 "performance log missing (the unified checker crashes on a loadgen submission "
                 "without it)");
        else
            FIND(c, CK_ID(P0), CK_SEV_ERROR, run_rel, 0, NULL, NULL, "%s is missing", run_rel);
        goto out;
    }
    if (!c->unified) {
        const char *extra[2] = {s->has_power ? "spl.txt" : NULL, NULL};
        char *diff = NULL;
        if (ck_files_diff(r, run_abs, ck_rget(r, "perf_dir_required_files"),
                          ck_rget(r, "perf_dir_optional_files"), extra, &diff))
            c->run->oom = 1;
        if (diff) {
            /* with performance_file_list_stops off (check_results_dir of tag v3.0) the mismatch
             * is only logged and check_performance_dir still reads the detail log */
            int stops = r->sw.performance_file_list_stops;
            FIND(c, s->has_power && strstr(diff, "spl.txt") ? CK_ID(W1) : CK_ID(P1),
                 stops ? CK_SEV_ERROR : CK_SEV_WARNING, run_rel, 0, NULL, diff,
                 "%s has file list mismatch (%s)%s", run_rel, diff,
                 stops ? "" : " (this round's checker only logs this)");
            free(diff);
            if (stops)
                goto out;
        }
    }
    s->perf_ran = 1;
    if (!load_dlog(c, log_rel, CK_ID(P8), log_out))
        goto out;
    *log_ok = 1;
    pctx p = {c, NULL, s->scen_fixed, log_rel, 0};
    check_perf_log(&p, log_out, &s->value, &s->inferred, &s->effective_scenario);
out:
    free(run_rel);
    free(run_abs);
    free(log_rel);
}

/* ------------------------------------------- results from the summary file ---- */

/* check_performance_dir of the v0.7.1 checker (switch result_from_summary, v0.5/v0.7): the
 * summary's "key : value" lines as its regex ^\s*([\w\s.\(\)\/]+)\s*\:\s*([\w\+\.]+) reads
 * them (the value stops at the first other character: "Scenario : Single Stream" gives
 * "Single"), VALID from ^Result\s+is\s*\:\s+VALID, the result from summary_result_field (never
 * converted to ms: the checker compared "Single" with "Single Stream"). */
typedef struct sumkv {
    char *k, *v;
} sumkv;

static int sum_word(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           ch == '_' || ch >= 0x80;
}

static int sum_ws(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* one line (no newline): 1 and malloc'd key/value when it matches the checker's regex */
static int sum_kv(const char *l, size_t n, char **k, char **v)
{
    size_t i = 0;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    size_t ks = i;
    while (i < n && (sum_word((unsigned char)l[i]) || sum_ws((unsigned char)l[i]) || l[i] == '.' ||
                     l[i] == '(' || l[i] == ')' || l[i] == '/'))
        i++;
    if (i == ks || i >= n || l[i] != ':')
        return 0;
    size_t ke = i++;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    size_t vs = i;
    while (i < n && (sum_word((unsigned char)l[i]) || l[i] == '+' || l[i] == '.'))
        i++;
    if (i == vs)
        return 0;
    while (ke > ks && sum_ws((unsigned char)l[ke - 1]))
        ke--;
    *k = strndup(l + ks, ke - ks);
    *v = strndup(l + vs, i - vs);
    return *k && *v ? 1 : -1;
}

static int sum_valid_line(const char *l, size_t n)
{
    size_t i = 6;
    if (n < 6 || memcmp(l, "Result", 6))
        return 0;
    size_t w = i;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    if (i == w || n - i < 2 || memcmp(l + i, "is", 2))
        return 0;
    i += 2;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    if (i >= n || l[i] != ':')
        return 0;
    w = ++i;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    return i > w && n - i >= 5 && !memcmp(l + i, "VALID", 5);
}

static const char *sum_get(const sumkv *kv, size_t n, const char *key)
{
    for (size_t i = n; i-- > 0;)  /* a later line overwrites an earlier one (dict assignment) */
        if (!strcmp(kv[i].k, key))
            return kv[i].v;
    return NULL;
}

/* Python int(text) of a value the summary regex keeps ([\w+.]+, so never a '-'): an optional
 * '+', ASCII digits with single underscores between them (int("1_000") is 1000); 0 and the
 * value (ULLONG_MAX above it: Python's int has no limit, only comparisons follow), -1 where
 * int() raises ValueError (or the key is missing: KeyError) */
static int sum_int(const char *t, unsigned long long *out)
{
    if (!t)
        return -1;
    const char *q = t + (*t == '+');
    if (*q < '0' || *q > '9')
        return -1;
    unsigned long long v = 0;
    for (; *q; q++) {
        if (*q == '_' && q[1] >= '0' && q[1] <= '9')
            continue;
        if (*q < '0' || *q > '9')
            return -1;
        unsigned d = (unsigned)(*q - '0');
        v = v > (ULLONG_MAX - d) / 10 ? ULLONG_MAX : v * 10 + d;
    }
    *out = v;
    return 0;
}

/* The checks check_performance_dir of the v0.7.1 checker logs after the result (switch
 * perf_constraints_checked): the 99th percentile against the model's latency constraint for
 * the summary's scenario word, the minimum query count, Offline's samples per query, the
 * minimum duration. Each is logged only, but each reads its summary value with int(rt[key]):
 * a missing or non-integer value raises, and the run has no result (0 returned). */
static int summary_constraints(sctx *c, const sumkv *kv, size_t nkv, const char *scen,
                               const char *sum_rel, const char *log_rel)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    static const struct {
        const char *key; /* the summary's key, as the checker reads it */
        const char *what;
    } keys[] = {{"99.00 percentile latency (ns)", "latency constraint"},
                {"min_query_count", "minimum query count"},
                {"samples_per_query", "samples per query"},
                {"min_duration (ms)", "minimum duration"}};
    const json_t *lat = json_object_get(ck_rget2(r, "latency_constraint_ns", s->mlperf_model), scen);
    const json_t *mq = ck_rget2(r, "min_queries", ck_remap(r, s->mlperf_model));
    if (!mq) {
        FIND(c, CK_ID(P12), CK_SEV_ERROR, sum_rel, 0, "a known model", s->mlperf_model,
             "model %s has no min_queries entry in %s rules (the checker raises)",
             s->mlperf_model, r->version);
        return 0;
    }
    const json_t *need_q = json_object_get(mq, scen);
    const json_t *spq = ck_rget2(r, "offline_min_samples_per_query", s->mlperf_model);
    double need[4] = {json_number_value(lat), json_number_value(need_q), json_number_value(spq),
                      json_number_value(ck_rget(r, "min_test_duration_ms"))};
    int applies[4] = {json_number_value(lat) != 0, 1, !strcmp(scen, "Offline"), 1};
    const char *const ids[4] = {CK_ID(P11), CK_ID(P12), CK_ID(P13), CK_ID(P14)};
    for (int i = 0; i < 4; i++) {
        if (!applies[i])
            continue;
        const char *t = sum_get(kv, nkv, keys[i].key);
        unsigned long long v;
        /* get_min_query_count(model, scenario) is looked up with the summary's scenario word
         * ("Single", "Multi"): None, and int < None raises, so such a run has no result */
        if (sum_int(t, &v) || (i == 1 && !json_is_number(need_q))) {
            if (i == 1 && !json_is_number(need_q) && !sum_int(t, &v))
                FIND(c, ids[i], CK_SEV_ERROR, sum_rel, 0, "a minimum query count for this scenario",
                     scen, "%s: no minimum query count for scenario '%s' of %s (the checker raises)",
                     sum_rel, scen, s->mlperf_model);
            else
                FIND(c, ids[i], CK_SEV_ERROR, sum_rel, 0, keys[i].key, t ? t : "None",
                     "%s: no integer '%s' for the %s check (the checker raises)", sum_rel,
                     keys[i].key, keys[i].what);
            return 0;
        }
        if (i == 0 && (double)v > need[0])
            FIND(c, ids[i], CK_SEV_WARNING, sum_rel, 0, NULL, t,
                 "%s Latency constraint not met, expected=%.0f, found=%s", log_rel, need[0], t);
        else if (i == 1 && (double)v < need[1])
            FIND(c, ids[i], CK_SEV_WARNING, sum_rel, 0, NULL, NULL,
                 "%s Required minimum Query Count not met by user config, Expected=%.0f, Found=%llu",
                 log_rel, need[1], v);
        else if (i == 2 && json_is_number(spq) && (double)v < need[2])
            FIND(c, ids[i], CK_SEV_WARNING, sum_rel, 0, NULL, t,
                 "%s Required minimum samples per query not met by user config, Expected=%.0f, "
                 "Found=%s", log_rel, need[2], t);
        else if (i == 3 && (double)v < need[3])
            FIND(c, ids[i], CK_SEV_WARNING, sum_rel, 0, NULL, t,
                 "%s Test duration lesser than 60s in user config. expected=%.0f, found=%s",
                 log_rel, need[3], t);
    }
    return 1;
}

/* one run_N: 1 valid (value set), 0 not */
static int summary_run(sctx *c, const char *run_rel, ck_value *val)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    char *sum_rel = ck_join(run_rel, "mlperf_log_summary.txt");
    char *log_rel = ck_join(run_rel, "mlperf_log_detail.txt");
    char *sum_abs = sum_rel ? absof(c, sum_rel) : NULL;
    char *text = NULL;
    size_t len = 0, nkv = 0, cap = 0;
    sumkv *kv = NULL;
    int valid = 0, ok = 0;
    ms_err e;
    if (!sum_abs || !log_rel) {
        c->run->oom = 1;
        goto out;
    }
    if (ck_read_text(sum_abs, (size_t)64 << 20, &text, &len, &e)) {
        FIND(c, CK_ID(P8), CK_SEV_ERROR, sum_rel, 0, NULL, NULL, "%s (the checker's exception: no result)",
             e.msg);
        goto out;
    }
    /* `for line in f` reads the whole file in text mode: invalid UTF-8 anywhere raises
     * UnicodeDecodeError, which check_results_dir's bare `except:` turns into no result */
    size_t bad = 0;
    if (!ms_utf8_valid(text, len, &bad) && ms_py_utf8_read_raises(text, len, MS_PY_READ_TO_EOF)) {
        FIND(c, CK_ID(P8), CK_SEV_ERROR, sum_rel, 0, "UTF-8 text", "an invalid byte",
             "the file is not valid UTF-8 (byte offset %zu): the checker's exception, no result",
             bad);
        goto out;
    }
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        valid |= sum_valid_line(p, n);
        char *k = NULL, *v = NULL;
        int m = sum_kv(p, n, &k, &v);
        if (m == 1 && nkv == cap) {
            size_t nc = cap ? cap * 2 : 64;
            sumkv *nv = realloc(kv, nc * sizeof *nv);
            if (!nv)
                m = -1;
            else
                kv = nv, cap = nc;
        }
        if (m == 1) {
            kv[nkv++] = (sumkv){k, v};
        } else {
            free(k);
            free(v);
            if (m < 0) {
                c->run->oom = 1;
                goto out;
            }
        }
        p = nl ? nl + 1 : end;
    }
    /* performance_sample_count (int(), a KeyError or ValueError is the checker's exception) */
    unsigned long long psc;
    const json_t *need = ck_rget2(r, "performance_sample_count", ck_remap(r, s->mlperf_model));
    if (!need || sum_int(sum_get(kv, nkv, "performance_sample_count"), &psc)) {
        FIND(c, CK_ID(P8), CK_SEV_ERROR, sum_rel, 0, "performance_sample_count", "None",
             "%s: no performance_sample_count (or no rule for %s): the checker's exception",
             sum_rel, s->mlperf_model);
        goto out;
    }
    if ((double)psc < json_number_value(need)) {
        FIND(c, CK_ID(P6), CK_SEV_ERROR, sum_rel, 0, NULL, NULL,
             "%s performance_sample_count, found %.0f, needs to be > %llu", log_rel,
             json_number_value(need), psc);
        valid = 0;
    }
    /* the detail log: any ERROR record (load_dlog reads both formats) */
    {
        ck_dlog d;
        memset(&d, 0, sizeof d);
        if (!load_dlog(c, log_rel, CK_ID(P8), &d)) {
            ck_dlog_free(&d);
            goto out;
        }
        const json_t *ign = ck_rget(r, "detail_log_ignored_errors");
        for (size_t i = 0; i < d.nerror_texts; i++) {
            int ignored = 0;
            for (size_t k = 0; k < json_array_size(ign) && !ignored; k++) {
                const char *t = json_string_value(json_array_get(ign, k));
                ignored = t && strstr(d.errors[i], t);
            }
            if (!ignored) {
                FIND(c, CK_ID(P5), CK_SEV_ERROR, log_rel, 0, "no LoadGen errors", d.errors[i],
                     "%s contains error: %s", log_rel, d.errors[i]);
                valid = 0;
            }
        }
        ck_dlog_free(&d);
    }
    static const char *const seeds[3] = {"qsl_rng_seed", "sample_index_rng_seed",
                                         "schedule_rng_seed"};
    for (int i = 0; i < 3; i++) {
        const char *t = sum_get(kv, nkv, seeds[i]);
        unsigned long long sv;
        if (sum_int(t, &sv)) {
            FIND(c, CK_ID(P8), CK_SEV_ERROR, sum_rel, 0, seeds[i], "None",
                 "%s: %s is missing (the checker's exception)", sum_rel, seeds[i]);
            goto out;
        }
        if ((uint64_t)sv != r->seeds[i])
            FIND(c, CK_ID(P7), CK_SEV_WARNING, sum_rel, 0, NULL, t, "%s %s is wrong, expected=%llu, found=%s",
                 log_rel, seeds[i], (unsigned long long)r->seeds[i], t);
    }
    const char *scen = sum_get(kv, nkv, "Scenario");
    const char *field = scen ? json_string_value(ck_rget2(r, "summary_result_field", scen)) : NULL;
    const char *rt = field ? sum_get(kv, nkv, field) : NULL;
    double res;
    if (!rt || ms_py_float_parse(rt, strlen(rt), &res)) {
        FIND(c, CK_ID(P8), CK_SEV_ERROR, sum_rel, 0, field ? field : "a known Scenario", "None",
             "%s: no result for scenario %s (the checker's exception)", sum_rel,
             scen ? scen : "None");
        goto out;
    }
    if (r->sw.perf_constraints && !summary_constraints(c, kv, nkv, scen, sum_rel, log_rel))
        goto out;
    val->set = 1;
    val->d = res;
    ms_py_float_repr(res, val->text);
    ok = valid;
out:
    for (size_t i = 0; i < nkv; i++) {
        free(kv[i].k);
        free(kv[i].v);
    }
    free(kv);
    free(text);
    free(sum_rel);
    free(sum_abs);
    free(log_rel);
    return ok;
}

void group_performance_summary(sctx *c, const char *scen_rel)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    int nruns = CK_SCEN_IS(s->scen_fixed, RU_SERVER) ? r->sw.server_runs : 1;
    int any_valid = 0;
    for (int i = 1; i <= nruns; i++) {
        char *run_rel = ck_fmt("%s/performance/run_%d", scen_rel, i);
        char *run_abs = run_rel ? absof(c, run_rel) : NULL;
        if (!run_abs) {
            c->run->oom = 1;
            free(run_rel);
            return;
        }
        if (!ck_pexists(run_abs)) {
            FIND(c, CK_ID(P0), CK_SEV_ERROR, run_rel, 0, NULL, NULL, "%s is missing", run_rel);
        } else {
            char *diff = NULL;
            if (ck_files_diff(r, run_abs, ck_rget(r, "perf_dir_required_files"),
                              ck_rget(r, "perf_dir_optional_files"), NULL, &diff))
                c->run->oom = 1;
            if (diff)
                FIND(c, CK_ID(P1), CK_SEV_WARNING, run_rel, 0, NULL, diff,
                     "%s has file list mismatch (%s)", run_rel, diff);
            free(diff);
            s->perf_ran = 1;
            ck_value v = {0};
            size_t before = s->f.n;
            int ok = summary_run(c, run_rel, &v);
            /* check_results_dir (submission-checker.py v0.7.1) writes the row with the `r` of
             * the last run it read (a missing run_N is skipped by `continue`): that run's value
             * even if not valid, None if check_performance_dir raised (the bare `except:` sets
             * r = None, e.g. a UnicodeDecodeError of the summary's `for line in f`) */
            snprintf(s->row_result, sizeof s->row_result, "%s", v.set ? v.text : "None");
            s->row_result_set = 1;
            if (ok) {
                s->value = v;  /* results[name] = r: the last valid run's */
                any_valid = 1;
            } else {
                FIND(c, CK_ID(P2), CK_SEV_ERROR, run_rel, 0, NULL, NULL, "%s has issues", run_rel);
                (void)before;
            }
        }
        free(run_rel);
        free(run_abs);
    }
    s->perf_ok = any_valid;
}
