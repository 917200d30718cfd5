/* Scenario checks, measurements group (E): the measurements directory of a scenario
 * (implementation JSON, README, user.conf, power measurement files). Dispatched by
 * ck_eval_scenario (scenario.c). */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checker/scen.h"
#include "common/pyfmt.h"

/* ------------------------------------------------------------ measurements ---- */

/* The implementation JSON's fields (E4) and, as a stricter check, its schema (E6). */
static void check_impl_json(sctx *c, const char *rel, json_t **keep)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    char *abs = absof(c, rel);
    json_error_t je;
    json_t *j = abs ? ms_json_load_path(abs, 0, &je) : NULL;
    free(abs);
    if (!j) {
        FIND(c, CK_ID(E4), CK_SEV_ERROR, rel, je.line > 0 ? je.line : 0, "a JSON object", je.text,
             "cannot parse the implementation JSON: %s (the MLCommons checker raises)", je.text);
        c->raises = 1;
        return;
    }
    if (!json_is_object(j)) {
        FIND(c, CK_ID(E4), CK_SEV_ERROR, rel, 0, "a JSON object", "another JSON value",
             "the implementation JSON must be an object");
        json_decref(j);
        return;
    }
    const json_t *req = ck_rget(r, "measurements_required_fields");
    for (size_t i = 0; i < json_array_size(req); i++) {
        const char *k = json_string_value(json_array_get(req, i));
        const json_t *v = json_object_get(j, k);
        char *ptr = ms_json_pointer_append("", k);
        if (!v)
            ck_report_finding(c->run, &s->f, &c->w, CK_ID(E4), CK_SEV_ERROR, rel, 0, ptr, "present",
                              "missing", "field %s is missing", k);
        else if (!c->run->o->skip_meaningful_fields_emptiness_check && c->r->sw.emptiness_checks &&
                 !ms_py_truthy(v))
            ck_report_finding(c->run, &s->f, &c->w, CK_ID(E4), CK_SEV_ERROR, rel, 0, ptr,
                              "a meaningful value", "empty", "field %s is missing meaningful value",
                              k);
        free(ptr);
    }
    const json_t *wdt = json_object_get(j, "weight_data_types");
    if (wdt) {
        s->weight_data_types = json_deep_copy(wdt);
        s->wdt_present = 1;
        free(s->wdt_rel);
        s->wdt_rel = strdup(rel);
        if (!s->weight_data_types || !s->wdt_rel)
            c->run->oom = 1;
    }
    if (c->run->meas_schema) {
        ms_jschema_errors errs = {0};
        ms_err e;
        if (ms_jschema_validate(c->run->meas_schema, j, &errs, 20, &e) == 0) {
            for (size_t i = 0; i < errs.n; i++) {
                const char *ptr = errs.v[i].pointer;
                /* E4 already reports absent and empty required fields */
                if (!strcmp(errs.v[i].keyword, "required"))
                    continue;
                const json_t *fv = ptr[0] == '/' ? json_object_get(j, ptr + 1) : NULL;
                if (fv && !ms_py_truthy(fv))
                    continue;
                ck_report_finding(c->run, &s->f, &c->w, CK_ID(E6), CK_SEV_WARNING, rel, 0, ptr, NULL,
                                  NULL, "%s (%s)", errs.v[i].message, errs.v[i].keyword);
            }
        }
        ms_jschema_errors_free(&errs);
    }
    (void)keep;
    json_decref(j);
}

static void need_nonempty_file(sctx *c, const char *dir_rel, const char *name, const char *id)
{
    char *rel = ck_join(dir_rel, name);
    char *abs = rel ? absof(c, rel) : NULL;
    if (!abs) {
        c->run->oom = 1;
    } else if (!ck_isfile(abs)) {
        FIND(c, id, CK_SEV_ERROR, rel, 0, NULL, NULL, "%s is missing %s", dir_rel, name);
    } else if (!c->run->o->skip_empty_files_check && c->r->sw.emptiness_checks &&
               ck_fsize(abs) == 0) {
        FIND(c, id, CK_SEV_ERROR, rel, 0, "a non-empty file", "0 bytes", "%s is having empty %s",
             dir_rel, name);
    }
    free(rel);
    free(abs);
}

/* E3: power measurement files in the scenario dir or up to measurements/ */
static void check_power_measure_files(sctx *c, const char *mdir_rel)
{
    const json_t *pats = ck_rget(c->r, "power_measure_file_patterns");
    for (size_t pi = 0; pi < json_array_size(pats); pi++) {
        const char *pat = json_string_value(json_array_get(pats, pi));
        ms_err e;
        /* compiled with the rules (ck_rules_load) */
        const ms_pyre *re = pi < c->r->npower_file_res ? &c->r->power_file_res[pi] : NULL;
        if (!pat || !re || !re->code)
            continue;
        char *found_rel = NULL;
        char *dir = strdup(mdir_rel);
        for (int level = 0; level < 4 && dir; level++) {
            char *abs = absof(c, dir);
            ck_dir d;
            if (abs && ck_dir_read(&d, abs) == 0) {
                for (size_t i = 0; i < d.n; i++)
                    if (d.v[i].is_file &&
                        ms_pyre_match(re, d.v[i].name, strlen(d.v[i].name), NULL, NULL, &e) > 0) {
                        free(found_rel);
                        found_rel = ck_join(dir, d.v[i].name);
                    }
                ck_dir_free(&d);
            }
            free(abs);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            else
                break;
        }
        free(dir);
        if (!found_rel) {
            FIND(c, CK_ID(E3), CK_SEV_ERROR, mdir_rel, 0, pat, NULL, "%s is missing %s", mdir_rel, pat);
        } else if (!c->run->o->skip_empty_files_check && c->r->sw.emptiness_checks) {
            char *abs = absof(c, found_rel);
            if (ck_fsize(abs) == 0)
                FIND(c, CK_ID(E3), CK_SEV_ERROR, found_rel, 0, "a non-empty file", "0 bytes",
                     "%s is having empty %s", mdir_rel, pat);
            free(abs);
        }
        free(found_rel);
    }
}

/* Returns 0 when the legacy flow stops (any E failure). */
/* E4 (E1 in the unified layout): the implementation JSON of the measurements directory (split
 * layout: <system>_<impl>_<scenario>.json or another <system>*.json, *end_len the length of the
 * ending; unified: measurements.json); NULL when there is none */
static char *meas_impl_json(sctx *c, const char *mdir_rel, const char *mdir_abs, int split, size_t *end_len)
{
    const ck_scen *s = c->s;
    char *impl_name = NULL;
    *end_len = 0;
    if (split) {
        ck_dir d;
        ck_dir_read(&d, mdir_abs);
        size_t sl = strlen(s->system);
        char *suffix = ck_fmt("_%s.json", s->scen_dir);
        for (size_t i = 0; i < d.n && suffix; i++) {
            const char *n = d.v[i].name;
            size_t nl = strlen(n);
            if (!d.v[i].is_file || strncmp(n, s->system, sl))
                continue;
            if (nl >= strlen(suffix) && !strcmp(n + nl - strlen(suffix), suffix)) {
                impl_name = strdup(n);
                *end_len = strlen(suffix);
                break;
            }
            if (nl >= 5 && !strcmp(n + nl - 5, ".json")) {
                impl_name = strdup(n);
                *end_len = 5;
                break;
            }
        }
        free(suffix);
        ck_dir_free(&d);
        if (!impl_name) {
            FIND(c, CK_ID(E4), CK_SEV_ERROR, mdir_rel, 0, NULL, NULL, "%s is missing %s*.json", s->rel,
                 s->system);
        }
    } else {
        impl_name = strdup("measurements.json");
        *end_len = 0;
        char *rel = ck_join(mdir_rel, impl_name);
        char *abs = rel ? absof(c, rel) : NULL;
        if (!ck_isfile(abs)) {
            FIND(c, CK_ID(E1), CK_SEV_ERROR, rel, 0, NULL, NULL, "%s measurements json file not found",
                 s->rel);
            free(impl_name);
            impl_name = NULL;
        }
        free(rel);
        free(abs);
    }
    return impl_name;
}

/* E5 (legacy): the code directory of the implementation (code/<model>/<impl>, the model's
 * name read from a file code/<model> where it is one) */
static void meas_code_dir(sctx *c, const char *sub_rel, const char *impl_name, size_t end_len)
{
    const ck_scen *s = c->s;
    size_t sl = strlen(s->system), nl = strlen(impl_name);
    size_t from = sl + 1, to = nl >= end_len ? nl - end_len : 0;
    char *impl = from < to ? strndup(impl_name + from, to - from) : strdup("");
    char *code_model = ck_fmt("%s/code/%s", sub_rel, s->model_dir);
    char *code_model_abs = code_model ? absof(c, code_model) : NULL;
    char *code_dir = NULL;
    if (code_model_abs && ck_isfile(code_model_abs)) {
        char *txt = NULL;
        size_t len = 0;
        ms_err e;
        if (ck_read_text(code_model_abs, 4096, &txt, &len, &e) == 0) {
            size_t n = len;
            const char *p = ms_py_strip(txt, &n);
            code_dir = ck_fmt("%s/code/%.*s/%s", sub_rel, (int)n, p, impl ? impl : "");
        }
        free(txt);
    } else {
        code_dir = ck_fmt("%s/code/%s/%s", sub_rel, s->model_dir, impl ? impl : "");
    }
    if (code_dir) {
        char *abs = absof(c, code_dir);
        int ok = ck_pexists(abs);
        if (!ok) {
            char *slash = strrchr(abs, '/');
            if (slash) {
                *slash = '\0';
                ok = ck_pexists(abs);
            }
        }
        if (!ok) {
            size_t cl = strlen(code_dir);  /* shown without the empty impl's slash */
            if (cl > 1 && code_dir[cl - 1] == '/')
                code_dir[cl - 1] = '\0';
            FIND(c, CK_ID(E5), CK_SEV_ERROR, code_dir, 0, NULL, NULL, "%s is missing code_dir %s",
                 s->rel, code_dir);
        }
        free(abs);
    }
    free(impl);
    free(code_model);
    free(code_model_abs);
    free(code_dir);
}

/* E5 (unified): the submitter's src directory */
static void meas_src_dir(sctx *c, const char *sub_rel)
{
    char *src = ck_join(sub_rel, "src");
    char *abs = src ? absof(c, src) : NULL;
    if (!ck_pexists(abs))
        FIND(c, CK_ID(E5), CK_SEV_ERROR, src, 0, NULL, NULL, "%s src directory does not exist", src);
    free(src);
    free(abs);
}

/* Python's s.replace(sub, "") in place */
static void remove_all(char *s, const char *sub)
{
    size_t n = strlen(sub);
    char *w = s;
    for (const char *r = s; *r;) {
        if (!strncmp(r, sub, n)) {
            r += n;
        } else {
            *w++ = *r++;
        }
    }
    *w = 0;
}

/* E7: check_measurement_dir of tag v4.1 (equal_issue_from_conf) reads mlperf.conf, then
 * user.conf, of an equal-issue model for a `<model>.<scenario>.sample_concatenate_permutation =
 * <digits>` line (model without the suffixes of equal_issue_conf_model_suffixes, or *; scenario the
 * folder's, or *): the first such
 * line of a file decides, user.conf after mlperf.conf. Every line but comments and empty ones
 * must split into one "=" and three "."-separated key parts, else Python raises (no verdict);
 * so does a file that is not UTF-8. Spaces are removed before all this, as the checker does. */
static void meas_equal_issue_conf(sctx *c, const char *mdir_rel)
{
    ck_scen *s = c->s;
    char ref[256];
    snprintf(ref, sizeof ref, "%s", s->model_dir);
    /* model.replace(...) of each suffix in turn (equal_issue_conf_model_suffixes) */
    const json_t *sfx = ck_rget(c->r, "equal_issue_conf_model_suffixes");
    for (size_t i = 0; i < json_array_size(sfx); i++)
        if (json_string_value(json_array_get(sfx, i)) && *json_string_value(json_array_get(sfx, i)))
            remove_all(ref, json_string_value(json_array_get(sfx, i)));
    static const char *const names[] = {"mlperf.conf", "user.conf"};
    for (int f = 0; f < 2; f++) {
        char *rel = ck_join(mdir_rel, names[f]);
        if (!rel) {
            c->run->oom = 1;
            return;
        }
        textfile t;
        read_textfile(c, rel, CK_ID(E7), 1, &t);
        if (!t.ok) {
            if (!t.missing) /* not UTF-8 or unreadable: readlines() raises */
                c->raises = 1;
            free(t.text);
            free(rel);
            continue;
        }
        /* readlines() in text mode: \n, \r\n and a lone \r end a line (ms_lines) */
        ms_lines it;
        ms_lines_init(&it, t.text, t.len);
        const char *line;
        size_t n;
        int nl;
        while (ms_lines_next(&it, &line, &n, &nl)) {
            long lineno = (long)it.line_no;
            char buf[1024];
            size_t k = 0;
            for (size_t i = 0; i < n && k + 1 < sizeof buf; i++)
                if (line[i] != ' ') /* a NUL is an ordinary character there: kept unequal to all */
                    buf[k++] = line[i] ? line[i] : '\x01';
            buf[k] = 0;
            if (!k || buf[0] == '#')
                continue;
            char *eq = strchr(buf, '=');
            char *d1 = eq ? memchr(buf, '.', (size_t)(eq - buf)) : NULL;
            char *d2 = d1 ? memchr(d1 + 1, '.', (size_t)(eq - d1 - 1)) : NULL;
            if (!eq || strchr(eq + 1, '=') || !d2 || memchr(d2 + 1, '.', (size_t)(eq - d2 - 1))) {
                FIND(c, CK_ID(E7), CK_SEV_ERROR, rel, lineno, "model.scenario.key = value", buf,
                     "line %ld does not split into one '=' and a three-part key (the MLCommons "
                     "checker raises ValueError reading it for sample_concatenate_permutation)",
                     lineno);
                c->raises = 1;
                break;
            }
            *eq = *d1 = *d2 = 0;
            const char *val = eq + 1;
            if (strcmp(d2 + 1, "sample_concatenate_permutation") ||
                (strcmp(buf, ref) && strcmp(buf, "*")) ||
                (strcmp(d1 + 1, s->scen_dir) && strcmp(d1 + 1, "*")))
                continue;
            int digits = *val != 0;
            for (const char *q = val; *q; q++)
                digits &= *q >= '0' && *q <= '9';
            if (!digits) /* val.isnumeric() false: the line is passed over */
                continue;
            while (val[0] == '0' && val[1])
                val++;
            s->conf_equal_issue = !strcmp(val, "1");
            break;
        }
        free(t.text);
        free(rel);
    }
}

int group_measurements(sctx *c, const char *scen_rel)
{
    ck_scen *s = c->s;
    size_t start = s->f.n;
    int split = !strcmp(json_string_value(ck_rget(c->r, "layout")) ?: "split", "split");
    char *sub_rel = ck_join(s->division, s->submitter);
    char *mdir_rel = split ? ck_fmt("%s/measurements/%s/%s/%s", sub_rel, s->system, s->model_dir,
                                    s->scen_dir)
                           : strdup(scen_rel);
    char *mdir_abs = mdir_rel ? absof(c, mdir_rel) : NULL;
    if (!sub_rel || !mdir_rel || !mdir_abs) {
        c->run->oom = 1;
        goto out;
    }
    if (split && !ck_pexists(mdir_abs)) {
        FIND(c, CK_ID(E1), CK_SEV_ERROR, mdir_rel, 0, NULL, NULL, "no measurement_dir for %s", mdir_rel);
        goto out;
    }
    /* E2 */
    const json_t *files = ck_rget(c->r, "measurements_required_files");
    for (size_t i = 0; i < json_array_size(files); i++)
        need_nonempty_file(c, mdir_rel, json_string_value(json_array_get(files, i)), CK_ID(E2));
    /* E3 (legacy only) */
    if (!c->unified && s->has_power && !ck_skipped(c->run, CK_ID(E3)))
        check_power_measure_files(c, mdir_rel);
    /* E4: implementation JSON */
    size_t end_len = 0;
    char *impl_name = meas_impl_json(c, mdir_rel, mdir_abs, split, &end_len);
    if (impl_name) {
        char *rel = ck_join(mdir_rel, impl_name);
        if (rel)
            check_impl_json(c, rel, NULL);
        free(rel);
    }
    /* E5: code directory */
    if (!c->unified && impl_name)
        meas_code_dir(c, sub_rel, impl_name, end_len);
    /* E7: the equal-issue lines of the confs (Config.requires_equal_issue) */
    if (!c->unified && impl_name && c->r->sw.equal_issue_from_conf &&
        (s->closed || !c->r->sw.equal_issue_closed_only) &&
        ck_rlist_has(c->r, "equal_issue_required_models", s->model_dir))
        meas_equal_issue_conf(c, mdir_rel);
    else if (c->unified)
        meas_src_dir(c, sub_rel);
    free(impl_name);
out:
    if (!c->unified && !c->r->sw.measurements_failure_stops) {
        /* check_results_dir up to tag v3.0: only a missing measurement dir nulls its key; the
         * findings of check_measurement_dir are logged, the result still counts (unless
         * check_measurement_dir raised: then there is no verdict and the errors stay) */
        int missing = 0;
        for (size_t i = start; i < s->f.n; i++) {
            if (!strcmp(s->f.v[i].id, CK_ID(E1)))
                missing = 1;
            else if (s->f.v[i].sev == CK_SEV_ERROR && !c->raises)
                s->f.v[i].sev = CK_SEV_WARNING;
        }
        if (missing && split)
            s->meas_key = mdir_rel ? strdup(mdir_rel) : NULL;
        s->meas_ok = 1;
        goto done;
    }
    s->meas_ok = !any_counting(c->run, &s->f, start);
    if (!s->meas_ok && split)
        s->meas_key = mdir_rel ? strdup(mdir_rel) : NULL;
done:
    free(sub_rel);
    free(mdir_rel);
    free(mdir_abs);
    return s->meas_ok;
}
