/* rules/compliance.json: the per-test and per-model data of the audits (see audit.h). */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_int.h"
#include "rules/rules.h"
#include "common/pyfmt.h"
#include "common/strutil.h"

struct au_rules {
    json_t *root;
    char path[PATH_MAX];
};

int au_test_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strncasecmp(s, "test", 4))
        s += 4;
    static const au_test all[] = {AU_TEST01, AU_TEST04, AU_TEST05, AU_TEST06, AU_TEST07, AU_TEST08, AU_TEST09};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        const char *num = au_test_name(all[i]) + 4; /* "01": also "1" */
        if (!strcmp(s, num) || (num[0] == '0' && !strcmp(s, num + 1)))
            return all[i];
    }
    return -1;
}

const char *au_test_name(au_test t)
{
    switch (t) {
    case AU_TEST01: return "TEST01";
    case AU_TEST04: return "TEST04";
    case AU_TEST05: return "TEST05";
    case AU_TEST06: return "TEST06";
    case AU_TEST07: return "TEST07";
    case AU_TEST08: return "TEST08";
    case AU_TEST09: return "TEST09";
    }
    return "TEST??";
}

static const char *const dtype_names[] = {"byte", "int32", "int64", "float32"};

int au_dtype_parse(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (s && !strcmp(s, dtype_names[i]))
            return i;
    return -1;
}

const char *au_dtype_name(au_dtype d)
{
    return (unsigned)d < 4 ? dtype_names[d] : "?";
}


/* ---- loading ---- */

static int need(json_t *o, const char *path, json_type type, const char *file, ms_err *e)
{
    json_t *v = o;
    char key[128];
    const char *p = path;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        snprintf(key, sizeof key, "%.*s", (int)n, p);
        v = json_is_object(v) ? json_object_get(v, key) : NULL;
        if (!v)
            return ms_err_set(e, MS_EINPUT, "%s: missing key '%s' (expected by mlsubmit audit)", file, path);
        p += n + (dot != NULL);
    }
    if (json_typeof(v) != type)
        return ms_err_set(e, MS_EINPUT, "%s: '%s' has the wrong type", file, path);
    return MS_OK;
}

au_rules *au_rules_load(const char *path, ms_err *e)
{
    au_rules *r = calloc(1, sizeof *r);
    if (!r) {
        ms_err_oom(e);
        return NULL;
    }
    if (path)
        snprintf(r->path, sizeof r->path, "%s", path);
    else {
        char *p = ru_rules_file("compliance.json", e);
        if (!p) {
            ms_err_prefix(e, "the audit rules (pass --rules FILE)");
            free(r);
            return NULL;
        }
        snprintf(r->path, sizeof r->path, "%s", p);
        free(p);
    }
    json_error_t je;
    r->root = json_load_file(r->path, 0, &je);
    if (!r->root) {
        ms_err_set(e, MS_EINPUT, "%s:%d:%d: %s", r->path, je.line, je.column, je.text);
        free(r);
        return NULL;
    }
    static const struct {
        const char *k;
        json_type t;
    } req[] = {{"tests.TEST01.audit_config", JSON_ARRAY}, {"tests.TEST01.sampling_target", JSON_OBJECT},
               {"tests.TEST01.accuracy_log_rng_seed", JSON_STRING}, {"tests.TEST04.audit_config", JSON_ARRAY},
               {"tests.TEST04-U.audit_config", JSON_ARRAY}, {"tests.TEST05.audit_config", JSON_ARRAY},
               {"tests.TEST05.seeds", JSON_OBJECT}, {"models", JSON_OBJECT}, {"required", JSON_OBJECT},
               {"loadgen_round", JSON_OBJECT}, {"fallback", JSON_OBJECT}, {"tolerances", JSON_OBJECT}};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
        if (need(r->root, req[i].k, req[i].t, r->path, e) != MS_OK) {
            au_rules_free(r);
            return NULL;
        }
    return r;
}

void au_rules_free(au_rules *r)
{
    if (!r)
        return;
    json_decref(r->root);
    free(r);
}

static json_t *get2(const au_rules *r, const char *a, const char *b)
{
    json_t *v = json_object_get(r->root, a);
    return b ? json_object_get(v, b) : v;
}

int au_layout_parse(const au_rules *r, const char *s)
{
    if (!s)
        return -1;
    /* a layout by its name, or by a round that "layouts" of rules/compliance.json lists for it
     * (unified: results/ with the audits beside the scenario; legacy: compliance/ beside
     * results/) */
    static const struct {
        const char *profile;
        au_layout layout;
    } layouts[] = {{"unified", AU_LAYOUT_UNIFIED}, {"legacy", AU_LAYOUT_LEGACY}};
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
        if (!strcmp(s, layouts[i].profile))
            return layouts[i].layout;
    if (*s == 'v')
        s++;
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
        size_t k;
        json_t *v;
        json_array_foreach(get2(r, "layouts", layouts[i].profile), k, v)
            if (json_is_string(v) && !strcmp(s, json_string_value(v)))
                return layouts[i].layout;
    }
    return -1;
}

static json_t *test_obj(const au_rules *r, const char *name)
{
    return json_object_get(get2(r, "tests", NULL), name);
}

/* ---- lookups ---- */

const char *au_rules_audit_dir(const au_rules *r, const char *model)
{
    if (!r || !model)
        return NULL;
    return json_string_value(json_object_get(get2(r, "models", NULL), model));
}

uint64_t au_rules_sampling_target(const au_rules *r, const char *model)
{
    const char *dir = au_rules_audit_dir(r, model);
    json_t *v = json_object_get(json_object_get(test_obj(r, "TEST01"), "sampling_target"), dir ? dir : "");
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

int au_rules_required(const au_rules *r, const char *round, au_test t, const char *model)
{
    json_t *lst = json_object_get(get2(r, "required", round), au_test_name(t));
    if (!json_is_array(lst))
        return -1;
    const char *dir = au_rules_audit_dir(r, model);
    int known = 0;
    /* the model is "in the round" if any test list names it (or an alias of it) */
    const char *tk;
    json_t *tv;
    json_object_foreach(get2(r, "required", round), tk, tv) {
        size_t i;
        json_t *m;
        json_array_foreach(tv, i, m) {
            const char *name = json_string_value(m);
            if (!name)
                continue;
            const char *mdir = au_rules_audit_dir(r, name);
            int same = !strcmp(name, model) || (dir && mdir && !strcmp(dir, mdir));
            if (same) {
                known = 1;
                if (tv == lst)
                    return 1;
            }
        }
    }
    return known ? 0 : -1;
}

const char *au_rules_round_of(const au_rules *r, lg_compat c)
{
    return au_rules_round_of_version(r, lg_compat_version(c));
}

static int seeds_of(json_t *arr, uint64_t seeds[3])
{
    if (!json_is_array(arr) || json_array_size(arr) != 3)
        return -1;
    for (size_t i = 0; i < 3; i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        if (!s || ms_parse_u64(s, &seeds[i]) != 0)
            return -1;
    }
    return 0;
}

int au_rules_test05_seeds(const au_rules *r, const char *round, uint64_t seeds[3])
{
    return seeds_of(json_object_get(json_object_get(test_obj(r, "TEST05"), "seeds"), round ? round : ""), seeds);
}

const char *au_rules_round_of_version(const au_rules *r, const char *v)
{
    /* "loadgen_round" of rules/compliance.json: LoadGen "major.minor" -> round. A version takes
     * the entry of its major with the highest minor at or below its own (else that major's
     * lowest); a major above every entry takes the newest entry; one below, none. */
    int maj = 0, min = 0;
    if (!v || sscanf(v, "%d.%d", &maj, &min) != 2)
        return NULL;
    const char *best = NULL, *low = NULL, *top = NULL;
    int best_min = -1, low_min = 0, top_maj = -1, top_min = -1;
    const char *k;
    json_t *val;
    json_object_foreach(json_object_get(r->root, "loadgen_round"), k, val) {
        int a, b;
        if (!json_is_string(val) || sscanf(k, "%d.%d", &a, &b) != 2)
            continue;
        if (a > top_maj || (a == top_maj && b > top_min))
            top_maj = a, top_min = b, top = json_string_value(val);
        if (a != maj)
            continue;
        if (b <= min && b > best_min)
            best_min = b, best = json_string_value(val);
        if (!low || b < low_min)
            low_min = b, low = json_string_value(val);
    }
    if (best)
        return best;
    if (low)
        return low;
    return maj > top_maj ? top : NULL;
}

double au_rules_fallback_delta(const au_rules *r, const char *model)
{
    json_t *f = get2(r, "fallback", NULL);
    const char *hi = json_string_value(json_object_get(f, "high_accuracy_substring"));
    if (model && hi && strstr(model, hi))
        return json_number_value(json_object_get(f, "high_accuracy_delta_percent"));
    return json_number_value(json_object_get(f, "default_delta_percent"));
}

void au_rules_tolerance(const au_rules *r, const char *test, double *delta, double *relaxed, double *ss_ns,
                        double *ms_ns)
{
    json_t *tol = get2(r, "tolerances", NULL);
    json_t *o = json_object_get(tol, test);
    *delta = json_number_value(json_object_get(o, "delta"));
    *relaxed = json_number_value(json_object_get(o, "relaxed_delta"));
    json_t *rl = json_object_get(tol, "relaxed_at_or_below_ns");
    *ss_ns = json_number_value(json_object_get(rl, "SingleStream"));
    *ms_ns = json_number_value(json_object_get(rl, "MultiStream"));
}

double au_rules_sigmas(const au_rules *r)
{
    double s = json_number_value(json_object_get(get2(r, "tolerances", NULL), "record_count_sigmas"));
    return s > 0 ? s : 6;
}

uint64_t au_rules_test01_seed(const au_rules *r)
{
    uint64_t v = 0;
    const char *s = json_string_value(json_object_get(test_obj(r, "TEST01"), "accuracy_log_rng_seed"));
    if (s)
        ms_parse_u64(s, &v);
    return v;
}

uint64_t au_rules_same_index(const au_rules *r)
{
    json_t *v = json_object_get(test_obj(r, "TEST04"), "same_index");
    return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 3;
}

/* ---- TEST06-TEST09: per-benchmark values (tests.TESTxx.benchmarks.<name>) ---- */

static void json_text(const json_t *v, char *out, size_t n)
{
    if (json_is_string(v))
        snprintf(out, n, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(out, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) {
        char b[MS_PY_FLOAT_MAX];
        ms_py_float_repr(json_real_value(v), b);
        snprintf(out, n, "%s", b);
    } else if (json_is_boolean(v))
        snprintf(out, n, "%d", json_is_true(v));
    else
        snprintf(out, n, "?");
}

static double num_or(const json_t *o, const char *k, double dflt)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

int au_rules_bench(const au_rules *r, au_test t, const char *model, au_bench *b, ms_err *e)
{
    memset(b, 0, sizeof *b);
    b->test = t;
    json_t *to = test_obj(r, au_test_name(t));
    json_t *benches = json_object_get(to, "benchmarks");
    const char *dir = au_rules_audit_dir(r, model);
    const char *key = dir && json_object_get(benches, dir) ? dir : (model ? model : "");
    json_t *bo = json_object_get(benches, key);
    if (!json_is_object(bo)) {
        ms_buf names = MS_BUF_INIT;
        const char *k;
        json_t *v;
        json_object_foreach(benches, k, v) ms_buf_printf(&names, "%s%s", names.len ? ", " : "", k);
        ms_err_set(e, MS_EUSAGE, "%s does not apply to model '%s': %s has its audit values for %s only",
                   au_test_name(t), model ? model : "(none)", r->path, names.data ? names.data : "no benchmark");
        ms_buf_free(&names);
        return MS_EUSAGE;
    }
    snprintf(b->name, sizeof b->name, "%s", key);
    json_t *set = json_object_get(bo, "settings");
    if (!set)
        set = json_object_get(to, "settings");
    const char *k;
    json_t *v;
    json_object_foreach(set, k, v) {
        if (b->nset == sizeof b->set / sizeof b->set[0])
            return ms_err_set(e, MS_EINPUT, "%s: %s.benchmarks.%s: too many settings", r->path, au_test_name(t), b->name);
        snprintf(b->set[b->nset].key, sizeof b->set[0].key, "%s", k);
        json_text(v, b->set[b->nset].value, sizeof b->set[0].value);
        b->nset++;
    }
    if (b->nset == 0)
        return ms_err_set(e, MS_EINPUT, "%s: %s.benchmarks.%s: no settings (the audit.config values)", r->path,
                          au_test_name(t), b->name);
    b->compat_eos_id = (int64_t)num_or(to, "compat_eos_token_id", 2);
    b->eos_id = (int64_t)num_or(bo, "eos_token_id", (double)b->compat_eos_id);
    b->threshold = num_or(bo, "accuracy_threshold", NAN);
    b->dataset_size = (uint64_t)num_or(bo, "dataset_size", 0);
    b->tolerance = num_or(bo, "tolerance", 0.001);
    b->min_tokens = num_or(bo, "min_output_tokens", NAN);
    b->max_tokens = num_or(bo, "max_output_tokens", NAN);
    const char *sc = json_string_value(json_object_get(bo, "scorer"));
    snprintf(b->scorer, sizeof b->scorer, "%s", sc ? sc : "");
    const char *pat = json_string_value(json_object_get(bo, "score_pattern"));
    if (!pat)
        pat = json_string_value(json_object_get(to, "default_score_pattern"));
    snprintf(b->score_pattern, sizeof b->score_pattern, "%s", pat ? pat : "");
    if ((t == AU_TEST07 && (isnan(b->threshold) || !b->score_pattern[0])) ||
        (t == AU_TEST09 && (isnan(b->min_tokens) || isnan(b->max_tokens))))
        return ms_err_set(e, MS_EINPUT, "%s: %s.benchmarks.%s: %s missing", r->path, au_test_name(t), b->name,
                          t == AU_TEST07 ? "accuracy_threshold or score_pattern" : "min_output_tokens or max_output_tokens");
    return MS_OK;
}

const char *au_bench_setting(const au_bench *b, const char *key)
{
    for (size_t i = 0; i < b->nset; i++)
        if (!strcmp(b->set[i].key, key))
            return b->set[i].value;
    return NULL;
}

static int bench_config_text(const au_rules *r, au_test t, const char *model, char **out, ms_err *e)
{
    au_bench b;
    int rc = au_rules_bench(r, t, model, &b, e);
    if (rc != MS_OK)
        return rc;
    ms_buf s = MS_BUF_INIT;
    int bad = ms_buf_printf(&s, "# mlsubmit: %s audit.config for %s (rules/compliance.json tests.%s)\n",
                            au_test_name(t), b.name, au_test_name(t));
    for (size_t i = 0; i < b.nset; i++)
        bad |= ms_buf_printf(&s, "*.*.%s = %s\n", b.set[i].key, b.set[i].value);
    char f[MS_PY_FLOAT_MAX];
    if (t == AU_TEST07) {
        ms_py_float_repr(b.threshold, f);
        bad |= ms_buf_printf(&s, "# read by the TEST07 verifier, not by the LoadGen\n*.*.test07_accuracy_threshold = %s\n", f);
    } else if (t == AU_TEST09) {
        ms_py_float_repr(b.min_tokens, f);
        bad |= ms_buf_printf(&s, "# read by the TEST09 verifier, not by the LoadGen\n*.*.test09_min_output_tokens = %s\n", f);
        ms_py_float_repr(b.max_tokens, f);
        bad |= ms_buf_printf(&s, "*.*.test09_max_output_tokens = %s\n", f);
    }
    if (bad) {
        ms_buf_free(&s);
        return ms_err_oom(e);
    }
    *out = ms_buf_steal(&s);
    return MS_OK;
}

/* ---- audit.config text ---- */

typedef struct subst {
    const char *name;
    char value[64];
} subst;

static int fill_line(ms_buf *b, const char *line, const subst *v, size_t nv, const char *file, ms_err *e)
{
    for (const char *p = line; *p;) {
        const char *open = strchr(p, '{');
        const char *close = open ? strchr(open, '}') : NULL;
        if (!open || !close)
            return ms_buf_puts(b, p) ? ms_err_oom(e) : MS_OK;
        if (ms_buf_append(b, p, (size_t)(open - p)) != 0)
            return ms_err_oom(e);
        size_t n = (size_t)(close - open - 1);
        size_t i;
        for (i = 0; i < nv; i++)
            if (strlen(v[i].name) == n && !strncmp(v[i].name, open + 1, n))
                break;
        if (i == nv)
            return ms_err_set(e, MS_EINPUT, "%s: audit_config line '%s': unknown placeholder", file, line);
        if (ms_buf_puts(b, v[i].value) != 0)
            return ms_err_oom(e);
        p = close + 1;
    }
    return MS_OK;
}

int au_audit_config_text(const au_rules *r, au_test t, int unique, const char *model,
                         uint64_t sampling_target, const char *round, const uint64_t *seeds,
                         char **out, ms_err *e)
{
    *out = NULL;
    if (AU_IS_BENCH_TEST(t) && !unique)
        return bench_config_text(r, t, model, out, e);
    const char *name = unique ? "TEST04-U" : au_test_name(t);
    json_t *lines = json_object_get(test_obj(r, name), "audit_config");
    subst v[5];
    size_t nv = 0;
    const char *dir = au_rules_audit_dir(r, model);
    v[nv].name = "audit_dir";
    snprintf(v[nv++].value, sizeof v[0].value, "%s", dir ? dir : (model ? model : "*"));
    uint64_t target = sampling_target ? sampling_target : au_rules_sampling_target(r, model);
    if (t == AU_TEST01 && !unique && target == 0)
        return ms_err_set(e, MS_EUSAGE,
                          "TEST01: no accuracy_log_sampling_target for model '%s' in %s (give --sampling-target N)",
                          model ? model : "", r->path);
    v[nv].name = "sampling_target";
    snprintf(v[nv++].value, sizeof v[0].value, "%llu", (unsigned long long)target);
    uint64_t s[3] = {0, 0, 0};
    if (t == AU_TEST05) {
        if (seeds)
            memcpy(s, seeds, sizeof s);
        else if (au_rules_test05_seeds(r, round, s) != 0)
            return ms_err_set(e, MS_EINPUT, "%s: no TEST05 seeds for round '%s'", r->path, round ? round : "");
    }
    static const char *const sn[3] = {"qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed"};
    for (int i = 0; i < 3; i++) {
        v[nv].name = sn[i];
        snprintf(v[nv++].value, sizeof v[0].value, "%llu", (unsigned long long)s[i]);
    }
    ms_buf b = MS_BUF_INIT;
    size_t i;
    json_t *ln;
    json_array_foreach(lines, i, ln) {
        const char *text = json_string_value(ln);
        if (!text) {
            ms_buf_free(&b);
            return ms_err_set(e, MS_EINPUT, "%s: %s.audit_config[%zu] is not a string", r->path, name, i);
        }
        int rc = fill_line(&b, text, v, nv, r->path, e);
        if (rc == MS_OK && ms_buf_putc(&b, '\n') != 0)
            rc = ms_err_oom(e);
        if (rc != MS_OK) {
            ms_buf_free(&b);
            return rc;
        }
    }
    if (!b.data && ms_buf_puts(&b, "") != 0)
        return ms_err_oom(e);
    *out = ms_buf_steal(&b);
    return MS_OK;
}
