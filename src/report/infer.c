/* mlsubmit infer: the scenario inference and low-accuracy copies of preprocess_submission.py
 * (preprocess_submission.py infer_scenario_results, copy low-accuracy results), in place and never
 * overwriting. Each copy goes to a temporary sibling directory that is renamed into place
 * (RENAME_NOREPLACE), so a reader never sees half a copy.
 *
 * Default behaviour vs --upstream (the first is a deliberate deviation from
 * preprocess_submission.py):
 *   - existence of offline/multistream is tested case-insensitively, so a tree that already has
 *     Offline or MultiStream gets no duplicate; upstream tests the lower-case names only;
 *   - inferred directories get canonical names (Offline, MultiStream); upstream writes lower-case
 *     offline/multistream (the checker accepts both; the CSV Location shows the name);
 *   - the compliance tree is processed in every division that has one; upstream only in closed
 *     (so upstream's inferred network results have no compliance directories).
 * Not done: the upstream tool's copy to a new tree, its deletion of empty directories, of models
 * outside the category's table, and of invalid results (5.2 step 2, 5.3): infer never deletes. */
#include "report/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/mllog.h"
#include "common/pyfmt.h"
#include "report/internal.h"

typedef struct infer_ctx {
    const rp_infer_opts *o;
    ru_round rules;
    rp_infer_stats *st;
    ms_buf line;
} infer_ctx;

#define note(c, ...) rp_notef((c)->o->note, (c)->o->ctx, &(c)->line, __VA_ARGS__)


/* The existing scenario directory whose name matches want (canonical or lower-case alias, or
 * only the lower-case name in upstream mode); NULL if none. */
static const char *find_scen(infer_ctx *c, char **dirs, size_t n, const char *lower)
{
    for (size_t i = 0; i < n; i++) {
        if (c->o->upstream ? !strcmp(dirs[i], lower) : !strcasecmp(dirs[i], lower))
            return dirs[i];
    }
    return NULL;
}

/* What the checker will compute for an inferred result (submission_checker.py
 * get_inferred_result), from the source scenario's performance log; appended to b. */
static void describe_value(const char *src_dir, const char *from, const char *to, ms_buf *b)
{
    char *path = rp_fmt("%s/performance/run_1/mlperf_log_detail.txt", src_dir);
    if (!path)
        return;
    ms_mllog log;
    ms_err e;
    if (ms_mllog_load(&log, path, 64u << 20, &e)) {
        ms_buf_printf(b, "; no performance log to compute from (%s)", e.msg);
        free(path);
        return;
    }
    free(path);
    char num[MS_PY_FLOAT_MAX];
    int T = ru_scenario_parse(to), F = ru_scenario_parse(from);
    if (T == RU_OFFLINE && F == RU_SINGLE_STREAM) {
        double v;
        if (ms_mllog_get_double(&log, "result_qps_without_loadgen_overhead", &v) == 0) {
            ms_py_float_repr(v, num);
            ms_buf_printf(b, "; the checker computes I1: result_qps_without_loadgen_overhead = %s", num);
        }
    } else if (T == RU_OFFLINE && F == RU_MULTI_STREAM) {
        double spq, lat;
        if (ms_mllog_get_double(&log, "effective_samples_per_query", &spq) == 0 &&
            ms_mllog_get_double(&log, "result_mean_query_latency_ns", &lat) == 0) {
            ms_py_float_repr((spq * 1000) / (lat / 1e6), num);
            ms_buf_printf(b, "; the checker computes I2: samples_per_query * 1000 / (mean query latency ms) = %s",
                          num);
        }
    } else if (T == RU_MULTI_STREAM && F == RU_SINGLE_STREAM) {
        int64_t es;
        if (ms_mllog_get_i64(&log, "early_stopping_latency_ms", &es) == 0) {
            ms_py_float_repr((double)(es * 8) / 1e6, num);
            ms_buf_printf(b, "; the checker computes I3: early_stopping_latency_ms * 8 / 1e6 = %s ms%s", num,
                          es == 0 ? " (invalid: no early-stopping estimate)" : "");
        }
    }
    ms_mllog_free(&log);
}

static int do_copy(infer_ctx *c, const char *src, const char *dst, const char *why, ms_err *e)
{
    ms_buf b = MS_BUF_INIT;
    if (ms_buf_puts(&b, why ? why : "")) {
        ms_buf_free(&b);
        return ms_err_oom(e);
    }
    const char *rel_s = src + strlen(c->o->root) + 1, *rel_d = dst + strlen(c->o->root) + 1;
    c->st->copies++;
    int rc = 0;
    if (c->o->dry_run) {
        note(c, "would copy %s -> %s%s", rel_s, rel_d, b.data ? b.data : "");
    } else {
        uint64_t files = 0, bytes = 0;
        rc = rp_copy_tree(src, dst, &files, &bytes, e);
        if (!rc) {
            c->st->files += files;
            c->st->bytes += bytes;
            note(c, "copied %s -> %s (%llu files)%s", rel_s, rel_d, (unsigned long long)files,
                 b.data ? b.data : "");
        }
    }
    ms_buf_free(&b);
    return rc;
}

/* Scenario inference in one model directory of one tree (preprocess_submission.py
 * infer_scenario_results). */
static int infer_model(infer_ctx *c, const char *model_path, const char *tree, const json_t *all,
                       ms_err *e)
{
    char **dirs;
    size_t n;
    int rc = rp_list(model_path, 1, &dirs, &n, e);
    if (rc)
        return rc;
    int has_ms_allowed = ru_list_has(all, ru_scenario_name(RU_MULTI_STREAM));
    int has_off_allowed = ru_list_has(all, ru_scenario_name(RU_OFFLINE));
    const char *off_name = c->o->upstream ? "offline" : "Offline";
    const char *ms_name = c->o->upstream ? "multistream" : "MultiStream";
    int is_results = !strcmp(tree, "results");
    for (size_t i = 0; i < n && !rc; i++) {
        /* re-list: copies made for earlier directories count for the existence tests */
        char **cur;
        size_t ncur;
        if ((rc = rp_list(model_path, 1, &cur, &ncur, e)))
            break;
        const char *O = find_scen(c, cur, ncur, "offline");
        const char *M = find_scen(c, cur, ncur, "multistream");
        char *src = rp_fmt("%s/%s", model_path, dirs[i]);
        if (!src) {
            rp_list_free(cur, ncur);
            rc = ms_err_oom(e);
            break;
        }
        if (!strcasecmp(dirs[i], "singlestream")) {
            const char *targets[2] = {NULL, NULL};
            if (!O && !M) {
                if (c->o->no_scenarios) {
                    note(c, "skip %s: --noinfer-scenario-results", src + strlen(c->o->root) + 1);
                } else {
                    /* upstream always infers Offline here; mlsubmit: only when the rules allow it
                     * */
                    if (has_off_allowed)
                        targets[0] = off_name;
                    if (has_ms_allowed)
                        targets[1] = ms_name;
                }
            } else if (!M && has_ms_allowed) {
                targets[1] = ms_name;
            }
            for (int t = 0; t < 2 && !rc; t++) {
                if (!targets[t])
                    continue;
                char *dst = rp_fmt("%s/%s", model_path, targets[t]);
                ms_buf why = MS_BUF_INIT;
                if (!dst) {
                    rc = ms_err_oom(e);
                    break;
                }
                ms_buf_printf(&why, " [%s inferred from SingleStream]", t ? "MultiStream" : "Offline");
                if (is_results)
                    describe_value(src, "SingleStream", t ? "MultiStream" : "Offline", &why);
                rc = do_copy(c, src, dst, why.data, e);
                ms_buf_free(&why);
                free(dst);
            }
        } else if (!strcasecmp(dirs[i], "multistream")) {
            if (!O) {
                char *dst = rp_fmt("%s/%s", model_path, off_name);
                ms_buf why = MS_BUF_INIT;
                if (!dst)
                    rc = ms_err_oom(e);
                else {
                    ms_buf_puts(&why, " [Offline inferred from MultiStream]");
                    if (is_results)
                        describe_value(src, "MultiStream", "Offline", &why);
                    rc = do_copy(c, src, dst, why.data, e);
                }
                ms_buf_free(&why);
                free(dst);
            }
        }
        free(src);
        rp_list_free(cur, ncur);
    }
    rp_list_free(dirs, n);
    return rc;
}

static json_t *load_system(infer_ctx *c, const char *sub_path, const char *sys, ms_err *e)
{
    char *p = rp_fmt("%s/systems/%s.json", sub_path, sys);
    if (!p) {
        ms_err_oom(e);
        return NULL;
    }
    json_t *j = NULL;
    if (!ms_is_regular_file(p)) {
        note(c, "problem: %s: no system description; system %s skipped", p + strlen(c->o->root) + 1, sys);
        c->st->problems++;
    } else {
        ms_err le;
        j = rp_json_load(p, &le);
        if (!j) {
            note(c, "problem: %s; system %s skipped", le.msg, sys);
            c->st->problems++;
        }
    }
    free(p);
    return j;
}

static int is_valid_type(const char *t)
{
    return t && (!strcmp(t, "datacenter") || !strcmp(t, "edge") || !strcmp(t, "datacenter,edge") ||
                 !strcmp(t, "edge,datacenter"));
}

static int infer_tree(infer_ctx *c, const char *div, const char *sub, const char *sub_path,
                      const char *tree, const json_t *mapping, ms_err *e)
{
    char *log_path = rp_fmt("%s/%s", sub_path, tree);
    if (!log_path)
        return ms_err_oom(e);
    if (!rp_is_dir_nofollow(log_path)) {
        if (!strcmp(tree, "results"))
            note(c, "note: %s/%s has no %s directory", div, sub, tree);
        free(log_path);
        return 0;
    }
    char **systems;
    size_t nsys;
    int rc = rp_list(log_path, 1, &systems, &nsys, e);
    for (size_t s = 0; s < nsys && !rc; s++) {
        json_t *sj = load_system(c, sub_path, systems[s], e);
        if (!sj)
            continue;
        const char *stype = json_string_value(json_object_get(sj, "system_type"));
        if (!is_valid_type(stype)) {
            note(c, "problem: %s/%s/systems/%s.json: invalid system_type %s (expected datacenter, edge, "
                    "datacenter,edge or edge,datacenter); system skipped",
                 div, sub, systems[s], stype ? stype : "(missing)");
            c->st->problems++;
            json_decref(sj);
            continue;
        }
        char *sys_path = rp_fmt("%s/%s", log_path, systems[s]);
        char **models = NULL;
        size_t nmod = 0;
        if ((rc = rp_list(sys_path, 1, &models, &nmod, e))) {
            free(sys_path);
            json_decref(sj);
            break;
        }
        for (size_t m = 0; m < nmod && !rc; m++) {
            const char *mlperf = ru_map_model(c->rules.j, models[m], mapping, 0);
            const json_t *req = rp_scenarios(&c->rules, "required_scenarios", stype, mlperf);
            if (!req) {
                note(c, "skip %s/%s/%s/%s/%s: model %s is not in the %s table of %s", div, sub, tree,
                     systems[s], models[m], mlperf, stype, c->rules.version);
                continue;
            }
            json_t *all = json_deep_copy(req);
            const json_t *opt = rp_scenarios(&c->rules, "optional_scenarios", stype, mlperf);
            if (!all || (opt && json_array_extend(all, (json_t *)opt))) {
                json_decref(all);
                rc = ms_err_oom(e);
                break;
            }
            char *mp = rp_fmt("%s/%s", sys_path, models[m]);
            if (!mp)
                rc = ms_err_oom(e);
            else if (!c->o->no_scenarios || 1)
                rc = infer_model(c, mp, tree, all, e);
            free(mp);
            json_decref(all);
        }
        rp_list_free(models, nmod);
        /* low-accuracy copies (preprocess_submission.py, low-accuracy copies), after the scenarios
         * of the system's models */
        if (!rc && !c->o->no_low_accuracy) {
            if ((rc = rp_list(sys_path, 1, &models, &nmod, e)) == 0) {
                for (size_t m = 0; m < nmod && !rc; m++) {
                    size_t L = strlen(models[m]);
                    if (L < 5 || strcmp(models[m] + L - 5, "-99.9"))
                        continue;
                    char *low = strndup(models[m], L - 2);
                    if (!low) {
                        rc = ms_err_oom(e);
                        break;
                    }
                    if (rp_scenarios(&c->rules, "required_scenarios", stype, low)) {
                        char *hp = rp_fmt("%s/%s", sys_path, models[m]);
                        char *lp = rp_fmt("%s/%s", sys_path, low);
                        if (!hp || !lp)
                            rc = ms_err_oom(e);
                        else if (!ms_path_exists(lp))
                            rc = do_copy(c, hp, lp, " [low-accuracy result from the high-accuracy one]", e);
                        const char *code = c->rules.unified ? "src" : "code";
                        char *hc = rp_fmt("%s/%s/%s", sub_path, code, models[m]);
                        char *lc = rp_fmt("%s/%s/%s", sub_path, code, low);
                        if (!rc && hc && lc && rp_is_dir_nofollow(hc) && !ms_path_exists(lc) &&
                            !strcmp(tree, "results"))
                            rc = do_copy(c, hc, lc, " [code of the high-accuracy model]", e);
                        free(hc);
                        free(lc);
                        free(hp);
                        free(lp);
                    }
                    free(low);
                }
                rp_list_free(models, nmod);
            }
        }
        free(sys_path);
        json_decref(sj);
    }
    rp_list_free(systems, nsys);
    free(log_path);
    return rc;
}

int rp_infer(const rp_infer_opts *o, rp_infer_stats *st, ms_err *e)
{
    memset(st, 0, sizeof *st);
    if (!rp_is_dir_nofollow(o->root))
        return ms_err_root(e, o->root, 0, 1);
    infer_ctx c = {.o = o, .st = st, .line = MS_BUF_INIT};
    int rc = ru_round_load(&c.rules, o->data_dir, o->version, e);
    if (rc)
        return rc;
    note(&c, "infer %s: rules %s (%s layout)%s%s", o->root, c.rules.version,
         c.rules.unified ? "unified" : "split", o->upstream ? ", upstream naming" : "",
         o->dry_run ? ", dry run" : "");
    static const char *const divisions[] = {"closed", "network", "open"};
    for (size_t d = 0; d < 3 && !rc; d++) {
        char *dp = rp_fmt("%s/%s", o->root, divisions[d]);
        char **subs = NULL;
        size_t nsub = 0;
        if ((rc = rp_list(dp, 1, &subs, &nsub, e))) {
            free(dp);
            break;
        }
        for (size_t s = 0; s < nsub && !rc; s++) {
            if (o->submitter && strcmp(o->submitter, subs[s]))
                continue;
            char *sp = rp_fmt("%s/%s", dp, subs[s]);
            if (!sp) {
                rc = ms_err_oom(e);
                break;
            }
            json_t *mapping = NULL;
            if (!strcmp(divisions[d], "open")) {
                char *mpath = rp_fmt("%s/%s", sp,
                                     o->extra_model_benchmark_map ? o->extra_model_benchmark_map
                                                                  : "model_mapping.json");
                if (mpath && ms_is_regular_file(mpath)) {
                    ms_err le;
                    mapping = rp_json_load(mpath, &le);
                    if (!mapping) {
                        note(&c, "problem: %s (model mapping ignored)", le.msg);
                        st->problems++;
                    }
                }
                free(mpath);
            }
            const char *trees_split[] = {"results", "measurements", "compliance"};
            size_t ntrees = c.rules.unified ? 1 : 3;
            for (size_t t = 0; t < ntrees && !rc; t++) {
                if (t == 2 && o->upstream && strcmp(divisions[d], "closed"))
                    continue; /* upstream: compliance of closed only */
                rc = infer_tree(&c, divisions[d], subs[s], sp, trees_split[t], mapping, e);
            }
            json_decref(mapping);
            free(sp);
        }
        rp_list_free(subs, nsub);
        free(dp);
    }
    ru_round_free(&c.rules);
    ms_buf_free(&c.line);
    return rc;
}
