/* Rules per round for the checker: loading rules/<version>.json (compiled patterns, seeds, the
 * behaviour switches), lookups, lint. The data folder, model mapping and scenario names live in
 * src/rules/ (rules/rules.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checker/internal.h"
#include "common/buf.h"
#include "common/strutil.h"

const json_t *ck_rget(const ck_rules *r, const char *key)
{
    return json_object_get(r->j, key);
}

int ck_jlist_has(const json_t *arr, const char *s)
{
    return ru_list_has(arr, s);
}

int ck_rlist_has(const ck_rules *r, const char *key, const char *s)
{
    return ck_jlist_has(ck_rget(r, key), s);
}

const json_t *ck_rget2(const ck_rules *r, const char *key, const char *a)
{
    return a ? json_object_get(ck_rget(r, key), a) : NULL;
}

const json_t *ck_rget3(const ck_rules *r, const char *key, const char *a, const char *b)
{
    return b ? json_object_get(ck_rget2(r, key, a), b) : NULL;
}

const ms_pyre *ck_rules_pattern(const ck_rules *r, const char *metric)
{
    for (size_t i = 0; i < r->npatterns; i++)
        if (!strcmp(r->patterns[i].metric, metric)) {
            /* the rules are read-only during a check but for this cache: the JIT code is
             * attached to the compiled pattern once, under the lock, before any thread matches
             * with it (a match never runs while it is being made) */
            ck_metric_re *m = (ck_metric_re *)&r->patterns[i];
            if (r->jit_mu_ok && !atomic_load_explicit(&m->jit, memory_order_acquire)) {
                pthread_mutex_t *mu = (pthread_mutex_t *)&r->jit_mu;
                pthread_mutex_lock(mu);
                if (!atomic_load_explicit(&m->jit, memory_order_relaxed)) {
                    ms_pyre_jit(&m->re);
                    atomic_store_explicit(&m->jit, 1, memory_order_release);
                }
                pthread_mutex_unlock(mu);
            }
            return &m->re;
        }
    return NULL;
}

/* Config.get_required, get_optional, get_performance_sample_count and get_min_query_count of
 * every tag map the model name again (get_mlperf_model without the submitter's mapping: the
 * round's model_mapping, then the name guesses), so a model_mapping.json entry that names no
 * benchmark ("my-mobilenet" -> "mobilenet-v2") still finds resnet's tables there */
const char *ck_remap(const ck_rules *r, const char *model)
{
    return model ? ru_map_model(r->j, model, NULL, 0) : NULL;
}

/* scenarios_any_model (v0.5): Config.get_required / get_optional of tag v0.7.1 with
 * --version v0.5 return the same sets for every model folder, known to the round or not */
const json_t *ck_required(const ck_rules *r, const char *category, const char *model)
{
    const json_t *any = ck_rget(r, "scenarios_any_model");
    if (any)
        return json_object_get(any, "required");
    return ck_rget3(r, "required_scenarios", category, ck_remap(r, model));
}

const json_t *ck_optional(const ck_rules *r, const char *category, const char *model)
{
    const json_t *any = ck_rget(r, "scenarios_any_model");
    if (any)
        return json_object_get(any, "optional");
    return ck_rget3(r, "optional_scenarios", category, ck_remap(r, model));
}

const json_t *ck_targets(const ck_rules *r, const char *key, const char *model,
                         const char *scen_dir)
{
    const json_t *t = ck_rget2(r, key, model);
    if (!json_is_object(t))
        return t;
    const char *order[] = {scen_dir, "default", "Offline", "Server"};
    for (size_t i = 0; i < 4; i++) {
        const json_t *x = order[i] ? json_object_get(t, order[i]) : NULL;
        if (x)
            return x;
    }
    return NULL;
}

size_t ck_target_lists(const json_t *entry, const json_t **lists, size_t max)
{
    size_t n = 0;
    if (json_is_array(entry)) {
        if (max)
            lists[n++] = entry;
        return n;
    }
    const char *sc;
    json_t *lv;
    json_object_foreach((json_t *)entry, sc, lv)
        if (n < max)
            lists[n++] = lv;
    return n;
}

void ck_rules_free(ck_rules *r)
{
    for (size_t i = 0; i < r->npatterns; i++)
        ms_pyre_free(&r->patterns[i].re);
    free(r->patterns);
    ms_pyre_free(&r->hash_re);
    if (r->jit_mu_ok)
        pthread_mutex_destroy(&r->jit_mu);
    for (size_t i = 0; i < r->npower_file_res; i++)
        ms_pyre_free(&r->power_file_res[i]);
    free(r->power_file_res);
    json_decref(r->j);
    free(r->path);
    memset(r, 0, sizeof *r);
}

int ck_rules_load(ck_rules *r, const char *path, const char *profile, ms_err *e)
{
    memset(r, 0, sizeof *r);
    /* without the lock the patterns are only interpreted (the same results) */
    r->jit_mu_ok = pthread_mutex_init(&r->jit_mu, NULL) == 0;
    json_error_t je;
    r->j = ms_json_load_path(path, 0, &je);
    if (!r->j)
        return ms_err_set(e, MS_EINPUT, "%s:%d:%d: invalid rules file: %s", path, je.line,
                          je.column, je.text);
    r->path = strdup(path);
    if (!r->path) {
        ck_rules_free(r);
        return ms_err_oom(e);
    }
    r->version = json_string_value(ck_rget(r, "version"));
    const char *prof = json_string_value(ck_rget(r, "profile"));
    if (!r->version || !prof) {
        ck_rules_free(r);
        return ms_err_set(e, MS_EINPUT, "%s: 'version' and 'profile' are required", path);
    }
    r->unified = !strcmp(prof, "unified");
    static const char *const seed_names[3] = {"qsl_rng_seed", "sample_index_rng_seed",
                                              "schedule_rng_seed"};
    for (int i = 0; i < 3; i++) {
        const char *s = json_string_value(ck_rget2(r, "seeds", seed_names[i]));
        if (!s || ms_parse_u64(s, &r->seeds[i])) {
            ck_rules_free(r);
            return ms_err_set(e, MS_EINPUT, "%s: seeds.%s must be a decimal string below 2^64",
                              path, seed_names[i]);
        }
    }
    /* the round's behaviour switches: read here and nowhere else (key, field, default) */
    static const struct { const char *key; size_t off; int dflt; } bools[] = {
#define SW(k, f, d) {k, offsetof(ck_switches, f), d}
        SW("calibration_doc_required", calibration_doc_required, 1),
        SW("csv_weight_data_types_column", csv_weight_data_types, 1),
        SW("emptiness_checks", emptiness_checks, 1),
        SW("csv_accuracy_value_only", csv_accuracy_value_only, 0),
        SW("accuracy_last_value", accuracy_last_value, 0),
        SW("summary_power_counts", summary_power_counts, 1),
        SW("compliance_failure_rejects_result", compliance_rejects, 1),
        SW("compliance_runs_perf_checked", compliance_perf_checked, 1),
        SW("compliance_last_test_decides", compliance_last_decides, 0),
        SW("early_stopping", early_stopping, 1),
        SW("multistream_inference", multistream_inference, 1),
        SW("result_counts_unless_none", result_counts_unless_none, 0),
        SW("open_accuracy_needs_value", open_accuracy_needs_value, 0),
        SW("summary_row_needs_scenario", summary_row_needs_scenario, 1),
        SW("csv_power_extra_row", csv_power_extra_row, 1),
        SW("csv_notes_always_joined", csv_notes_always_joined, 0),
        SW("power_wg_check_by_default", power_wg_default, 1),
        SW("ranging_run_checked", ranging_run_checked, 1),
        SW("result_from_summary", result_from_summary, 0),
        SW("perf_constraints_checked", perf_constraints, 1),
        SW("detail_log_query_count", detail_log_query_count, 1),
        SW("tree_walk_checks", tree_walk_checks, 1),
        SW("status_checked", status_checked, 1),
        SW("network_mode_checked", network_mode_checked, 1),
        SW("interactive_needs_server_log", interactive_needs_server, 1),
        SW("system_desc_submitter_case_sensitive", submitter_case_sensitive, 0),
        SW("system_desc_failure_keeps_models", bad_system_keeps_models, 0),
        SW("systems_results_check", systems_results_check, 1),
        SW("measurement_failure_stops_scenario", measurement_stops, 1),
        SW("accuracy_failure_stops", accuracy_failure_stops, 1),
        SW("measurements_failure_stops", measurements_failure_stops, 1),
        SW("performance_file_list_stops", performance_file_list_stops, 1),
        SW("extra_model_map_inline", extra_model_map_inline, 0),
        SW("scenario_check_open", scenario_check_open, 0),
        SW("submitter_without_results_counts", submitter_without_results, 0),
        SW("llm_check_decides_validity", llm_check_decides_validity, 0),
        SW("equal_issue_from_conf", equal_issue_from_conf, 0),
        SW("equal_issue_closed_only", equal_issue_closed_only, 0),
        SW("token_limits_all_but_offline", token_limits_all_but_offline, 0),
        SW("test01_delta_overrides", test01_delta_overrides, 1),
        SW("csv_weight_data_types_str", csv_wdt_str, 1),
#undef SW
    };
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
        const json_t *sw = ck_rget(r, bools[i].key);
        *(int *)((char *)&r->sw + bools[i].off) = sw ? json_is_true(sw) : bools[i].dflt;
    }
    const json_t *runs = ck_rget(r, "server_performance_runs");
    r->sw.server_runs = json_is_integer(runs) && json_integer_value(runs) > 0 &&
                                json_integer_value(runs) <= 9
                            ? (int)json_integer_value(runs)
                            : 1;
    if (ck_rget(r, "test05_seeds")) {
        r->sw.has_test05_seeds = 1;
        for (int i = 0; i < 3; i++) {
            const char *s = json_string_value(ck_rget2(r, "test05_seeds", seed_names[i]));
            if (!s || ms_parse_u64(s, &r->sw.test05_seeds[i])) {
                ck_rules_free(r);
                return ms_err_set(e, MS_EINPUT,
                                  "%s: test05_seeds.%s must be a decimal string below 2^64",
                                  path, seed_names[i]);
            }
        }
    }
    const json_t *pats = ck_rget(r, "accuracy_patterns");
    size_t np = json_object_size(pats);
    r->patterns = calloc(np ? np : 1, sizeof *r->patterns);
    if (!r->patterns) {
        ck_rules_free(r);
        return ms_err_oom(e);
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)pats, k, v) {
        if (!json_is_string(v)) {
            /* k lives in the document that ck_rules_free releases: message first */
            ms_err_set(e, MS_EINPUT, "%s: accuracy_patterns.%s must be a string", path, k);
            ck_rules_free(r);
            return MS_EINPUT;
        }
        r->patterns[r->npatterns].metric = k;
        if (ms_pyre_compile(&r->patterns[r->npatterns].re, json_string_value(v), e)) {
            ms_err_prefix(e, "%s: accuracy_patterns.%s", path, k);
            ck_rules_free(r);
            return MS_EINPUT;
        }
        r->npatterns++;
    }
    const char *hre = json_string_value(ck_rget(r, "hash_line_regex"));
    if (ms_pyre_compile(&r->hash_re, hre ? hre : "^hash=([\\w\\d]+)$", e)) {
        ms_err_prefix(e, "%s: hash_line_regex", path);
        ck_rules_free(r);
        return MS_EINPUT;
    }
    /* the power measurement file patterns, once per check (every power result matches them
     * against its measurements folder) */
    const json_t *pm = ck_rget(r, "power_measure_file_patterns");
    if (json_array_size(pm)) {
        r->power_file_res = calloc(json_array_size(pm), sizeof *r->power_file_res);
        if (!r->power_file_res) {
            ck_rules_free(r);
            return ms_err_oom(e);
        }
        for (size_t i = 0; i < json_array_size(pm); i++) {
            const char *pat = json_string_value(json_array_get(pm, i));
            ms_err pe;
            if (pat)
                (void)ms_pyre_compile(&r->power_file_res[i], pat, &pe);
        }
        r->npower_file_res = json_array_size(pm);
    }
    if (profile) {
        r->smoke = ck_rget2(r, "profiles", profile);
        if (!json_is_object(r->smoke)) {
            ck_rules_free(r);
            return ms_err_set(e, MS_EUSAGE, "profile '%s' is not defined in %s", profile, path);
        }
    }
    return MS_OK;
}

/* ---------------------------------------------------------------- lint ---- */

static int lint_add(ms_buf *b, int *count, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int lint_add(ms_buf *b, int *count, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ms_buf_vprintf(b, fmt, ap);
    va_end(ap);
    (*count)++;
    return rc || ms_buf_putc(b, '\n');
}

static void lint_targets(const json_t *j, const char *table, ms_buf *b, int *n)
{
    const json_t *t = json_object_get(j, table);
    const json_t *pats = json_object_get(j, "accuracy_patterns");
    const char *model;
    json_t *v;
    json_object_foreach((json_t *)t, model, v) {
        const json_t *lists[8];
        size_t nl = ck_target_lists(v, lists, 8);
        for (size_t i = 0; i < nl; i++)
            for (size_t k = 0; k < json_array_size(lists[i]); k++) {
                const char *metric =
                    json_string_value(json_object_get(json_array_get(lists[i], k), "metric"));
                if (metric && !json_object_get(pats, metric))
                    lint_add(b, n, "/%s/%s: metric '%s' has no entry in accuracy_patterns", table,
                             model, metric);
            }
    }
}

/* rules/compliance.json (the audit data, recognised by its "tests" object and no "version"):
 * validated against the schema's definitions/compliance_rules, then the cross-references of
 * TEST06-TEST09 the schema cannot express. */
static int lint_compliance(const json_t *j, const char *data_dir, ms_buf *b, int *n, ms_err *e)
{
    int k = ru_validate(j, data_dir, "compliance_rules", b, e);
    if (k < 0)
        return MS_ERUNTIME;
    *n += k;
    if (*n)
        return MS_OK;
    const json_t *tests = json_object_get(j, "tests"), *models = json_object_get(j, "models");
    for (int t = 6; t <= 9; t++) {
        char name[24];
        snprintf(name, sizeof name, "TEST%02d", t);
        const char *bn;
        json_t *bv;
        json_object_foreach(json_object_get(json_object_get(tests, name), "benchmarks"), bn, bv) {
            /* a benchmark is an audit directory of the models table */
            int known = 0;
            const char *mk;
            json_t *mv;
            json_object_foreach((json_t *)models, mk, mv) known |= !strcmp(json_string_value(mv), bn);
            if (!known)
                lint_add(b, n, "/tests/%s/benchmarks/%s: no model of /models maps to this benchmark", name, bn);
            const json_t *lo = json_object_get(bv, "min_output_tokens"), *hi = json_object_get(bv, "max_output_tokens");
            if (lo && hi && json_number_value(lo) > json_number_value(hi))
                lint_add(b, n, "/tests/%s/benchmarks/%s: min_output_tokens %g > max_output_tokens %g", name, bn,
                         json_number_value(lo), json_number_value(hi));
            const json_t *ds = json_object_get(bv, "dataset_size");
            const json_t *mq = json_object_get(json_object_get(bv, "settings"), "min_query_count");
            if (t == 7 && ds && mq && json_integer_value(mq) < json_integer_value(ds))
                lint_add(b, n, "/tests/%s/benchmarks/%s: min_query_count %lld < dataset_size %lld (TEST07 scores every sample)",
                         name, bn, (long long)json_integer_value(mq), (long long)json_integer_value(ds));
        }
        /* every model a round requires the test for has the test's values */
        const char *rk;
        json_t *rv;
        json_object_foreach(json_object_get(j, "required"), rk, rv) {
            size_t i;
            json_t *m;
            json_array_foreach(json_object_get(rv, name), i, m) {
                const char *dir = json_string_value(json_object_get(models, json_string_value(m)));
                if (!dir)
                    lint_add(b, n, "/required/%s/%s/%zu: model '%s' is not in /models", rk, name, i, json_string_value(m));
                else if (!json_object_get(json_object_get(json_object_get(tests, name), "benchmarks"), dir))
                    lint_add(b, n, "/required/%s/%s/%zu: model '%s' (benchmark %s) has no /tests/%s/benchmarks entry", rk,
                             name, i, json_string_value(m), dir, name);
            }
        }
    }
    return MS_OK;
}

int ck_rules_lint(const char *path, const char *data_dir, char **out, ms_err *e)
{
    *out = NULL;
    ms_buf b = MS_BUF_INIT;
    int n = 0;
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        lint_add(&b, &n, "%s:%d:%d: not valid JSON: %s", path, je.line, je.column, je.text);
        *out = ms_buf_steal(&b);
        return n;
    }
    if (json_is_object(json_object_get(j, "tests")) && !json_object_get(j, "version")) {
        int rc = lint_compliance(j, data_dir, &b, &n, e);
        json_decref(j);
        if (rc != MS_OK) {
            ms_buf_free(&b);
            return -1;
        }
        if (b.data)
            *out = ms_buf_steal(&b);
        return n;
    }
    int k = ru_validate(j, data_dir, NULL, &b, e);
    if (k < 0) {
        json_decref(j);
        ms_buf_free(&b);
        return -1;
    }
    n += k;
    if (n == 0) {
        /* cross-references the schema cannot express */
        ck_rules r;
        ms_err le;
        if (ck_rules_load(&r, path, NULL, &le))
            lint_add(&b, &n, "%s", le.msg);
        else
            ck_rules_free(&r);
        const json_t *models = json_object_get(j, "models");
        const char *tables[] = {"required_scenarios", "optional_scenarios"};
        for (int t = 0; t < 2; t++) {
            const char *cat;
            json_t *cv;
            json_object_foreach(json_object_get(j, tables[t]), cat, cv) {
                const char *model;
                json_t *mv;
                json_object_foreach(cv, model, mv) {
                    if (!json_object_get(json_object_get(j, "accuracy_targets"), model))
                        lint_add(&b, &n, "/%s/%s/%s: model has no accuracy_targets entry",
                                 tables[t], cat, model);
                    if (!json_object_get(json_object_get(j, "performance_sample_count"), model))
                        lint_add(&b, &n, "/%s/%s/%s: model has no performance_sample_count",
                                 tables[t], cat, model);
                    if (!json_object_get(json_object_get(j, "compliance_tests"), model))
                        lint_add(&b, &n, "/%s/%s/%s: model has no compliance_tests entry",
                                 tables[t], cat, model);
                    (void)models;
                }
            }
        }
        lint_targets(j, "accuracy_targets", &b, &n);
        lint_targets(j, "accuracy_upper_limits", &b, &n);
        /* model_mapping may name models retired in the round (the aliases are shared by
         * every round; M2 rejects them in closed/network): not a lint problem */
        const json_t *rf = json_object_get(j, "result_field");
        for (int i = 0; i < RU_INTERACTIVE; i++) /* Interactive shares Server's field */
            if (!json_object_get(rf, ru_scenario_name(i)))
                lint_add(&b, &n, "/result_field: no field for %s", ru_scenario_name(i));
    }
    json_decref(j);
    if (b.data)
        *out = ms_buf_steal(&b);
    return n;
}
