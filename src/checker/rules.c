/* Rules per round: loading rules/<version>.json, lookups, data-directory discovery, lint. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
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
    if (!s)
        return 0;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *v = json_string_value(json_array_get(arr, i));
        if (v && !strcmp(v, s))
            return 1;
    }
    return 0;
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
        if (!strcmp(r->patterns[i].metric, metric))
            return &r->patterns[i].re;
    return NULL;
}

const char *ck_map_model(const ck_rules *r, const char *dir, const json_t *extra)
{
    if (ck_rlist_has(r, "models", dir))
        return dir;
    const char *m = json_string_value(ck_rget2(r, "model_mapping", dir));
    if (m && *m)
        return m;
    if (extra) {
        m = json_string_value(json_object_get(extra, dir));
        if (m && *m)
            return m;
    }
    const char *guess = dir;
    const json_t *g = ck_rget(r, "model_guesses");
    for (size_t i = 0; i < json_array_size(g); i++) {
        const json_t *item = json_array_get(g, i);
        const json_t *subs = json_object_get(item, "contains");
        int hit = 0;
        for (size_t k = 0; k < json_array_size(subs) && !hit; k++) {
            const char *sub = json_string_value(json_array_get(subs, k));
            hit = sub && strstr(dir, sub) != NULL;
        }
        if (hit) {
            guess = json_string_value(json_object_get(item, "model"));
            break;
        }
    }
    m = json_string_value(ck_rget2(r, "model_mapping", guess));
    return m ? m : guess;
}

const char *ck_canon_scenario(const ck_rules *r, const char *dir)
{
    static const char *const canon[] = {"SingleStream", "MultiStream", "Server", "Offline",
                                        "Interactive"};
    for (size_t i = 0; i < 5; i++)
        if (!strcmp(dir, canon[i]))
            return canon[i];
    const char *m = json_string_value(ck_rget2(r, "scenario_dir_aliases", dir));
    if (m)
        for (size_t i = 0; i < 5; i++)
            if (!strcmp(m, canon[i]))
                return canon[i];
    return NULL;
}

const json_t *ck_required(const ck_rules *r, const char *category, const char *model)
{
    return ck_rget3(r, "required_scenarios", category, model);
}

const json_t *ck_optional(const ck_rules *r, const char *category, const char *model)
{
    return ck_rget3(r, "optional_scenarios", category, model);
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
    json_decref(r->j);
    free(r->path);
    memset(r, 0, sizeof *r);
}

int ck_rules_load(ck_rules *r, const char *path, const char *profile, ms_err *e)
{
    memset(r, 0, sizeof *r);
    json_error_t je;
    r->j = json_load_file(path, 0, &je);
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
    /* the round's behaviour switches: read here and nowhere else */
    const json_t *sw = ck_rget(r, "calibration_doc_required");
    r->sw.calibration_doc_required = sw ? json_is_true(sw) : 1;
    sw = ck_rget(r, "csv_weight_data_types_column");
    r->sw.csv_weight_data_types = sw ? json_is_true(sw) : 1;
    sw = ck_rget(r, "emptiness_checks");
    r->sw.emptiness_checks = sw ? json_is_true(sw) : 1;
    r->sw.csv_accuracy_value_only = json_is_true(ck_rget(r, "csv_accuracy_value_only"));
    sw = ck_rget(r, "summary_power_counts");
    r->sw.summary_power_counts = sw ? json_is_true(sw) : 1;
    sw = ck_rget(r, "measurements_failure_stops");
    r->sw.measurements_failure_stops = sw ? json_is_true(sw) : 1;
    sw = ck_rget(r, "accuracy_failure_stops");
    r->sw.accuracy_failure_stops = sw ? json_is_true(sw) : 1;
    sw = ck_rget(r, "systems_results_check");
    r->sw.systems_results_check = sw ? json_is_true(sw) : 1;
    sw = ck_rget(r, "performance_file_list_stops");
    r->sw.performance_file_list_stops = sw ? json_is_true(sw) : 1;
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
    if (profile) {
        r->smoke = ck_rget2(r, "profiles", profile);
        if (!json_is_object(r->smoke)) {
            ck_rules_free(r);
            return ms_err_set(e, MS_EUSAGE, "profile '%s' is not defined in %s", profile, path);
        }
    }
    return MS_OK;
}

/* ----------------------------------------------------------- data dir ---- */

static int has_rules(const char *dir)
{
    char *p = ck_join(dir, "rules");
    int ok = p && ck_isdir(p);
    free(p);
    return ok;
}

char *ck_find_data_dir(const char *exe, ms_err *e)
{
    const char *env = getenv("MLSUBMIT_DATA_DIR");
    if (env && *env) {
        if (has_rules(env))
            return strdup(env);
        ms_err_set(e, MS_EINPUT, "MLSUBMIT_DATA_DIR=%s has no rules/ directory", env);
        return NULL;
    }
    char buf[PATH_MAX];
    const char *self = exe;
    if (!self) {
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = '\0';
            self = buf;
        }
    }
    char resolved[PATH_MAX];
    if (self && realpath(self, resolved)) {
        char *slash = strrchr(resolved, '/');
        if (slash) {
            *slash = '\0';
            char *cands[2] = {ck_join(resolved, ".."), ck_join(resolved, "../share/mlsubmit")};
            for (int i = 0; i < 2; i++) {
                if (cands[i] && has_rules(cands[i])) {
                    char *ok = cands[i];
                    free(cands[1 - i]);
                    return ok;
                }
            }
            free(cands[0]);
            free(cands[1]);
        }
    }
    ms_err_set(e, MS_EINPUT,
               "cannot find the rules/ directory: set MLSUBMIT_DATA_DIR, or keep rules/ next to "
               "the binary's parent directory (source tree) or in <prefix>/share/mlsubmit");
    return NULL;
}

static int parse_version(const char *name, int *maj, int *min)
{
    char *end;
    if (name[0] != 'v')
        return -1;
    long a = strtol(name + 1, &end, 10);
    if (*end != '.')
        return -1;
    long b = strtol(end + 1, &end, 10);
    if (strcmp(end, ".json"))
        return -1;
    *maj = (int)a;
    *min = (int)b;
    return 0;
}

char *ck_newest_version(const char *data_dir, ms_err *e)
{
    char *rd = ck_join(data_dir, "rules");
    if (!rd) {
        ms_err_oom(e);
        return NULL;
    }
    DIR *d = opendir(rd);
    if (!d) {
        ms_err_errno(e, MS_EINPUT, errno, "%s", rd);
        free(rd);
        return NULL;
    }
    int bm = -1, bn = -1;
    char best[64] = "";
    for (struct dirent *de; (de = readdir(d));) {
        int a, b;
        if (parse_version(de->d_name, &a, &b) == 0 && (a > bm || (a == bm && b > bn)) &&
            strlen(de->d_name) < sizeof best) {
            bm = a;
            bn = b;
            snprintf(best, sizeof best, "%.*s", (int)(strlen(de->d_name) - 5), de->d_name);
        }
    }
    closedir(d);
    if (!best[0]) {
        ms_err_set(e, MS_EINPUT, "%s holds no v<major>.<minor>.json rules file", rd);
        free(rd);
        return NULL;
    }
    free(rd);
    return strdup(best);
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
static int lint_compliance(const json_t *j, const char *schema_path, ms_buf *b, int *n, ms_err *e)
{
    json_error_t je;
    json_t *root = json_load_file(schema_path, 0, &je);
    if (!root)
        return ms_err_set(e, MS_EINPUT, "%s:%d:%d: %s", schema_path, je.line, je.column, je.text);
    json_t *sub = json_object();
    ms_jschema *schema = NULL;
    int rc = MS_OK;
    if (!sub || json_object_set(sub, "$schema", json_object_get(root, "$schema")) ||
        json_object_set(sub, "definitions", json_object_get(root, "definitions")) ||
        json_object_set_new(sub, "$ref", json_string("#/definitions/compliance_rules")))
        rc = ms_err_oom(e);
    json_decref(root);
    if (rc == MS_OK)
        rc = ms_jschema_new(&schema, sub, schema_path, e);
    json_decref(sub);
    if (rc != MS_OK)
        return rc;
    ms_jschema_errors errs = {0};
    int v = ms_jschema_validate(schema, j, &errs, 200, e);
    ms_jschema_free(schema);
    if (v < 0)
        return MS_ERUNTIME;
    for (size_t i = 0; i < errs.n; i++)
        lint_add(b, n, "%s: %s (%s)", errs.v[i].pointer[0] ? errs.v[i].pointer : "/", errs.v[i].message,
                 errs.v[i].keyword);
    ms_jschema_errors_free(&errs);
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
    char *sp = ck_join3(data_dir, "schemas", "rules.schema.json");
    if (sp && json_is_object(json_object_get(j, "tests")) && !json_object_get(j, "version")) {
        int rc = lint_compliance(j, sp, &b, &n, e);
        free(sp);
        json_decref(j);
        if (rc != MS_OK) {
            ms_buf_free(&b);
            return -1;
        }
        if (b.data)
            *out = ms_buf_steal(&b);
        return n;
    }
    ms_jschema *schema = NULL;
    if (!sp || ms_jschema_load(&schema, sp, e)) {
        free(sp);
        json_decref(j);
        ms_buf_free(&b);
        return -1;
    }
    free(sp);
    ms_jschema_errors errs = {0};
    int v = ms_jschema_validate(schema, j, &errs, 200, e);
    ms_jschema_free(schema);
    if (v < 0) {
        json_decref(j);
        ms_buf_free(&b);
        return -1;
    }
    for (size_t i = 0; i < errs.n; i++)
        lint_add(&b, &n, "%s: %s (%s)", errs.v[i].pointer[0] ? errs.v[i].pointer : "/",
                 errs.v[i].message, errs.v[i].keyword);
    ms_jschema_errors_free(&errs);
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
        const char *scen[] = {"SingleStream", "MultiStream", "Server", "Offline"};
        for (int i = 0; i < 4; i++)
            if (!json_object_get(rf, scen[i]))
                lint_add(&b, &n, "/result_field: no field for %s", scen[i]);
    }
    json_decref(j);
    if (b.data)
        *out = ms_buf_steal(&b);
    return n;
}
