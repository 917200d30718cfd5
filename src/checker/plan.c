/* The plan shared by both profiles: the system descriptions checked ahead, linking scenarios
 * to their submitter, system and model, running the parallel phase, freeing. */
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"

/* The system descriptions are checked ahead of the plan, all at once on every core (they were
 * most of the plan's serial time): ck_check_system depends only on its arguments, the read-only
 * rules and schemas and the files, and writes only the system it is given (its findings in the
 * system's own list), so the plan takes each result where it would have computed it and the
 * output does not change. The candidates are the <division>/<submitter>/results/<system>
 * directories the plan visits (the same listings, which the store then answers); one the plan
 * does not get to (S3, a failed model mapping, no results/ in the unified layout) is freed
 * unused. Best effort: without memory for a candidate the plan checks that system itself. */
void ck_presys_division(ck_plan *pl, const char *div)
{
    ck_state *run = pl->run;
    char *dabs = ck_join(run->root, div);
    ck_dir dd;
    if (!dabs || ck_dir_read(&dd, dabs)) {
        free(dabs);
        return;
    }
    for (size_t si = 0; si < dd.n; si++) {
        const ck_entry *se = &dd.v[si];
        if (!se->is_dir || (run->o->submitter && strcmp(run->o->submitter, se->name)))
            continue;
        char *rabs = ck_join3(dabs, se->name, "results");
        ck_dir rd;
        if (!rabs || !ck_pexists(rabs) || ck_dir_read(&rd, rabs)) {
            free(rabs);
            continue;
        }
        for (size_t yi = 0; yi < rd.n; yi++) {
            const char *y = rd.v[yi].name;
            if (!rd.v[yi].is_dir)
                continue;
            if (MS_GROW(pl->pre, pl->cappre, pl->npre + 1, 64))
                break;
            ck_pre_sys *p = &pl->pre[pl->npre];
            memset(p, 0, sizeof *p);
            p->div = strdup(div);
            p->sub = strdup(se->name);
            p->sys.name = strdup(y);
            p->sys.json_rel = ck_fmt("%s/%s/systems/%s.json", div, se->name, y);
            p->abs = p->sys.json_rel ? ck_join(run->root, p->sys.json_rel) : NULL;
            if (!p->div || !p->sub || !p->sys.name || !p->abs) {
                free(p->div);
                free(p->sub);
                free(p->abs);
                ck_system_free(&p->sys);
                continue;
            }
            pl->npre++;
        }
        ck_dir_free(&rd);
        free(rabs);
    }
    ck_dir_free(&dd);
    free(dabs);
}

/* The listings the plan then makes of this system's results, <sub>/results/<system> and each
 * <sub>/results/<system>/<model> (both profiles), made here on every core: the run's listing
 * store (fsx.c) keeps them, so the plan's serial pass reads them from memory. Best effort: a
 * listing that fails is simply made again (and fails again) by the plan. */
static void prefetch_results(const ck_state *run, const ck_pre_sys *p)
{
    char *sub = ck_join3(run->root, p->div, p->sub);
    char *yabs = sub ? ck_join3(sub, "results", p->sys.name) : NULL;
    ck_dir md;
    if (yabs && ck_dir_read(&md, yabs) == 0) {
        for (size_t mi = 0; mi < md.n; mi++) {
            if (!md.v[mi].is_dir)
                continue;
            char *mabs = ck_join(yabs, md.v[mi].name);
            ck_dir sd;
            if (mabs && ck_dir_read(&sd, mabs) == 0)
                ck_dir_free(&sd);
            free(mabs);
        }
        ck_dir_free(&md);
    }
    free(yabs);
    free(sub);
}

/* The plan's own listings of a submitter's folders (ck_plan.sub_prefetch), by the task of the
 * submitter's first system: into the listing store, off the plan's serial path. */
static void prefetch_submitter(const ck_plan *pl, size_t i)
{
    const ck_pre_sys *p = &pl->pre[i];
    if (!pl->sub_prefetch || (i > 0 && !strcmp(pl->pre[i - 1].sub, p->sub) && !strcmp(pl->pre[i - 1].div, p->div)))
        return;
    char *sub = ck_join3(pl->run->root, p->div, p->sub);
    for (size_t k = 0; sub && pl->sub_prefetch[k]; k++) {
        char *d = ck_join(sub, pl->sub_prefetch[k]);
        ck_dir dd;
        if (d && ck_dir_read(&dd, d) == 0)
            ck_dir_free(&dd);
        free(d);
    }
    free(sub);
}

static void presys_task(void *ctx, size_t i)
{
    ck_plan *pl = ctx;
    ck_pre_sys *p = &pl->pre[i];
    if (ck_fs_cache_current())
        prefetch_submitter(pl, i);
    ck_check_system(pl->run, &p->sys, p->div, p->sub, p->abs);
    if (ck_fs_cache_current())
        prefetch_results(pl->run, p);
}

void ck_presys_run(ck_plan *pl)
{
    double t0 = ck_now_ms();
    if (pl->npre)
        ck_parallel(pl->run->jobs, pl->npre, presys_task, pl);
    pl->run->timings.systems_ms += ck_now_ms() - t0;
    pl->run->timings.systems += pl->npre;
}

/* Moves the system checked ahead for div/sub/name into *sys (whose name and json_rel, the same
 * strings, are replaced) */
int ck_presys_take(ck_plan *pl, const char *div, const char *sub, ck_system *sys)
{
    for (size_t i = pl->pre_next; i < pl->npre; i++) {
        ck_pre_sys *p = &pl->pre[i];
        if (!strcmp(p->div, div) && !strcmp(p->sub, sub) && !strcmp(p->sys.name, sys->name)) {
            free(sys->name);
            free(sys->json_rel);
            *sys = p->sys;
            memset(&p->sys, 0, sizeof p->sys);
            pl->pre_next = i + 1;
            return 1;
        }
    }
    return 0;
}

static void link_plan(ck_plan *pl)
{
    for (size_t si = 0; si < pl->nsubs; si++) {
        ck_psub *ps = &pl->subs[si];
        for (size_t yi = ps->first; yi < ps->first + ps->n; yi++) {
            ck_psystem *py = &pl->syss[yi];
            for (size_t mi = py->first; mi < py->first + py->n; mi++) {
                ck_pmodel *pm = &pl->models[mi];
                for (size_t ci = pm->first; ci < pm->first + pm->n; ci++) {
                    ck_scen *s = &pl->scens[ci];
                    s->division = ps->sub.division;
                    s->submitter = ps->sub.name;
                    s->sub = &ps->sub;
                    s->system = py->sys.name;
                    s->sys = &py->sys;
                    s->model_dir = pm->dir;
                    s->mlperf_model = pm->mlperf;
                }
            }
        }
    }
}

static void task(void *ctx, size_t i)
{
    ck_plan *pl = ctx;
    if (i < pl->nsubs) {
        /* submitter tree checks (S4-S13) exist from the v3.0 checker on (tree_walk_checks) */
        if (!pl->subs[i].skip && pl->run->rules.sw.tree_walk_checks)
            ck_walk_submitter(pl->run, &pl->subs[i].sub);
        return;
    }
    ck_scen *s = &pl->scens[i - pl->nsubs];
    if (!s->skip_task)
        ck_eval_scenario(pl->run, s);
}

void ck_plan_run_tasks(ck_plan *pl)
{
    link_plan(pl);
    double t0 = ck_now_ms();
    ck_parallel(pl->run->jobs, pl->nsubs + pl->nscens, task, pl);
    pl->run->timings.tasks_ms += ck_now_ms() - t0;
    pl->run->timings.tasks += pl->nsubs + pl->nscens;
}

void ck_plan_free(ck_plan *pl)
{
    ck_scens_free(pl->scens, pl->nscens);
    for (size_t i = 0; i < pl->nmodels; i++) {
        free(pl->models[i].dir);
        ck_flist_free(&pl->models[i].f);
    }
    free(pl->models);
    for (size_t i = 0; i < pl->nsyss; i++)
        ck_system_free(&pl->syss[i].sys);
    free(pl->syss);
    for (size_t i = 0; i < pl->nsubs; i++) {
        ck_submitter_free(&pl->subs[i].sub);
        ck_flist_free(&pl->subs[i].f);
    }
    free(pl->subs);
    for (size_t i = 0; i < pl->npre; i++) {
        free(pl->pre[i].div);
        free(pl->pre[i].sub);
        free(pl->pre[i].abs);
        ck_system_free(&pl->pre[i].sys);
    }
    free(pl->pre);
}
