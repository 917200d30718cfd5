/* The plan shared by both profiles: linking scenarios to their submitter, system and model,
 * running the parallel phase, freeing. */
#include <stdlib.h>

#include "checker/internal.h"

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
    ck_parallel(pl->run->jobs, pl->nsubs + pl->nscens, task, pl);
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
}
