/* Round detection for `mlsubmit check` without --version (checker.h ck_detect_round). The tree
 * gives evidence: the LoadGen version and the format of a sample of performance detail logs,
 * the compliance layout (audit/ or compliance/ beside results/), the folder layout (split:
 * code/, measurements/, compliance/; unified: src/ only), the closed and network model folders,
 * and whether system JSONs carry system_type. Each rules file's "detect" block says what its
 * round's submissions look like; a round is a candidate when all the evidence fits it. A
 * LoadGen no block knows gets the newest round, as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"
#include "common/fsutil.h"
#include "common/textlog.h"

#define MAX_LOGS 64
#define PER_SUB 8
#define MAX_VERS 16
#define MAX_MODELS 64

typedef struct evidence {
    int nlogs, fmt_text, fmt_mllog;
    char vers[MAX_VERS][32];
    int nvers;
    int audit, compliance;          /* submitters with audit/ or compliance/ */
    int sys_with_type, sys_without_type;
    int split, unified;             /* submitters with code/ or measurements/; with src/ only */
    char *models[MAX_MODELS];       /* closed/network results/<system>/<model> names */
    int nmodels;
} evidence;

static void add_model(evidence *ev, const char *m)
{
    for (int i = 0; i < ev->nmodels; i++)
        if (!strcmp(ev->models[i], m))
            return;
    if (ev->nmodels < MAX_MODELS && (ev->models[ev->nmodels] = strdup(m)))
        ev->nmodels++;
}

/* 3.0 @ c4a19872d9 -> 3.0; .5a1 @ 413d -> .5a1 */
static void add_version(evidence *ev, const char *v, size_t n)
{
    const char *at = memchr(v, '@', n);
    if (at)
        n = (size_t)(at - v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '"'))
        n--;
    if (!n || n >= sizeof ev->vers[0])
        return;
    for (int i = 0; i < ev->nvers; i++)
        if (strlen(ev->vers[i]) == n && !memcmp(ev->vers[i], v, n))
            return;
    if (ev->nvers < MAX_VERS) {
        memcpy(ev->vers[ev->nvers], v, n);
        ev->vers[ev->nvers++][n] = '\0';
    }
}

static void read_log(evidence *ev, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    static const size_t cap = 64 * 1024;
    char *buf = malloc(cap + 1);
    size_t n = buf ? fread(buf, 1, cap, f) : 0;
    fclose(f);
    if (!buf)
        return;
    buf[n] = '\0';
    ms_logfmt fmt = ms_log_detect(buf, n);
    ev->nlogs++;
    if (fmt == MS_LOGFMT_TEXT) {
        ev->fmt_text++;
        const char *p = strstr(buf, "ns : version : ");
        if (p) {
            p += strlen("ns : version : ");
            add_version(ev, p, strcspn(p, "\n"));
        }
    } else if (fmt == MS_LOGFMT_MLLOG) {
        ev->fmt_mllog++;
        const char *k = "\"key\": \"loadgen_version\", \"value\": \"";
        const char *p = strstr(buf, k);
        if (p) {
            p += strlen(k);
            add_version(ev, p, strcspn(p, "\"\n"));
        }
    }
    free(buf);
}

static int has_dir(const char *base, const char *name)
{
    char *p = ck_join(base, name);
    int r = p && ck_isdir(p);
    free(p);
    return r;
}

static void scan_submitter(evidence *ev, const char *sub_abs, int closed)
{
    int audit = has_dir(sub_abs, "audit"), compliance = has_dir(sub_abs, "compliance");
    ev->audit += audit;
    ev->compliance += compliance;
    if (has_dir(sub_abs, "code") || has_dir(sub_abs, "measurements") || audit || compliance)
        ev->split++;
    else if (has_dir(sub_abs, "src"))
        ev->unified++;
    char *sys = ck_join(sub_abs, "systems");
    ck_dir sd;
    if (sys && ck_dir_read(&sd, sys) == 0) {
        for (size_t i = 0; i < sd.n && i < 16; i++) {
            size_t l = strlen(sd.v[i].name);
            if (!sd.v[i].is_file || l < 5 || strcmp(sd.v[i].name + l - 5, ".json"))
                continue;
            char *p = ck_join(sys, sd.v[i].name);
            json_t *j = p ? ms_json_load_path(p, 0, NULL) : NULL;
            if (json_is_object(j)) {
                if (json_object_get(j, "system_type"))
                    ev->sys_with_type++;
                else
                    ev->sys_without_type++;
            }
            json_decref(j);
            free(p);
        }
        ck_dir_free(&sd);
    }
    free(sys);
    /* results/<system>/<model>/<scenario>/performance/run_1/mlperf_log_detail.txt */
    char *res = ck_join(sub_abs, "results");
    int taken = 0;
    ck_dir yd;
    if (res && ck_dir_read(&yd, res) == 0) {
        for (size_t y = 0; y < yd.n && taken < PER_SUB && ev->nlogs < MAX_LOGS; y++) {
            char *ya = ck_join(res, yd.v[y].name);
            ck_dir md;
            if (ya && yd.v[y].is_dir && ck_dir_read(&md, ya) == 0) {
                for (size_t m = 0; m < md.n; m++)
                    if (closed && md.v[m].is_dir)
                        add_model(ev, md.v[m].name);
                for (size_t m = 0; m < md.n && taken < PER_SUB; m++) {
                    char *ma = ck_join(ya, md.v[m].name);
                    ck_dir cd;
                    if (ma && md.v[m].is_dir && ck_dir_read(&cd, ma) == 0) {
                        for (size_t k = 0; k < cd.n && taken < PER_SUB; k++) {
                            char *l = ck_fmt("%s/%s/performance/run_1/mlperf_log_detail.txt", ma,
                                             cd.v[k].name);
                            if (l && ck_isfile(l)) {
                                read_log(ev, l);
                                taken++;
                            }
                            free(l);
                        }
                        ck_dir_free(&cd);
                    }
                    free(ma);
                }
                ck_dir_free(&md);
            }
            free(ya);
        }
        ck_dir_free(&yd);
    }
    free(res);
}

/* LoadGen version as a number for ordering (".5a1" is 0.5) */
static double vnum(const char *v)
{
    return atof(v);
}

/* observed version v fits the round's entry e: equal, or e followed by '.' (5.1 ~ 5.1.0) */
static int vfits(const char *v, const char *e)
{
    size_t n = strlen(e);
    return !strncmp(v, e, n) && (v[n] == '\0' || v[n] == '.');
}

typedef struct cand {
    char name[32];
    int model_fit;                  /* every closed/network model folder is a model of the round */
    int primary_fits;               /* loadgen_versions[0] fits the highest observed version */
    int type_fit;                   /* system_type_field agrees with the system JSONs */
    int newest_on_tie;              /* its LoadGen does not tell it from its neighbours */
} cand;

/* round names vA.B in order */
static int round_cmp(const char *a, const char *b)
{
    int am = 0, an = 0, bm = 0, bn = 0;
    sscanf(a, "v%d.%d", &am, &an);
    sscanf(b, "v%d.%d", &bm, &bn);
    return am != bm ? (am > bm) - (am < bm) : (an > bn) - (an < bn);
}

static int cand_cmp(const void *a, const void *b)
{
    return round_cmp(((const cand *)a)->name, ((const cand *)b)->name);
}

/* every closed/network model folder is one of the round's models (or a model_mapping name) */
static int models_fit(const evidence *ev, const json_t *rules)
{
    const json_t *models = json_object_get(rules, "models"), *map = json_object_get(rules, "model_mapping");
    for (int i = 0; i < ev->nmodels; i++)
        if (!ru_list_has(models, ev->models[i]) && !json_object_get(map, ev->models[i]))
            return 0;
    return 1;
}

static void evidence_free(evidence *ev)
{
    for (int i = 0; i < ev->nmodels; i++)
        free(ev->models[i]);
    ev->nmodels = 0;
}

static void evidence_text(const evidence *ev, char *out, size_t sz)
{
    size_t o = (size_t)snprintf(out, sz, "%d detail log(s)", ev->nlogs);
    if (ev->fmt_text && o < sz)
        o += (size_t)snprintf(out + o, sz - o, ", %d in the early LoadGens' text format",
                              ev->fmt_text);
    if (ev->fmt_mllog && o < sz)
        o += (size_t)snprintf(out + o, sz - o, ", %d :::MLLOG", ev->fmt_mllog);
    for (int i = 0; i < ev->nvers && o < sz; i++)
        o += (size_t)snprintf(out + o, sz - o, "%s%s", i ? ", " : "; LoadGen ", ev->vers[i]);
    if ((ev->audit || ev->compliance) && o < sz)
        o += (size_t)snprintf(out + o, sz - o, "; %s/ layout",
                              ev->audit && ev->compliance ? "audit/ and compliance/"
                              : ev->audit ? "audit" : "compliance");
    else if (ev->unified && !ev->split && o < sz)
        o += (size_t)snprintf(out + o, sz - o, "; unified layout (src/)");
}

/* ck_detect_round after the evidence is read */
static int decide(const evidence *ev, const char *root, const char *data_dir, char **version, char **why,
                  ms_err *e);

int ck_detect_round(const char *root, const char *data_dir, char **version, char **why, ms_err *e)
{
    *version = NULL;
    *why = NULL;
    evidence ev;
    memset(&ev, 0, sizeof ev);
    ck_dir dd;
    if (ck_dir_read(&dd, root))
        return ms_err_root(e, root, dd.err, 0);
    for (size_t d = 0; d < dd.n && ev.nlogs < MAX_LOGS; d++) {
        if (!dd.v[d].is_dir || dd.v[d].name[0] == '.')
            continue;
        char *da = ck_join(root, dd.v[d].name);
        ck_dir sd;
        if (da && ck_dir_read(&sd, da) == 0) {
            for (size_t s = 0; s < sd.n && ev.nlogs < MAX_LOGS; s++) {
                char *sa = sd.v[s].is_dir ? ck_join(da, sd.v[s].name) : NULL;
                if (sa)
                    scan_submitter(&ev, sa, !strcmp(dd.v[d].name, "closed") || !strcmp(dd.v[d].name, "network"));
                free(sa);
            }
            ck_dir_free(&sd);
        }
        free(da);
    }
    ck_dir_free(&dd);
    int rc = decide(&ev, root, data_dir, version, why, e);
    evidence_free(&ev);
    return rc;
}

static int decide(const evidence *evp, const char *root, const char *data_dir, char **version, char **why,
                  ms_err *e)
{
    const evidence ev = *evp;
    char text[600];
    evidence_text(&ev, text, sizeof text);
    double top = -1;
    const char *topv = NULL;
    for (int i = 0; i < ev.nvers; i++)
        if (vnum(ev.vers[i]) > top) {
            top = vnum(ev.vers[i]);
            topv = ev.vers[i];
        }
    if (ev.fmt_text && ev.fmt_mllog)
        return ms_err_set(e, MS_EINPUT,
                          "%s mixes rounds (%s): text detail logs of the early LoadGens and the "
                          ":::MLLOG logs of later rounds; check each round's tree on its own, "
                          "with --version", root, text);
    /* candidates among the rounds with a "detect" block */
    char **rounds = NULL;
    size_t nrounds = 0;
    ms_err le;
    (void)ru_rounds(data_dir, &rounds, &nrounds, &le); /* none listed: no candidate (below) */
    char *rd = ck_join(data_dir, "rules");
    cand cands[32];
    int nc = 0, known[MAX_VERS] = {0};
    for (size_t ri = 0; rd && ri < nrounds; ri++) {
        if (strlen(rounds[ri]) >= sizeof cands[0].name)
            continue;
        char *file = ck_fmt("%s.json", rounds[ri]);
        char *p = file ? ck_join(rd, file) : NULL;
        free(file);
        /* only what detection reads of each round (its rules file is large) */
        static const char *const wanted[] = {"detect", "layout", "models", "model_mapping", NULL};
        json_t *j = p ? ms_json_load_members(p, wanted) : NULL;
        free(p);
        const json_t *det = json_object_get(j, "detect");
        if (!json_is_object(det)) {
            json_decref(j);
            continue;
        }
        const char *fmt = json_string_value(json_object_get(det, "log_format"));
        const json_t *vl = json_object_get(det, "loadgen_versions");
        const char *cdir = json_string_value(json_object_get(det, "compliance_dir"));
        const json_t *stf = json_object_get(det, "system_type_field");
        int ok = ev.nlogs > 0;
        if (fmt && ev.fmt_text && strcmp(fmt, "text"))
            ok = 0;
        if (fmt && ev.fmt_mllog && strcmp(fmt, "mllog"))
            ok = 0;
        for (int i = 0; i < ev.nvers; i++) {
            int fit = 0;
            for (size_t k = 0; k < json_array_size(vl) && !fit; k++)
                fit = vfits(ev.vers[i], json_string_value(json_array_get(vl, k)) ?: "\x01");
            known[i] |= fit;
            ok = ok && fit;
        }
        if (ok && cdir && ev.audit != ev.compliance && !(ev.audit && ev.compliance))
            ok = !strcmp(cdir, ev.audit ? "audit" : "compliance");
        /* the folder layout: every submitter split, or every one unified (src/ only) */
        int unified = !strcmp(json_string_value(json_object_get(j, "layout")) ?: "split", "unified");
        if (ok && (ev.split || ev.unified) && !(ev.split && ev.unified))
            ok = unified == (ev.unified > 0);
        if (ok && nc < 32) {
            cand *c = &cands[nc++];
            snprintf(c->name, sizeof c->name, "%s", rounds[ri]);
            const char *prim = json_string_value(json_array_get(vl, 0));
            c->primary_fits = topv && prim && vfits(topv, prim);
            c->type_fit = !json_is_boolean(stf) ||
                          (json_is_true(stf) ? ev.sys_without_type == 0 : ev.sys_without_type > 0);
            c->model_fit = models_fit(&ev, j);
            c->newest_on_tie = json_is_true(json_object_get(det, "newest_on_tie"));
        }
        json_decref(j);
    }
    ru_rounds_free(rounds, nrounds);
    free(rd);
    /* narrow: the rounds whose models the closed folders name, the round whose own LoadGen
     * is the newest seen (not among rounds marked newest_on_tie: their submitters kept using
     * the previous LoadGen), then the system_type evidence */
    int all_tie = nc > 1;
    for (int i = 0; i < nc; i++)
        all_tie &= cands[i].newest_on_tie;
    for (int pass = 0; pass < 3 && nc > 1; pass++) {
        if (pass == 1 && all_tie)
            continue;
        int keep = 0;
        for (int i = 0; i < nc; i++)
            keep += pass == 0 ? cands[i].model_fit : pass == 1 ? cands[i].primary_fits : cands[i].type_fit;
        if (!keep)
            continue;
        int w = 0;
        for (int i = 0; i < nc; i++)
            if (pass == 0 ? cands[i].model_fit : pass == 1 ? cands[i].primary_fits : cands[i].type_fit)
                cands[w++] = cands[i];
        nc = w;
    }
    all_tie = nc > 1;
    for (int i = 0; i < nc; i++)
        all_tie &= cands[i].newest_on_tie;
    if (all_tie) {
        /* nothing in the tree tells these rounds apart: the newest of them, said so */
        qsort(cands, (size_t)nc, sizeof *cands, cand_cmp);
        int best = nc - 1;
        char list[32 * 34] = "";
        for (int i = 0; i < nc; i++) {
            if (i)
                strcat(list, " or ");
            strcat(list, cands[i].name);
        }
        *version = strdup(cands[best].name);
        *why = ck_fmt("%s; %s fit alike: the newest, pass --version for another", text, list);
        return *version && *why ? MS_OK : ms_err_oom(e);
    }
    if (nc == 1) {
        *version = strdup(cands[0].name);
        *why = strdup(text);
        return *version && *why ? MS_OK : ms_err_oom(e);
    }
    if (nc > 1) {
        char list[32 * 34] = "";
        for (int i = 0; i < nc; i++) {
            if (i)
                strcat(list, ", ");
            strcat(list, cands[i].name);
        }
        return ms_err_set(e, MS_EINPUT,
                          "%s could be any of the rounds %s (%s): pass --version", root, list,
                          text);
    }
    int any_known = 0;
    for (int i = 0; i < ev.nvers; i++)
        any_known |= known[i];
    if (ev.nlogs == 0 || ev.fmt_text || any_known) {
        if (ev.nlogs == 0) {
            /* nothing to go by: the newest round, as before */
            *version = ru_newest_round(data_dir, e);
            if (!*version)
                return MS_EINPUT;
            *why = strdup("no performance detail log found: the newest round");
            return *why ? MS_OK : ms_err_oom(e);
        }
        return ms_err_set(e, MS_EINPUT,
                          "%s matches no known round (%s): a mixed tree (results of several "
                          "rounds) or an unknown LoadGen; check each round on its own with "
                          "--version", root, text);
    }
    /* a LoadGen no detect block knows (the newest rounds hold none): the newest round */
    *version = ru_newest_round(data_dir, e);
    if (!*version)
        return MS_EINPUT;
    *why = strdup(text);
    return *why ? MS_OK : ms_err_oom(e);
}
