/* The unified profile (v6.x): the traversal of the MLCommons submission_checker package
 * (the v6 submission_checker package). Every scenario directory is one result whose key is the
 * performance detail-log path (ROOT as given +
 * /<div>/<sub>/results/<sys>/<model>/<scen>/performance/ run_1/mlperf_log_detail.txt); it is valid
 * iff every check group passed, including the system description and the model-level scenario set
 * (evaluated from directory names). Problems at submitter/system level are reported once and fail
 * every scenario below. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/pyfmt.h"

typedef ck_plan uplan;


static int lower_has(const json_t *list, const char *name)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *s = json_string_value(json_array_get(list, i));
        if (s && !strcasecmp(s, name))
            return 1;
    }
    return 0;
}

/* Loader.check_scenarios: required/unknown scenarios from directory names, case-insensitive */
static void check_scenario_set(ck_state *run, ck_pmodel *m, const ck_system *sys, const char *div,
                               const char *sub, const ck_dir *scens)
{
    const ck_rules *r = &run->rules;
    ck_where w = {div, sub, sys->name, m->dir, NULL};
    char *mrel = ck_fmt("%s/%s/results/%s/%s", div, sub, sys->name, m->dir);
    m->ok = 1;
    if (!sys->category) {
        ck_report_finding(run, &m->f, &w, CK_ID(M3), CK_SEV_ERROR, mrel, 0, NULL, "a valid system_type",
                          "invalid", "cannot compute the scenario set: invalid system_type (the "
                          "unified checker crashes)");
        m->ok = 0;
        free(mrel);
        return;
    }
    const json_t *req = ck_required(r, sys->category, m->mlperf);
    const json_t *opt = ck_optional(r, sys->category, m->mlperf);
    if (!req) {
        ck_report_finding(run, &m->f, &w, CK_ID(M3), CK_SEV_ERROR, mrel, 0, NULL,
                          "a model with scenarios for this system type", m->mlperf,
                          "%s has an invalid model %s, system_type=%s (the unified checker "
                          "crashes)", mrel, m->mlperf, sys->category);
        m->ok = 0;
        free(mrel);
        return;
    }
    ms_buf miss = MS_BUF_INIT, unk = MS_BUF_INIT;
    int nmiss = 0, nunk = 0;
    for (size_t i = 0; i < json_array_size(req); i++) {
        const char *sc = json_string_value(json_array_get(req, i));
        int have = 0;
        for (size_t k = 0; k < scens->n && !have; k++)
            have = scens->v[k].is_dir && !strcasecmp(scens->v[k].name, sc);
        if (!have)
            ms_buf_printf(&miss, "%s'%s'", nmiss++ ? ", " : "", sc);
    }
    for (size_t k = 0; k < scens->n; k++) {
        if (!scens->v[k].is_dir)
            continue;
        if (!lower_has(req, scens->v[k].name) && !lower_has(opt, scens->v[k].name))
            ms_buf_printf(&unk, "%s'%s'", nunk++ ? ", " : "", scens->v[k].name);
    }
    if (lower_has(opt, "interactive") && lower_has(opt, "server")) {
        int have = 0;
        for (size_t k = 0; k < scens->n; k++)
            have |= scens->v[k].is_dir && (!strcasecmp(scens->v[k].name, "server") ||
                                           !strcasecmp(scens->v[k].name, "interactive"));
        if (!have) {
            if (ck_report_finding(run, &m->f, &w, CK_ID(M6), CK_SEV_ERROR, mrel, 0, NULL,
                                  "a Server or Interactive directory", "none",
                                  "%s does not have all required scenarios, missing ['(one of) "
                                  "Interactive or Server']; every scenario of the model fails",
                                  mrel))
                m->ok = 0;
        }
    }
    if (nmiss) {
        if (ck_report_finding(run, &m->f, &w, CK_ID(M5), CK_SEV_ERROR, mrel, 0, NULL,
                              "every required scenario", miss.data,
                              "%s does not have all required scenarios, missing [%s]; every "
                              "scenario of the model fails", mrel, miss.data))
            m->ok = 0;
    }
    if (nunk) {
        if (ck_report_finding(run, &m->f, &w, CK_ID(M4), CK_SEV_ERROR, mrel, 0, NULL,
                              "required or optional scenarios", unk.data,
                              "%s has all unknown scenarios for this benchmark [%s]; every "
                              "scenario of the model fails", mrel, unk.data))
            m->ok = 0;
    }
    ms_buf_free(&miss);
    ms_buf_free(&unk);
    free(mrel);
}

static int plan_tree(uplan *pl, ms_err *e)
{
    ck_state *run = pl->run;
    const ck_rules *r = &run->rules;

    static const char *const divs[3] = {"closed", "network", "open"};
    for (int di = 0; di < 3; di++)
        ck_presys_division(pl, divs[di]);
    ck_presys_run(pl);
    for (int di = 0; di < 3; di++) {
        const char *div = divs[di];
        char *dabs = ck_join(run->root, div);
        ck_dir dd;
        if (!dabs)
            goto oom;
        if (!ck_isdir(dabs) || ck_dir_read(&dd, dabs)) {
            free(dabs);
            continue;
        }
        for (size_t si = 0; si < dd.n; si++) {
            const ck_entry *se = &dd.v[si];
            if (!se->is_dir || (run->o->submitter && strcmp(run->o->submitter, se->name)))
                continue;
            CK_GROW(pl->subs, pl->nsubs, pl->capsubs);
            ck_psub *us = &pl->subs[pl->nsubs++];
            us->sub.division = strdup(div);
            us->sub.name = strdup(se->name);
            us->sub.abs = ck_join(dabs, se->name);
            us->first = pl->nsyss;
            us->skip = 0;
            if (!us->sub.division || !us->sub.name || !us->sub.abs) {
                ck_dir_free(&dd);
                free(dabs);
                goto oom;
            }
            ck_where w = {div, se->name, NULL, NULL, NULL};
            char *rabs = ck_join(us->sub.abs, "results");
            if (!rabs || !ck_isdir(rabs)) {
                char *rel = ck_fmt("%s/%s/results", div, se->name);
                ck_report_finding(run, &us->f, &w, CK_ID(R1), CK_SEV_ERROR, rel, 0, NULL, "a results/ "
                                  "directory", "missing", "the submitter has no results/ "
                                  "directory (the unified checker crashes)");
                free(rel);
                free(rabs);
                us->skip = 1;
                continue;
            }
            if (!strcmp(div, "open")) {
                char *mabs = ck_join(us->sub.abs, "model_mapping.json");
                if (mabs && ck_pexists(mabs)) {
                    json_error_t je;
                    json_t *j = ms_json_load_path(mabs, 0, &je);
                    char *rel = ck_fmt("%s/%s/model_mapping.json", div, se->name);
                    if (!json_is_object(j)) {
                        ck_report_finding(run, &us->f, &w, CK_ID(M7), CK_SEV_ERROR, rel, j ? 0 : je.line,
                                          NULL, "a JSON object", j ? "another JSON value" : je.text,
                                          "cannot use the model mapping (the unified checker "
                                          "crashes)");
                        json_decref(j);
                        us->skip = 1;
                    } else {
                        us->sub.mapping = j;
                        ms_jschema_errors errs = {0};
                        ms_err e2;
                        if (run->map_schema &&
                            ms_jschema_validate(run->map_schema, j, &errs, 20, &e2) == 0)
                            for (size_t i = 0; i < errs.n; i++)
                                ck_report_finding(run, &us->f, &w, CK_ID(M7), CK_SEV_WARNING, rel, 0,
                                                  errs.v[i].pointer, NULL, NULL, "%s (%s)",
                                                  errs.v[i].message, errs.v[i].keyword);
                        ms_jschema_errors_free(&errs);
                    }
                    free(rel);
                }
                free(mabs);
            }
            ck_dir rd;
            if (us->skip || ck_dir_read(&rd, rabs)) {
                free(rabs);
                continue;
            }
            for (size_t yi = 0; yi < rd.n; yi++) {
                const ck_entry *ye = &rd.v[yi];
                if (!ye->is_dir)
                    continue;
                CK_GROW(pl->syss, pl->nsyss, pl->capsyss);
                ck_psystem *uy = &pl->syss[pl->nsyss++];
                us->n++;
                uy->sys.name = strdup(ye->name);
                uy->sys.json_rel = ck_fmt("%s/%s/systems/%s.json", div, se->name, ye->name);
                char *jabs = uy->sys.json_rel ? ck_join(run->root, uy->sys.json_rel) : NULL;
                if (!uy->sys.name || !jabs) {
                    free(jabs);
                    ck_dir_free(&rd);
                    free(rabs);
                    ck_dir_free(&dd);
                    free(dabs);
                    goto oom;
                }
                if (!ck_presys_take(pl, div, se->name, &uy->sys))
                    ck_check_system(run, &uy->sys, div, se->name, jabs);
                free(jabs);
                uy->first = pl->nmodels;
                char *yabs = ck_join(rabs, ye->name);
                ck_dir md;
                if (!yabs || ck_dir_read(&md, yabs)) {
                    free(yabs);
                    continue;
                }
                for (size_t mi = 0; mi < md.n; mi++) {
                    const ck_entry *me = &md.v[mi];
                    if (!me->is_dir)
                        continue;
                    CK_GROW(pl->models, pl->nmodels, pl->capmodels);
                    ck_pmodel *um = &pl->models[pl->nmodels++];
                    uy->n++;
                    um->dir = strdup(me->name);
                    um->ok = 1;
                    um->first = pl->nscens;
                    if (!um->dir)
                        goto oom_all;
                    um->mlperf = ru_map_model(r->j, um->dir, us->sub.mapping, r->sw.extra_model_map_inline);
                    char *mabs = ck_join(yabs, me->name);
                    ck_dir sd;
                    if (!mabs || ck_dir_read(&sd, mabs)) {
                        free(mabs);
                        continue;
                    }
                    if (strcmp(div, "open"))
                        check_scenario_set(run, um, &uy->sys, div, se->name, &sd);
                    for (size_t ci = 0; ci < sd.n; ci++) {
                        const ck_entry *ce = &sd.v[ci];
                        if (!ce->is_dir)
                            continue;
                        CK_GROW(pl->scens, pl->nscens, pl->capscens);
                        ck_scen *s = &pl->scens[pl->nscens++];
                        um->n++;
                        s->rel = ck_fmt("%s/%s/results/%s/%s/%s", div, se->name, ye->name,
                                        me->name, ce->name);
                        s->abs = ck_join(mabs, ce->name);
                        if (!s->rel || !s->abs) {
                            ck_dir_free(&sd);
                            free(mabs);
                            goto oom_all;
                        }
                        s->scen_dir = strrchr(s->rel, '/') + 1;
                        s->scen_fixed = s->scen_dir; /* the unified checker keeps the raw name */
                        s->closed = strcmp(div, "open") != 0;
                        s->open = !s->closed;
                    }
                    ck_dir_free(&sd);
                    free(mabs);
                }
                ck_dir_free(&md);
                free(yabs);
                continue;
            oom_all:
                ck_dir_free(&md);
                free(yabs);
                ck_dir_free(&rd);
                free(rabs);
                ck_dir_free(&dd);
                free(dabs);
                goto oom;
            }
            ck_dir_free(&rd);
            free(rabs);
        }
        ck_dir_free(&dd);
        free(dabs);
    }
    return MS_OK;
oom:
    return ms_err_oom(e);
}

/* -------------------------------------------------------------------- CSV ---- */

static int qf(ms_buf *b, const char *s, int first)
{
    return (!first && ms_buf_putc(b, ',')) || ms_buf_putc(b, '"') || ms_buf_puts(b, s ? s : "") ||
           ms_buf_putc(b, '"');
}

static int qj(ms_buf *b, const json_t *v)
{
    return ms_buf_puts(b, ",\"") || ms_py_str_json(b, v) || ms_buf_putc(b, '"');
}

/* Python int() of a JSON value (str, int, float); -1 on failure */
static int py_int(const json_t *v, long long *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 0;
    }
    if (json_is_real(v)) {
        *out = (long long)json_real_value(v);
        return 0;
    }
    if (json_is_true(v) || json_is_false(v)) {
        *out = json_is_true(v);
        return 0;
    }
    if (!json_is_string(v))
        return -1;
    const char *s = json_string_value(v);
    while (isspace((unsigned char)*s))
        s++;
    char buf[64];
    size_t n = 0;
    if (*s == '+' || *s == '-')
        buf[n++] = *s++;
    int digits = 0;
    for (; *s && n < sizeof buf - 1; s++) {
        if (isdigit((unsigned char)*s)) {
            buf[n++] = *s;
            digits++;
        } else if (*s == '_' && digits && isdigit((unsigned char)s[1])) {
            continue;
        } else {
            break;
        }
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s || !digits)
        return -1;
    buf[n] = '\0';
    *out = strtoll(buf, NULL, 10);
    return 0;
}

static char *unified_row(ck_state *run, const ck_scen *s, const char *location, int power_row,
                         long long total_acc, const char *design, const char *pid)
{
    const ck_rules *r = &run->rules;
    const json_t *j = s->sys->j;
    const char *canon = ru_scenario_canon(r->j, s->scen_dir);
    const char *cs = canon ? canon : s->scen_dir;
    const char *unit, *punit;
    char result[64], total[32];
    ck_row_unit_result(r, s, cs, power_row, &unit, &punit, result);
    snprintf(total, sizeof total, "%lld", total_acc);
    ms_buf notes = MS_BUF_INIT;
    const json_t *hw = json_object_get(j, "hw_notes"), *sw = json_object_get(j, "sw_notes");
    ms_py_str_json(&notes, hw ? hw : json_string(""));
    if (!hw)
        ms_buf_reset(&notes);
    if (ms_py_truthy(sw)) {
        int had = ms_py_truthy(hw);
        ms_buf_reset(&notes);
        if (had) {
            ms_py_str_json(&notes, hw);
            ms_buf_puts(&notes, ". ");
        }
        ms_py_str_json(&notes, sw);
    }
    int inferred = s->effective_scenario && strcmp(s->scen_dir, s->effective_scenario) != 0;
    ms_buf b = MS_BUF_INIT;
    int rc = qf(&b, s->submitter, 1) || qj(&b, json_object_get(j, "status")) ||
             qf(&b, s->division, 0) || qj(&b, json_object_get(j, "system_type")) ||
             qj(&b, json_object_get(j, "system_name")) || qf(&b, s->system, 0) ||
             qf(&b, s->model_dir, 0) || qf(&b, s->mlperf_model, 0) || qf(&b, s->scen_dir, 0) ||
             qf(&b, result, 0) || qf(&b, s->acc_str, 0) ||
             qj(&b, json_object_get(j, "number_of_nodes")) ||
             qj(&b, json_object_get(j, "host_processor_model_name")) ||
             qj(&b, json_object_get(j, "host_processors_per_node")) ||
             qj(&b, json_object_get(j, "host_processor_core_count")) ||
             qj(&b, json_object_get(j, "accelerator_model_name")) ||
             qj(&b, json_object_get(j, "accelerators_per_node")) || qf(&b, total, 0) ||
             qf(&b, location, 0) || qj(&b, json_object_get(j, "framework")) ||
             qj(&b, json_object_get(j, "operating_system")) || qf(&b, notes.data, 0) ||
             qf(&b, s->division, 0) || qf(&b, "0", 0) || qf(&b, r->version, 0) ||
             qf(&b, inferred ? "1" : "0", 0) || qf(&b, s->has_power ? "True" : "False", 0) ||
             qf(&b, power_row ? punit : unit, 0) || qj(&b, s->weight_data_types) ||
             qf(&b, design, 0) || qf(&b, pid ? pid : "", 0);
    ms_buf_free(&notes);
    if (rc) {
        ms_buf_free(&b);
        return NULL;
    }
    return ms_buf_steal(&b);
}

/* W6 (v6.1): the design (nameplate) power of a system with power results, evaluated once per
 * system when its first power result is booked: system_power_capacity from the system JSON when
 * the key is present (its value as str() prints it), else systems/<sys>_power.yaml (nameplate.c).
 * An unreadable YAML fails the system's power results; no YAML is a warning (None). */
static void design_power(ck_state *run, ck_system *sys, const ck_scen *s)
{
    if (sys->np_done)
        return;
    sys->np_done = 1;
    sys->np_ok = 1;
    ck_where w = {s->division, s->submitter, s->system, NULL, NULL};
    const json_t *cap = json_object_get(sys->j, "system_power_capacity");
    if (cap) {
        ms_buf b = MS_BUF_INIT;
        if (ms_py_str_json(&b, cap) == 0 && (b.data || ms_buf_puts(&b, "") == 0))
            sys->np_text = ms_buf_steal(&b);
        else
            run->oom = 1;
        ms_buf_free(&b);
        return;
    }
    const char *tpl = json_string_value(ck_rget(&run->rules, "nameplate_power_path"));
    char *yrel = ck_fmt("%s/%s/%s", s->division, s->submitter, tpl ? tpl : "systems/{system}_power.yaml");
    char *at = yrel ? strstr(yrel, "{system}") : NULL;
    char *yrel2 = at ? ck_fmt("%.*s%s%s", (int)(at - yrel), yrel, s->system, at + 8) : NULL;
    char *yabs = yrel2 ? ck_join(run->root, yrel2) : NULL;
    if (!yabs) {
        run->oom = 1;
    } else if (!ck_pexists(yabs)) {
        ck_report_finding(run, &run->findings, &w, CK_ID(W6), CK_SEV_WARNING, yrel2, 0, NULL,
                          "system_power_capacity or a nameplate YAML", "none",
                          "%s has power results but no nameplate power YAML (%s) and no "
                          "system_power_capacity; design_power_watts is None", s->system, yrel2);
    } else {
        char err[300];
        if (ck_nameplate_yaml(yabs, &sys->np_text, err, sizeof err)) {
            if (ck_report_finding(run, &run->findings, &w, CK_ID(W6), CK_SEV_ERROR, yrel2, 0, NULL,
                                  "a readable nameplate power YAML", err,
                                  "the nameplate power YAML exists but cannot be read: %s", err))
                sys->np_ok = 0;
        }
    }
    free(yrel);
    free(yrel2);
    free(yabs);
}

/* --private-ids: results/<sys>/privateid.json ({"<sys>": "<id>"}), else an ID derived from the
 * SHA-256 of the system name (adjective-noun-xxxx), written into the tree like the reference. */
static char *private_id(ck_state *run, const ck_scen *s)
{
    char *rel = ck_fmt("%s/%s/results/%s/privateid.json", s->division, s->submitter, s->system);
    char *abs = rel ? ck_join(run->root, rel) : NULL;
    char *id = NULL;
    if (!abs)
        goto out;
    json_error_t je;
    json_t *j = ms_json_load_path(abs, 0, &je);
    const char *v = json_string_value(json_object_get(j, s->system));
    if (v)
        id = strdup(v);
    json_decref(j);
    if (id)
        goto out;
    char hex[MS_HASH_HEX_MAX];
    ms_err e;
    if (ms_hash_mem("sha256", s->system, strlen(s->system), hex, &e))
        goto out;
    unsigned b[4];
    for (int i = 0; i < 4; i++)
        sscanf(hex + 2 * i, "%2x", &b[i]);
    const json_t *words = ck_rget(&run->rules, "private_id_words");
    const char *adj = json_string_value(json_array_get(json_object_get(words, "adjectives"), b[0] % 64));
    const char *noun = json_string_value(json_array_get(json_object_get(words, "nouns"), b[1] % 64));
    id = ck_fmt("%s-%s-%02x%02x", adj ? adj : "x", noun ? noun : "x", b[2], b[3]);
    if (id) {
        /* like json.dump(..., indent=4) */
        json_t *o = json_pack("{s:s}", s->system, id);
        char *txt = o ? json_dumps(o, JSON_INDENT(4)) : NULL;
        if (txt && ms_write_file_atomic(abs, txt, strlen(txt), &e) == 0)
            ck_add_note(run, "%s: private ID %s generated and saved (--private-ids)", rel, id);
        free(txt);
        json_decref(o);
    }
out:
    free(rel);
    free(abs);
    return id;
}

/* ------------------------------------------------------------ bookkeeping ---- */

static int counting(const ck_state *run, const ck_flist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const ck_finding *f = &l->v[i];
        if (!f->waived && (f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict)))
            return 1;
    }
    return 0;
}

static void bookkeeping(uplan *pl)
{
    ck_state *run = pl->run;
    const char *root = run->root;
    size_t rl = strlen(root);
    int slash = rl && root[rl - 1] == '/';
    for (size_t si = 0; si < pl->nsubs; si++) {
        ck_psub *us = &pl->subs[si];
        int walk_bad = counting(run, &us->sub.walk);  /* only under --strict */
        ck_flist_move(&run->findings, &us->f);
        ck_flist_move(&run->findings, &us->sub.walk);
        if (us->skip) {
            char *k = ck_fmt("%s%s%s/%s", root, slash ? "" : "/", us->sub.division, us->sub.name);
            if (k)
                ck_key_set(run, k, NULL, 0);
            free(k);
            continue;
        }
        for (size_t yi = us->first; yi < us->first + us->n; yi++) {
            ck_psystem *uy = &pl->syss[yi];
            ck_flist_move(&run->findings, &uy->sys.findings);
            for (size_t mi = uy->first; mi < uy->first + uy->n; mi++) {
                ck_pmodel *um = &pl->models[mi];
                ck_flist_move(&run->findings, &um->f);
                for (size_t ci = um->first; ci < um->first + um->n; ci++) {
                    ck_scen *s = &pl->scens[ci];
                    char *loc = ck_fmt("%s%s%s/performance/run_1", root, slash ? "" : "/", s->rel);
                    char *key = loc ? ck_fmt("%s/mlperf_log_detail.txt", loc) : NULL;
                    if (!key) {
                        free(loc);
                        run->oom = 1;
                        return;
                    }
                    long kidx = ck_key_set(run, key, NULL, 0);
                    for (size_t i = 0; i < s->f.n; i++)
                        s->f.v[i].key = kidx;
                    int design_on = json_is_true(ck_rget(&run->rules, "csv_design_power"));
                    if (design_on && s->has_power && s->sys->j)
                        design_power(run, &uy->sys, s);
                    int ok = uy->sys.ok && um->ok && !walk_bad && s->meas_ok && s->acc_ok &&
                             s->perf_ok && s->power_ok && s->comp_ok &&
                             !(design_on && s->has_power && !uy->sys.np_ok);
                    long long na = 0, npn = 0;
                    if (ok && s->sys->j) {
                        if (py_int(json_object_get(s->sys->j, "number_of_nodes"), &na) ||
                            py_int(json_object_get(s->sys->j, "accelerators_per_node"), &npn)) {
                            ck_report_finding(run, &s->f,
                                              &(ck_where){s->division, s->submitter, s->system,
                                                          s->model_dir, s->scen_dir},
                                              CK_ID(Y9), CK_SEV_ERROR, s->sys->json_rel, 0, NULL,
                                              "integers (or integer strings)", "another value",
                                              "number_of_nodes and accelerators_per_node must be "
                                              "integers for total_accelerators (the unified "
                                              "checker crashes)");
                            ok = 0;
                        }
                    }
                    ck_flist_move(&run->findings, &s->f);
                    if (ok) {
                        const char *design = "";
                        if (design_on)
                            design = s->has_power && uy->sys.np_text ? uy->sys.np_text : "None";
                        char *pid = run->o->private_ids ? private_id(run, s) : NULL;
                        ck_key_set(run, key, s->value.text, s->value.d != 0);
                        ck_count_add(run, s->division, s->system, s->has_power);
                        ck_row_add(run, unified_row(run, s, loc, 0, na * npn, design, pid), kidx);
                        if (s->has_power)
                            ck_row_add(run, unified_row(run, s, loc, 1, na * npn, design, pid), kidx);
                        free(pid);
                    }
                    free(key);
                    free(loc);
                }
            }
        }
    }
}

static void uplan_free_late(void *pl)
{
    ck_plan_free(pl);
    free(pl);
}

int ck_run_unified(ck_state *run, ms_err *e)
{
    uplan pl;
    memset(&pl, 0, sizeof pl);
    pl.run = run;
    ck_timings *t = &run->timings;
    double t0 = ck_now_ms();
    int rc = plan_tree(&pl, e);
    t->plan_ms += ck_now_ms() - t0 - t->systems_ms;
    if (rc == MS_OK) {
        ck_plan_run_tasks(&pl);
        t0 = ck_now_ms();
        bookkeeping(&pl);
        t->bookkeeping_ms += ck_now_ms() - t0;
    }
    /* freed once the check is over (ck_defer_free); in place without memory for a copy */
    t0 = ck_now_ms();
    uplan *late = malloc(sizeof *late);
    if (late) {
        *late = pl;
        ck_defer_free(run, uplan_free_late, late);
    } else {
        ck_plan_free(&pl);
    }
    t->free_ms += ck_now_ms() - t0;
    return rc;
}
