/* The legacy profile (v5.x): the traversal and bookkeeping of the v5.1 MLCommons checker
 * (submission_checker.py check_results_dir): plan the tree (sequential, directory listings and system descriptions),
 * run the submitter walks and the scenario tasks in parallel, then replay the reference's loop
 * in order to set result keys, counters and summary.csv rows.
 * Deviation: directories are visited in byte-wise sorted order, so the `errors` column depends
 * on that order rather than on os.listdir's. The M6 key (a result nulled because neither Server
 * nor Interactive passed) is taken in os.listdir's order, as the reference's (ck_entry.listing_pos):
 * it changes the Results/NoResults counts. */
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"
#include "common/pyfmt.h"

typedef struct lg_div {
    char *name;
    int s2_stop;                /* S2 fired here: stop the traversal */
    int s3;
    size_t first, n;            /* submitters */
    ck_flist f;
} lg_div;

/* the shared plan, with the legacy divisions (and root findings) above the submitters */

typedef struct plan {
    ck_plan p;
    ck_state *run;
    lg_div *divs;
    size_t ndivs;
    ck_flist root_f;
    struct col_spec *cols;     /* the CSV columns' kinds and quoting (bookkeeping; NULL: none) */
    struct row_job *rows;      /* the summary.csv rows bookkeeping decided on, in order */
    size_t nrows, caprows;
} plan;

/* A summary.csv row to format: bookkeeping decides the rows in order, they are then formatted
 * on every core (formatting was most of bookkeeping's serial time) and added in that order */
typedef struct row_job {
    const ck_scen *s;
    int errors, compliance, power_row;
    long key;
    char *text, *reader;
} row_job;


static int in_skip_list(const ck_state *run, const char *scen)
{
    for (size_t i = 0; i < run->o->nscenarios_to_skip; i++)
        if (!strcmp(run->o->scenarios_to_skip[i], scen))
            return 1;
    return 0;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* S10 and S11 for a submitter (cheap: directory listings) */
static void check_s10_s11(ck_state *run, ck_psub *ls, const char *div, const char *sub,
                          const ck_dir *results)
{
    ck_where w = {div, sub, NULL, NULL, NULL};
    if (!ck_skipped(run, CK_ID(S10)) && run->rules.sw.systems_results_check) {
        const char *names[2] = {"measurements", "systems"};
        for (int k = 0; k < 2; k++) {
            char *p = ck_join(ls->sub.abs, names[k]);
            ck_dir d;
            if (p && ck_dir_read(&d, p) == 0) {
                for (size_t i = 0; i < d.n; i++) {
                    const ck_entry *en = &d.v[i];
                    char *base = NULL;
                    if (k == 0 && en->is_dir)
                        base = strdup(en->name);
                    else if (k == 1 && en->is_file && ends_with(en->name, ".json"))
                        base = strndup(en->name, strlen(en->name) - 5);
                    if (!base)
                        continue;
                    int found = 0;
                    for (size_t r = 0; r < results->n && !found; r++)
                        found = results->v[r].is_dir && !strcmp(results->v[r].name, base);
                    if (!found) {
                        char *rel = ck_fmt("%s/%s/%s/%s", div, sub, names[k], en->name);
                        ck_report_finding(run, &ls->f, &w, CK_ID(S10), CK_SEV_ERROR, rel, 0, NULL,
                                          "a results/ directory of the same name", "none",
                                          k == 0 ? "%s/%s/measurements has the following "
                                                   "directories with no results: ['%s']"
                                                 : "%s/%s/systems has the following files with "
                                                   "no results: ['%s']",
                                          div, sub, base);
                        free(rel);
                    }
                    free(base);
                }
                ck_dir_free(&d);
            }
            free(p);
        }
    }
    if ((!strcmp(div, "closed") || !strcmp(div, "network")) && !ck_skipped(run, CK_ID(S11)) &&
        run->rules.sw.calibration_doc_required) {
        char *a = ck_join(ls->sub.abs, "calibration.md");
        char *b = ck_join3(ls->sub.abs, "documentation", "calibration.md");
        if (a && b && !ck_pexists(a) && !ck_pexists(b)) {
            char *rel = ck_fmt("%s/%s/documentation/calibration.md", div, sub);
            ck_report_finding(run, &ls->f, &w, CK_ID(S11), CK_SEV_ERROR, rel, 0, NULL,
                              "calibration.md or documentation/calibration.md", "none",
                              "%s/%s: has not calibration file. One of %s/%s/calibration.md or "
                              "%s/%s/documentation/calibration.md is required",
                              div, sub, div, sub, div, sub);
            free(rel);
        }
        free(a);
        free(b);
    }
}

/* model_mapping.json (open division) */
/* extra_model_map_inline (v1.0-v2.1): --extra-model-benchmark-map "name:model;name:model"
 * (Config.set_extra_model_benchmark_map), for every submitter; no model_mapping.json */
static int inline_mapping(ck_state *run, ck_psub *ls, const char *div, const char *sub)
{
    const char *m = run->o->extra_model_benchmark_map;
    if (!m)
        return 1;
    json_t *j = json_object();
    char *copy = strdup(m);
    if (!j || !copy) {
        json_decref(j);
        free(copy);
        run->oom = 1;
        return 0;
    }
    int ok = 1;
    char *save = NULL;
    for (char *item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        char *colon = strchr(item, ':');
        if (!colon || strchr(colon + 1, ':')) {
            ck_where w = {div, sub, NULL, NULL, NULL};
            if (ck_report_finding(run, &ls->f, &w, CK_ID(M7), CK_SEV_ERROR, NULL, 0, NULL,
                                  "name:model pairs separated by ';'", item,
                                  "--extra-model-benchmark-map: '%s' is not a name:model pair "
                                  "(the MLCommons checker crashes)", item))
                ok = 0;
            continue;
        }
        *colon = '\0';
        json_object_set_new(j, item, json_string(colon + 1));
    }
    free(copy);
    ls->sub.mapping = j;
    return ok;
}

static int load_mapping(ck_state *run, ck_psub *ls, const char *div, const char *sub)
{
    if (run->rules.sw.extra_model_map_inline)
        return inline_mapping(run, ls, div, sub);
    const char *name = run->o->extra_model_benchmark_map ? run->o->extra_model_benchmark_map
                                                          : "model_mapping.json";
    char *abs = ck_join(ls->sub.abs, name);
    char *rel = ck_fmt("%s/%s/%s", div, sub, name);
    ck_where w = {div, sub, NULL, NULL, NULL};
    int ok = 1;
    if (abs && rel && ck_pexists(abs)) {
        json_error_t je;
        json_t *j = ms_json_load_path(abs, 0, &je);
        if (!j || !json_is_object(j)) {
            if (ck_report_finding(run, &ls->f, &w, CK_ID(M7), CK_SEV_ERROR, rel, j ? 0 : je.line, NULL,
                                  "a JSON object", j ? "another JSON value" : je.text,
                                  "cannot use the model mapping: %s (the MLCommons checker "
                                  "crashes)", j ? "not a JSON object" : je.text))
                ok = 0;
            json_decref(j);
        } else {
            ls->sub.mapping = j;
            ms_jschema_errors errs = {0};
            ms_err e;
            if (run->map_schema && ms_jschema_validate(run->map_schema, j, &errs, 20, &e) == 0)
                for (size_t i = 0; i < errs.n; i++)
                    ck_report_finding(run, &ls->f, &w, CK_ID(M7), CK_SEV_WARNING, rel, 0,
                                      errs.v[i].pointer, NULL, NULL, "%s (%s)", errs.v[i].message,
                                      errs.v[i].keyword);
            ms_jschema_errors_free(&errs);
            const char *k;
            json_t *v;
            json_object_foreach(j, k, v) {
                const char *m = json_string_value(v);
                if (m && !ck_rlist_has(&run->rules, "models", m)) {
                    char *ptr = ms_json_pointer_append("", k);
                    ck_report_finding(run, &ls->f, &w, CK_ID(M7), CK_SEV_WARNING, rel, 0, ptr,
                                      "a model of the round", m,
                                      "%s maps to '%s', which is not a %s model", k, m,
                                      run->rules.version);
                    free(ptr);
                }
            }
        }
    }
    free(abs);
    free(rel);
    return ok;
}

static int plan_tree(plan *pl, ms_err *e)
{
    ck_state *run = pl->run;
    const ck_rules *r = &run->rules;
    size_t capd = 0;
    ck_dir root;
    if (ck_dir_read(&root, run->root))
        return ms_err_errno(e, MS_EINPUT, root.err, "%s: cannot read", run->root);
    /* S2 candidates */
    ms_buf bad = MS_BUF_INIT;
    int nbad = 0;
    for (size_t i = 0; i < root.n; i++)
        if (root.v[i].is_file && !ends_with(root.v[i].name, ".md") &&
            !ends_with(root.v[i].name, ".pdf"))
            ms_buf_printf(&bad, "%s'%s'", nbad++ ? ", " : "", root.v[i].name);
    if (!nbad) { /* (S2 stops everything: nothing to check ahead) */
        /* check_s10_s11 lists each submitter's measurements/ and systems/ */
        static const char *const s10_dirs[] = {"measurements", "systems", NULL};
        if (!ck_skipped(run, CK_ID(S10)) && run->rules.sw.systems_results_check)
            pl->p.sub_prefetch = s10_dirs;
        for (size_t di = 0; di < root.n; di++)
            if (root.v[di].is_dir && ck_rlist_has(r, "valid_divisions", root.v[di].name))
                ck_presys_division(&pl->p, root.v[di].name);
        ck_presys_run(&pl->p);
    }
    int stopped = 0;
    for (size_t di = 0; di < root.n && !stopped; di++) {
        const ck_entry *de = &root.v[di];
        if (!de->is_dir)
            continue;
        if (!ck_rlist_has(r, "valid_divisions", de->name)) {
            if (!ck_rlist_has(r, "ignored_root_dirs_without_error", de->name))
                ck_report_finding(run, &pl->root_f, NULL, CK_ID(S1), CK_SEV_WARNING, de->name, 0, NULL,
                                  "closed, open or network", de->name,
                                  "invalid division in input dir %s", de->name);
            continue;
        }
        CK_GROW(pl->divs, pl->ndivs, capd);
        lg_div *ld = &pl->divs[pl->ndivs++];
        ld->name = strdup(de->name);
        if (!ld->name)
            goto oom;
        ld->first = pl->p.nsubs;
        if (nbad && ck_report_finding(run, &ld->f, NULL, CK_ID(S2), CK_SEV_ERROR, NULL, 0, NULL,
                                      "only *.md and *.pdf files at the root", bad.data,
                                      "Root contains files outside division folder: [%s]; "
                                      "nothing is checked", bad.data)) {
            ld->s2_stop = 1;
            stopped = 1;
            break;
        }
        nbad = 0;  /* reported (waived) once */
        char *dabs = ck_join(run->root, de->name);
        ck_dir dd;
        if (!dabs || ck_dir_read(&dd, dabs)) {
            free(dabs);
            continue;
        }
        ms_buf files = MS_BUF_INIT;
        int nf = 0;
        for (size_t i = 0; i < dd.n; i++)
            if (!dd.v[i].is_dir)
                ms_buf_printf(&files, "%s'%s'", nf++ ? ", " : "", dd.v[i].name);
        if (nf) {
            ck_where w = {de->name, NULL, NULL, NULL, NULL};
            ld->s3 = ck_report_finding(run, &ld->f, &w, CK_ID(S3), CK_SEV_ERROR, de->name, 0, NULL,
                                       "only submitter directories", files.data,
                                       "%s contains files outside submitter folder [%s]",
                                       de->name, files.data);
        }
        ms_buf_free(&files);
        for (size_t si = 0; si < dd.n && !ld->s3; si++) {
            const ck_entry *se = &dd.v[si];
            if (!se->is_dir)
                continue;
            if (run->o->submitter && strcmp(run->o->submitter, se->name))
                continue;
            char *sabs = ck_join(dabs, se->name);
            char *rabs = sabs ? ck_join(sabs, "results") : NULL;
            /* check_results_dir of tag v0.7.1 counts a submitter without results/ ("no
             * submission in", results[results_path] = None); later tags skip it */
            int nores = rabs && !ck_pexists(rabs) && run->rules.sw.submitter_without_results;
            if (!nores && (!rabs || !ck_pexists(rabs))) {
                free(sabs);
                free(rabs);
                continue;
            }
            CK_GROW(pl->p.subs, pl->p.nsubs, pl->p.capsubs);
            ck_psub *ls = &pl->p.subs[pl->p.nsubs++];
            ls->sub.division = strdup(de->name);
            ls->sub.name = strdup(se->name);
            ls->sub.abs = sabs;
            ls->first = pl->p.nsyss;
            if (!ls->sub.division || !ls->sub.name) {
                free(rabs);
                goto oom;
            }
            if (nores) {
                free(rabs);
                ls->skip = ls->no_results = 1;
                char *rel = ck_fmt("%s/%s/results", de->name, se->name);
                if (!rel)
                    goto oom;
                ck_where w = {de->name, se->name, NULL, NULL, NULL};
                ck_report_finding(run, &ls->f, &w, CK_ID(S14), CK_SEV_ERROR, rel, 0, NULL,
                                  "a results/ directory", "none", "no submission in %s", rel);
                free(rel);
                continue;
            }
            if ((!strcmp(de->name, "open") || run->rules.sw.extra_model_map_inline) &&
                !load_mapping(run, ls, de->name, se->name))
                ls->skip = 1;
            ck_dir rd;
            if (ck_dir_read(&rd, rabs)) {
                free(rabs);
                ls->n = 0;
                continue;
            }
            check_s10_s11(run, ls, de->name, se->name, &rd);
            for (size_t yi = 0; yi < rd.n && !ls->skip; yi++) {
                const ck_entry *ye = &rd.v[yi];
                if (!ye->is_dir)
                    continue;
                CK_GROW(pl->p.syss, pl->p.nsyss, pl->p.capsyss);
                ck_psystem *ly = &pl->p.syss[pl->p.nsyss++];
                ly->sys.name = strdup(ye->name);
                ly->sys.json_rel = ck_fmt("%s/%s/systems/%s.json", de->name, se->name, ye->name);
                if (!ly->sys.name || !ly->sys.json_rel)
                    goto oom_rd;
                char *jabs = ck_join(run->root, ly->sys.json_rel);
                if (!jabs)
                    goto oom_rd;
                if (!ck_presys_take(&pl->p, de->name, se->name, &ly->sys))
                    ck_check_system(run, &ly->sys, de->name, se->name, jabs);
                free(jabs);
                ly->first = pl->p.nmodels;
                if (!ly->sys.ok && !(r->sw.bad_system_keeps_models && ly->sys.walkable))
                    continue;
                char *yabs = ck_join(rabs, ye->name);
                ck_dir md;
                if (!yabs || ck_dir_read(&md, yabs)) {
                    free(yabs);
                    continue;
                }
                int closed = strcmp(de->name, "open") != 0;
                for (size_t mi = 0; mi < md.n; mi++) {
                    const ck_entry *me = &md.v[mi];
                    if (!me->is_dir)
                        continue;
                    CK_GROW(pl->p.models, pl->p.nmodels, pl->p.capmodels);
                    ck_pmodel *lm = &pl->p.models[pl->p.nmodels++];
                    ly->n++;
                    lm->dir = strdup(me->name);
                    if (!lm->dir) {
                        ck_dir_free(&md);
                        free(yabs);
                        goto oom_rd;
                    }
                    lm->mlperf = ru_map_model(r->j, lm->dir, ls->sub.mapping, r->sw.extra_model_map_inline);
                    lm->first = pl->p.nscens;
                    ck_where w = {de->name, se->name, ye->name, me->name, NULL};
                    char *mrel = ck_fmt("%s/%s/results/%s/%s", de->name, se->name, ye->name,
                                        me->name);
                    if (closed && !ck_rlist_has(r, "models", lm->mlperf) &&
                        ck_report_finding(run, &lm->f, &w, CK_ID(M2), CK_SEV_ERROR, mrel, 0, NULL,
                                          "a model of the round", me->name,
                                          "%s has an invalid model %s for closed/network division",
                                          mrel, me->name)) {
                        lm->m2 = 1;
                        free(mrel);
                        continue;
                    }
                    lm->req = ck_required(r, ly->sys.category, lm->mlperf);
                    lm->opt = ck_optional(r, ly->sys.category, lm->mlperf);
                    if (!lm->req) {
                        /* even waived, there is no scenario table to check against */
                        ck_report_finding(run, &lm->f, &w, CK_ID(M3), CK_SEV_ERROR, mrel, 0, NULL,
                                          "a model with scenarios for this system type",
                                          lm->mlperf, "%s has an invalid model %s, system_type=%s",
                                          mrel, lm->mlperf, ly->sys.category);
                        lm->m3 = 1;
                        free(mrel);
                        continue;
                    }
                    char *mabs = ck_join(yabs, me->name);
                    ck_dir sd;
                    if (!mabs || ck_dir_read(&sd, mabs)) {
                        free(mabs);
                        free(mrel);
                        continue;
                    }
                    for (size_t ci = 0; ci < sd.n; ci++) {
                        const ck_entry *ce = &sd.v[ci];
                        if (!ce->is_dir || in_skip_list(run, ce->name))
                            continue;
                        CK_GROW(pl->p.scens, pl->p.nscens, pl->p.capscens);
                        ck_scen *s = &pl->p.scens[pl->p.nscens++];
                        lm->n++;
                        s->division = ls->sub.division;
                        s->submitter = ls->sub.name;
                        s->system = ly->sys.name;
                        s->model_dir = lm->dir;
                        s->scen_dir = NULL;
                        s->rel = ck_fmt("%s/%s", mrel, ce->name);
                        s->abs = ck_join(mabs, ce->name);
                        if (!s->rel || !s->abs) {
                            ck_dir_free(&sd);
                            free(mabs);
                            free(mrel);
                            ck_dir_free(&md);
                            free(yabs);
                            goto oom_rd;
                        }
                        s->scen_dir = strrchr(s->rel, '/') + 1;
                        s->listing_pos = ce->listing_pos;
                        s->mlperf_model = lm->mlperf;
                        const char *canon = ru_scenario_canon(r->j, s->scen_dir);
                        s->scen_fixed = canon ? canon : s->scen_dir;
                        s->closed = closed;
                        s->open = !closed;
                        s->sys = &ly->sys;
                        s->sub = &ls->sub;
                        if ((closed || r->sw.scenario_check_open) &&
                            !ck_jlist_has(lm->req, s->scen_fixed) &&
                            !ck_jlist_has(lm->opt, s->scen_fixed)) {
                            ck_where sw = {de->name, se->name, ye->name, me->name, s->scen_dir};
                            s->skip_task = ck_report_finding(
                                run, &s->f, &sw, CK_ID(M4), CK_SEV_ERROR, s->rel, 0, NULL,
                                "a required or optional scenario", s->scen_dir,
                                "%s ignoring scenario %s (neither required nor optional)", s->rel,
                                s->scen_dir);
                        }
                    }
                    ck_dir_free(&sd);
                    free(mabs);
                    free(mrel);
                }
                ck_dir_free(&md);
                free(yabs);
            }
            ck_dir_free(&rd);
            free(rabs);
            ls->n = pl->p.nsyss - ls->first;
            continue;
        oom_rd:
            ck_dir_free(&rd);
            free(rabs);
            goto oom;
        }
        ld->n = pl->p.nsubs - ld->first;
        ck_dir_free(&dd);
        free(dabs);
    }
    ms_buf_free(&bad);
    ck_dir_free(&root);
    return MS_OK;
oom:
    ms_buf_free(&bad);
    ck_dir_free(&root);
    return ms_err_oom(e);
}

/* ---------------------------------------------------------------- CSV ---- */

static int put_field(ms_buf *b, const char *text, int quoted, int first)
{
    return (!first && ms_buf_putc(b, ',')) || (quoted && ms_buf_putc(b, '"')) ||
           ms_buf_puts(b, text ? text : "") || (quoted && ms_buf_putc(b, '"'));
}

static int truthy_power_only(const json_t *v)
{
    if (json_is_string(v))
        return !strcasecmp(json_string_value(v), "true");
    if (json_is_boolean(v))
        return json_is_true(v);
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    return 0;
}

/* the columns of summary.csv by the names the rounds' checkers gave them (log_result of
 * check_results_dir): csv_header_legacy lists a round's columns in order, csv_quoted_columns_legacy
 * those the checker wrapped in double quotes */
enum col_kind {
    COL_ORG, COL_AVAIL, COL_DIV, COL_SYSTYPE, COL_SYSNAME, COL_PLATFORM, COL_MODEL, COL_MLMODEL,
    COL_SCEN, COL_RESULT, COL_ACC, COL_NODES, COL_HOSTPROC, COL_HOSTPPN, COL_HOSTCORES, COL_ACCEL,
    COL_ACCPN, COL_LOC, COL_FW, COL_OS, COL_NOTES, COL_COMPLIANCE, COL_ERRORS, COL_VERSION,
    COL_INFERRED, COL_HAS_POWER, COL_POWER, COL_UNITS, COL_WDT, COL_UNKNOWN
};

static const struct { const char *name; enum col_kind k; } col_names[] = {
    {"Organization", COL_ORG}, {"Availability", COL_AVAIL}, {"Division", COL_DIV},
    {"SystemType", COL_SYSTYPE}, {"SystemName", COL_SYSNAME}, {"Platform", COL_PLATFORM},
    {"Model", COL_MODEL}, {"MlperfModel", COL_MLMODEL}, {"Scenario", COL_SCEN},
    {"Result", COL_RESULT}, {"Accuracy", COL_ACC}, {"number_of_nodes", COL_NODES},
    {"host_processor_model_name", COL_HOSTPROC}, {"host_processors_per_node", COL_HOSTPPN},
    {"host_processor_core_count", COL_HOSTCORES}, {"accelerator_model_name", COL_ACCEL},
    {"accelerators_per_node", COL_ACCPN}, {"Location", COL_LOC}, {"framework", COL_FW},
    {"operating_system", COL_OS}, {"notes", COL_NOTES}, {"compliance", COL_COMPLIANCE},
    {"compilance", COL_COMPLIANCE}, {"errors", COL_ERRORS}, {"version", COL_VERSION},
    {"inferred", COL_INFERRED}, {"infered", COL_INFERRED}, {"has_power", COL_HAS_POWER},
    {"power", COL_POWER}, {"Units", COL_UNITS}, {"weight_data_types", COL_WDT},
};

static enum col_kind col_kind_of(const char *name)
{
    for (size_t i = 0; name && i < sizeof col_names / sizeof col_names[0]; i++)
        if (!strcmp(col_names[i].name, name))
            return col_names[i].k;
    return COL_UNKNOWN;
}

/* A column of csv_header_legacy: its kind and whether the round quotes it, found once for all
 * the rows */
struct col_spec {
    enum col_kind k;
    int q;
};

static struct col_spec *col_specs(const ck_rules *r)
{
    const json_t *head = ck_rget(r, "csv_header_legacy");
    const json_t *quoted = ck_rget(r, "csv_quoted_columns_legacy");
    size_t n = json_array_size(head);
    struct col_spec *c = calloc(n ? n : 1, sizeof *c);
    for (size_t i = 0; c && i < n; i++) {
        const char *name = json_string_value(json_array_get(head, i));
        c[i].k = col_kind_of(name);
        c[i].q = ck_jlist_has(quoted, name ? name : "");
    }
    return c;
}

/* A field in RFC 4180 quoting (the reader text of an ambiguous row). */
static int put_rfc_field(ms_buf *b, const char *text, int first)
{
    const char *t = text ? text : "";
    if (!first && ms_buf_putc(b, ','))
        return -1;
    if (!strpbrk(t, ",\"\r\n"))
        return ms_buf_puts(b, t);
    if (ms_buf_putc(b, '"'))
        return -1;
    for (; *t; t++)
        if ((*t == '"' && ms_buf_putc(b, '"')) || ms_buf_putc(b, *t))
            return -1;
    return ms_buf_putc(b, '"');
}

/* One summary.csv row; *reader: NULL, or the row in RFC 4180 quoting when an unquoted field
 * holds a comma or line break (a CSV reader would split the official text wrongly). */
static char *legacy_row(const ck_state *run, const ck_scen *s, int errors, int compliance,
                        int power_row, const struct col_spec *cols, char **reader)
{
    *reader = NULL;
    const ck_rules *r = &run->rules;
    const json_t *j = s->sys->j;
    ms_buf b = MS_BUF_INIT;
    char status[128];
    snprintf(status, sizeof status, "%s", json_string_value(json_object_get(j, "status")) ?: "");
    for (char *p = status; *p && r->sw.status_checked; p++)
        *p = (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p);
    const char *F = s->scen_fixed;
    const char *unit, *punit;
    char result[64], power[64];
    ck_row_unit_result(r, s, F, power_row, &unit, &punit, result);
    /* the `power` column (v1.0): log_result's power_metric, an int 0 or a float */
    if (s->power_metric > 0)
        ms_py_float_repr(s->power_metric, power);
    else
        snprintf(power, sizeof power, "0");
    /* notes */
    ms_buf notes = MS_BUF_INIT;
    const json_t *hw = json_object_get(j, "hw_notes"), *sw = json_object_get(j, "sw_notes");
    const char *hws = json_string_value(hw) ? json_string_value(hw) : "";
    ms_buf_puts(&notes, hws);
    if (ms_py_truthy(sw)) {
        if (!*hws && !r->sw.csv_notes_always_joined) {
            ms_buf_reset(&notes);
        } else {
            ms_buf_puts(&notes, ". ");
        }
        ms_buf_puts(&notes, json_string_value(sw) ?: "");
    }
    ms_buf wdt = MS_BUF_INIT;
    ms_py_str_json(&wdt, s->weight_data_types);
    if (!power_row && wdt.data)
        for (char *p = wdt.data; *p; p++)
            if (*p == '"')
                *p = '\'';
    const json_t *head = ck_rget(r, "csv_header_legacy");
    const json_t *quoted = ck_rget(r, "csv_quoted_columns_legacy");
    char num[32];
    int rc = 0, ambiguous = 0;
    ms_buf rb = MS_BUF_INIT, jb = MS_BUF_INIT;
    for (size_t i = 0; !rc && i < json_array_size(head); i++) {
        const char *name = json_string_value(json_array_get(head, i));
        int q = cols ? cols[i].q : ck_jlist_has(quoted, name ? name : ""), first = i == 0;
        const char *t = NULL;
        const json_t *jv = NULL;
        int is_json = 0;
        switch (cols ? cols[i].k : col_kind_of(name)) {
        case COL_ORG: t = s->submitter; break;
        case COL_AVAIL:
            /* status_checked false (submission-checker.py v0.7.1, check_results_dir):
             * available = system_json.get("status") goes through fmt.format's str(): None for
             * a missing field, True/1/... for another JSON value; later rounds lower() it */
            if (r->sw.status_checked)
                t = status;
            else
                jv = json_object_get(j, "status"), is_json = 1;
            break;
        case COL_DIV: t = s->division; break;
        case COL_SYSTYPE: jv = json_object_get(j, "system_type"); is_json = 1; break;
        case COL_SYSNAME: t = json_string_value(json_object_get(j, "system_name")); break;
        case COL_PLATFORM: t = s->system; break;
        case COL_MODEL: t = s->model_dir; break;
        case COL_MLMODEL: t = s->mlperf_model; break;
        case COL_SCEN: t = F; break;
        case COL_RESULT: t = result; break;
        case COL_ACC: t = s->acc_str; break;
        case COL_NODES: jv = json_object_get(j, "number_of_nodes"); is_json = 1; break;
        case COL_HOSTPROC: t = json_string_value(json_object_get(j, "host_processor_model_name")); break;
        case COL_HOSTPPN: jv = json_object_get(j, "host_processors_per_node"); is_json = 1; break;
        case COL_HOSTCORES: jv = json_object_get(j, "host_processor_core_count"); is_json = 1; break;
        case COL_ACCEL: t = json_string_value(json_object_get(j, "accelerator_model_name")); break;
        case COL_ACCPN: jv = json_object_get(j, "accelerators_per_node"); is_json = 1; break;
        case COL_LOC: t = s->rel; break;
        case COL_FW: t = json_string_value(json_object_get(j, "framework")); break;
        case COL_OS: t = json_string_value(json_object_get(j, "operating_system")); break;
        case COL_NOTES: t = notes.data; break;
        case COL_COMPLIANCE: snprintf(num, sizeof num, "%d", compliance); t = num; break;
        case COL_ERRORS: snprintf(num, sizeof num, "%d", errors); t = num; break;
        case COL_VERSION: t = r->version; break;
        case COL_INFERRED: t = s->inferred ? "1" : "0"; break;
        case COL_HAS_POWER: t = s->power_metric > 0 ? "True" : "False"; break;
        case COL_POWER: t = power; break;
        case COL_UNITS: t = power_row ? punit : unit; break;
        case COL_WDT: t = wdt.data; break;
        case COL_UNKNOWN: t = ""; break;
        }
        if (is_json) {
            ms_buf_reset(&jb);
            rc = ms_py_str_json(&jb, jv) || ms_buf_puts(&jb, "");
            t = jb.data;
        }
        if (!rc)
            rc = put_field(&b, t, q, first) || put_rfc_field(&rb, t, first);
        if (!q && t && strpbrk(t, ",\r\n"))
            ambiguous = 1;
    }
    ms_buf_free(&notes);
    ms_buf_free(&wdt);
    ms_buf_free(&jb);
    if (rc) {
        ms_buf_free(&b);
        ms_buf_free(&rb);
        return NULL;
    }
    if (ambiguous && !(*reader = ms_buf_steal(&rb))) {
        ms_buf_free(&b);
        return NULL;
    }
    ms_buf_free(&rb);
    return ms_buf_steal(&b);
}

/* --------------------------------------------------------- bookkeeping ---- */

static void queue_row(plan *pl, const ck_scen *s, int errors, int compliance, int power_row,
                      long key)
{
    if (MS_GROW(pl->rows, pl->caprows, pl->nrows + 1, 64)) {
        pl->run->oom = 1;
        return;
    }
    pl->rows[pl->nrows++] = (row_job){s, errors, compliance, power_row, key, NULL, NULL};
}

static void row_task(void *ctx, size_t i)
{
    plan *pl = ctx;
    row_job *j = &pl->rows[i];
    j->text = legacy_row(pl->run, j->s, j->errors, j->compliance, j->power_row, pl->cols,
                         &j->reader);
}

/* the rows bookkeeping queued: formatted on every core, added in order */
static void add_rows(plan *pl)
{
    if (pl->nrows > 1)
        ck_parallel(pl->run->jobs, pl->nrows, row_task, pl);
    else if (pl->nrows)
        row_task(pl, 0);
    for (size_t i = 0; i < pl->nrows; i++)
        ck_row_add_reader(pl->run, pl->rows[i].text, pl->rows[i].reader, pl->rows[i].key);
    pl->nrows = 0;
}

static void bookkeeping(plan *pl)
{
    ck_state *run = pl->run;
    const ck_rules *r = &run->rules;
    pl->cols = col_specs(r); /* NULL without memory: each row finds them itself */
    ck_flist_move(&run->findings, &pl->root_f);
    for (size_t di = 0; di < pl->ndivs; di++) {
        lg_div *ld = &pl->divs[di];
        ck_flist_move(&run->findings, &ld->f);
        if (ld->s2_stop) {
            ck_key_set(run, "root", NULL, 0);
            break;
        }
        if (ld->s3) {
            ck_key_set(run, ld->name, NULL, 0);
            continue;
        }
        for (size_t si = ld->first; si < ld->first + ld->n; si++) {
            ck_psub *ls = &pl->p.subs[si];
            char *subkey = ck_fmt("%s/%s", ls->sub.division, ls->sub.name);
            int walk_bad = 0;
            for (size_t i = 0; i < ls->sub.walk.n; i++) {
                const ck_finding *f = &ls->sub.walk.v[i];
                if (!f->waived && (f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict)))
                    walk_bad = 1;
            }
            ck_flist_move(&run->findings, &ls->sub.walk);
            if (ls->no_results) {
                ck_flist_move(&run->findings, &ls->f);
                char *rkey = subkey ? ck_fmt("%s/results", subkey) : NULL;
                if (rkey)
                    ck_key_set(run, rkey, NULL, 0);
                else
                    run->oom = 1;
                free(rkey);
                free(subkey);
                continue;
            }
            if (walk_bad || ls->skip) {
                ck_flist_move(&run->findings, &ls->f);
                ck_key_set(run, subkey, NULL, 0);
                free(subkey);
                continue;
            }
            size_t fstart = run->findings.n;
            ck_flist_move(&run->findings, &ls->f);
            int results_bad = 0;
            for (size_t i = fstart; i < run->findings.n; i++) {
                const ck_finding *f = &run->findings.v[i];
                if (!f->waived && (f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict)))
                    results_bad = 1;
            }
            if (results_bad) {
                char *k = ck_fmt("%s/results", subkey);
                if (k)
                    ck_key_set(run, k, NULL, 0);
                free(k);
            }
            for (size_t yi = ls->first; yi < ls->first + ls->n; yi++) {
                ck_psystem *ly = &pl->p.syss[yi];
                ck_flist_move(&run->findings, &ly->sys.findings);
                if (!ly->sys.ok) {
                    char *k = ck_fmt("%s/results/%s", subkey, ly->sys.name);
                    if (k)
                        ck_key_set(run, k, NULL, 0);
                    free(k);
                    if (!(r->sw.bad_system_keeps_models && ly->sys.walkable))
                        continue;
                }
                for (size_t mi = ly->first; mi < ly->first + ly->n; mi++) {
                    ck_pmodel *lm = &pl->p.models[mi];
                    char *mkey = ck_fmt("%s/results/%s/%s", subkey, ly->sys.name, lm->dir);
                    ck_flist_move(&run->findings, &lm->f);
                    if (lm->m2 || lm->m3 || !mkey) {
                        if (mkey)
                            ck_key_set(run, mkey, NULL, 0);
                        free(mkey);
                        continue;
                    }
                    int closed = strcmp(ls->sub.division, "open") != 0;
                    int errors = 0;
                    /* remaining required scenarios (minus --scenarios-to-skip) */
                    const char *need[16];
                    size_t nneed = 0;
                    for (size_t i = 0; i < json_array_size(lm->req) && nneed < 16; i++) {
                        const char *sc = json_string_value(json_array_get(lm->req, i));
                        if (sc && !in_skip_list(run, sc))
                            need[nneed++] = sc;
                    }
                    int had_server_or_interactive = 0, saw_si_dir = 0;
                    const char *seen[16];
                    size_t nseen = 0;
                    /* the M6 key: the reference nulls its loop variable `name`, the scenario
                     * directory it visited last, in os.listdir's order (check_results_dir) */
                    long last_key = -1;
                    size_t last_pos = 0;
                    for (size_t ci = lm->first; ci < lm->first + lm->n; ci++) {
                        ck_scen *s = &pl->p.scens[ci];
                        long key = ck_key_set(run, s->rel, NULL, 0);
                        if (nseen < 16)
                            seen[nseen++] = s->scen_fixed;
                        if (CK_SCEN_IS(s->scen_fixed, RU_SERVER) || CK_SCEN_IS(s->scen_fixed, RU_INTERACTIVE))
                            saw_si_dir = 1;
                        if (last_key < 0 || s->listing_pos >= last_pos) {
                            last_key = key;
                            last_pos = s->listing_pos;
                        }
                        for (size_t i = 0; i < s->f.n; i++)
                            s->f.v[i].key = key;
                        ck_flist_move(&run->findings, &s->f);
                        if (s->skip_task) { /* M4 */
                            errors++;
                            continue;
                        }
                        if (s->meas_key) /* E failure (a missing dir only, for some rounds) */
                            ck_key_set(run, s->meas_key, NULL, 0);
                        if (s->stage == 1) {
                            errors += s->errors;
                            continue;
                        }
                        if (s->stage) {
                            errors += s->errors;
                            continue;
                        }
                        if (s->meas_key) /* measurement_failure_stops_scenario false */
                            ck_key_set(run, s->meas_key, NULL, 0);
                        if (s->perf_ok) {
                            char text[256];
                            if (s->has_power)
                                snprintf(text, sizeof text,
                                         "%f with power_metric = %f and power_efficiency "
                                         "(samples/J) = %f",
                                         s->value.d, s->power_metric, s->power_eff);
                            else
                                snprintf(text, sizeof text, "%s", s->value.text);
                            int truthy = s->has_power || s->value.d != 0;
                            ck_key_set(run, s->rel, text, truthy);
                            char *ident = ck_fmt("%s_%s", ls->sub.name, ly->sys.name);
                            if (ident)
                                ck_count_add(run, ls->sub.division, ident, s->power_metric > 0);
                            free(ident);
                            for (size_t i = 0; i < nneed; i++)
                                if (!strcmp(need[i], s->scen_fixed)) {
                                    need[i] = need[--nneed];
                                    break;
                                }
                            if (CK_SCEN_IS(s->scen_fixed, RU_SERVER) ||
                                CK_SCEN_IS(s->scen_fixed, RU_INTERACTIVE))
                                had_server_or_interactive = 1;
                            if (!truthy)
                                ck_report_finding(run, &run->findings,
                                                  &(ck_where){s->division, s->submitter, s->system,
                                                              s->model_dir, s->scen_dir},
                                                  CK_ID(P8),
                                                  r->sw.result_counts_unless_none ? CK_SEV_WARNING
                                                                                  : CK_SEV_ERROR,
                                                  s->rel, 0, NULL, "a non-zero value", "0.0",
                                                  r->sw.result_counts_unless_none
                                                      ? "the result value is 0: the MLCommons checker "
                                                        "of this round counts it but writes no row"
                                                      : "the result value is 0, which the "
                                                        "MLCommons checker counts as no result");
                        }
                        int compliance = closed ? 0 : 1;
                        if (closed && !run->o->skip_compliance) {
                            /* check_results_dir (v1.0.1-v2.0): a compliance failure the round
                             * only logs (compliance_failure_rejects_result false) still writes
                             * `compilance` 0 in the row */
                            if (!s->comp_ok) {
                                if (r->sw.compliance_rejects)
                                    ck_key_null(run, key);
                            } else {
                                compliance = 1;
                            }
                        }
                        if (run->keys && key >= 0 && run->keys[key].truthy &&
                            r->sw.summary_row_needs_scenario &&
                            !ru_scenario_canon(run->rules.j, s->scen_dir)) {
                            /* an open result in a folder that names no scenario: log_result
                             * raises a KeyError (unit_dict[scenario_fixed]), no verdict; without
                             * summary_row_needs_scenario (check_results_dir / log_result of
                             * submission-checker.py, tags v0.7.1, v1.0.1) the folder name is
                             * only the row's scenario label */
                            ck_report_finding(run, &run->findings,
                                              &(ck_where){s->division, s->submitter, s->system,
                                                          s->model_dir, s->scen_dir},
                                              CK_ID(M4), CK_SEV_ERROR, s->rel, 0, NULL, "a scenario name",
                                              s->scen_dir, "%s: '%s' is not a scenario (the MLCommons "
                                              "checker raises writing its summary row)", s->rel,
                                              s->scen_dir);
                            ck_key_null(run, key);
                        }
                        if (run->keys && key >= 0 && run->keys[key].truthy) {
                            if (s->acc_ok) {
                                const json_t *po = json_object_get(s->sys->j, "system_power_only");
                                int power = s->power_metric > 0;
                                int perf_row = !(power && truthy_power_only(po)) || !r->sw.csv_power_extra_row;
                                int power_row = power && r->sw.csv_power_extra_row;
                                if (r->sw.csv_weight_data_types && s->wdt_present &&
                                    !json_is_string(s->weight_data_types) &&
                                    ((perf_row && !r->sw.csv_wdt_str) || power_row)) {
                                    /* log_result writes '"' + weight_data_types + '"' (the power
                                     * row always; the performance row too without
                                     * csv_weight_data_types_str): another JSON type raises a
                                     * TypeError there, no verdict */
                                    ck_report_finding(run, &run->findings,
                                                      &(ck_where){s->division, s->submitter, s->system,
                                                                  s->model_dir, s->scen_dir},
                                                      CK_ID(E4), CK_SEV_ERROR, s->wdt_rel, 0,
                                                      "/weight_data_types", "a string", "another JSON value",
                                                      "%s: weight_data_types is not a string (the MLCommons "
                                                      "checker raises writing its summary row)", s->wdt_rel);
                                    ck_key_null(run, key);
                                    perf_row = power_row = 0;
                                }
                                if (perf_row)
                                    queue_row(pl, s, errors, compliance, 0, key);
                                if (power_row)
                                    queue_row(pl, s, errors, compliance, 1, key);
                            } else {
                                ck_key_null(run, key);
                            }
                        }
                        errors += s->errors;
                    }
                    ck_where mw = {ls->sub.division, ls->sub.name, ly->sys.name, lm->dir, NULL};
                    int m5 = 0;
                    if (nneed) {
                        ms_buf miss = MS_BUF_INIT;
                        /* when every missing scenario has a directory, its own findings already
                         * explain the failure: M5 is then a consequence (INFO), the model key is
                         * still nulled as the reference does */
                        int all_present = 1;
                        for (size_t i = 0; i < nneed; i++) {
                            ms_buf_printf(&miss, "%s'%s'", i ? ", " : "", need[i]);
                            int present = 0;
                            for (size_t k = 0; k < nseen; k++)
                                present |= !strcmp(seen[k], need[i]);
                            all_present &= present;
                        }
                        if (closed) {
                            int counts = ck_report_finding(
                                run, &run->findings, &mw, CK_ID(M5),
                                all_present ? CK_SEV_INFO : CK_SEV_ERROR, mkey, 0, NULL,
                                "every required scenario", miss.data,
                                "%s does not have all required scenarios, missing {%s}", mkey,
                                miss.data);
                            if (counts || all_present) {
                                ck_key_set(run, mkey, NULL, 0);
                                m5 = 1;
                            }
                        } else if (run->o->debug) {
                            ck_report_finding(run, &run->findings, &mw, CK_ID(M5), CK_SEV_INFO, mkey, 0,
                                              NULL, NULL, miss.data,
                                              "%s ignoring missing scenarios in open division ({%s})",
                                              mkey, miss.data);
                        }
                        ms_buf_free(&miss);
                    }
                    if (closed && ck_jlist_has(lm->opt, "Server") &&
                        ck_jlist_has(lm->opt, "Interactive") && !had_server_or_interactive) {
                        int counts = ck_report_finding(
                            run, &run->findings, &mw, CK_ID(M6),
                            saw_si_dir ? CK_SEV_INFO : CK_SEV_ERROR, mkey, 0, NULL,
                            "a valid Server or Interactive result", "none",
                            "%s does not have all required scenarios, one of [Server, "
                            "Interactive] is required", mkey);
                        if (!counts && !saw_si_dir)
                            ; /* waived or skipped */
                        else if (m5 || last_key < 0)
                            ck_key_set(run, mkey, NULL, 0);
                        else
                            ck_key_null(run, last_key);
                    }
                    free(mkey);
                }
            }
            free(subkey);
        }
    }
    add_rows(pl);
    (void)r;
}

static void plan_free(plan *pl)
{
    ck_plan_free(&pl->p);
    for (size_t i = 0; i < pl->ndivs; i++) {
        free(pl->divs[i].name);
        ck_flist_free(&pl->divs[i].f);
    }
    free(pl->divs);
    ck_flist_free(&pl->root_f);
    free(pl->cols);
    free(pl->rows);
}

static void plan_free_late(void *pl)
{
    plan_free(pl);
    free(pl);
}

int ck_run_legacy(ck_state *run, ms_err *e)
{
    plan pl;
    memset(&pl, 0, sizeof pl);
    pl.run = run;
    pl.p.run = run;
    ck_timings *t = &run->timings;
    double t0 = ck_now_ms();
    int rc = plan_tree(&pl, e);
    t->plan_ms += ck_now_ms() - t0 - t->systems_ms;
    if (rc == MS_OK) {
        ck_plan_run_tasks(&pl.p);
        t0 = ck_now_ms();
        bookkeeping(&pl);
        t->bookkeeping_ms += ck_now_ms() - t0;
    }
    /* freed once the check is over (ck_defer_free); in place without memory for a copy */
    t0 = ck_now_ms();
    plan *late = malloc(sizeof *late);
    if (late) {
        *late = pl;
        ck_defer_free(run, plan_free_late, late);
    } else {
        plan_free(&pl);
    }
    t->free_ms += ck_now_ms() - t0;
    return rc;
}
