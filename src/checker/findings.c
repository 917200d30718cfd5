/* The check catalogue (IDs, titles, hints), recording findings, waivers and skips. */
#include <fnmatch.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"

static const ck_check_info checks[] = {
#define CK_CHECK(id, kind, title, hint) {#id, title, hint, CK_KIND_##kind},
#include "checker/checks.def"
#undef CK_CHECK
};

const ck_check_info *ck_checks(size_t *n)
{
    *n = CK_NCHECKS;
    return checks;
}

const ck_check_info *ck_check_find(const char *id)
{
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (!strcmp(checks[i].id, id))
            return &checks[i];
    return NULL;
}

void ck_flist_free(ck_flist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        ck_finding *f = &l->v[i];
        free(f->waiver);
        free(f->file);
        free(f->pointer);
        free(f->expected);
        free(f->found);
        free(f->message);
        for (int k = 0; k < 5; k++)
            free(f->group[k]);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int flist_reserve(ck_flist *l, size_t extra)
{
    if (extra > (size_t)-1 - l->n)
        return -1;
    return MS_GROW(l->v, l->cap, l->n + extra, 8);
}

int ck_flist_move(ck_flist *dst, ck_flist *src)
{
    if (!src->n)
        return 0;
    if (flist_reserve(dst, src->n))
        return -1;
    memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
    dst->n += src->n;
    free(src->v);
    memset(src, 0, sizeof *src);
    return 0;
}

/* The checks with an option of their own (the official checker's --skip-* flags), as
 * submission_checker.py main() and check_results_dir apply them; profile: -1 any, 0 legacy only,
 * 1 unified only. Any check can also be skipped with --skip ID. */
static const struct {
    const char *id, *flag;
    size_t off;
    int profile;
} skip_flags[] = {
    {CK_ID(S2), "--skip-extra-files-in-root-check", offsetof(ck_options, skip_extra_files_in_root_check), -1},
    {CK_ID(S10), "--skip-all-systems-have-results-check", offsetof(ck_options, skip_all_systems_have_results_check), -1},
    {CK_ID(S11), "--skip-calibration-check", offsetof(ck_options, skip_calibration_check), -1},
    {CK_ID(W4), "--skip-power-check", offsetof(ck_options, skip_power_check), -1},
    {CK_ID(E3), "--skip-check-power-measure-files", offsetof(ck_options, skip_check_power_measure_files), 0},
    {CK_ID(A8), "--skip-extra-accuracy-files-check", offsetof(ck_options, skip_extra_accuracy_files_check), -1},
    {CK_ID(A7), "--skip-dataset-size-check", offsetof(ck_options, skip_dataset_size_check), 1},
};

const char *ck_check_skip_flag(const char *id, int unified)
{
    for (size_t i = 0; i < sizeof skip_flags / sizeof *skip_flags; i++)
        if (!strcmp(skip_flags[i].id, id))
            return skip_flags[i].profile < 0 || skip_flags[i].profile == unified ? skip_flags[i].flag : NULL;
    return NULL;
}

int ck_skipped(const ck_state *run, const char *id)
{
    for (size_t i = 0; i < run->o->nskip; i++)
        if (!strcmp(run->o->skip_ids[i], id))
            return 1;
    for (size_t i = 0; i < sizeof skip_flags / sizeof *skip_flags; i++)
        if (!strcmp(skip_flags[i].id, id))
            return (skip_flags[i].profile < 0 || skip_flags[i].profile == run->rules.unified) &&
                   *(const int *)((const char *)run->o + skip_flags[i].off);
    return 0;
}

/* A waiver path matches the finding's file when equal, when it is a directory prefix, or as
 * an fnmatch(3) pattern. */
static int waiver_matches(const ck_waiver *w, const char *id, const char *file)
{
    if (strcmp(w->id, id) && strcmp(w->id, "*"))
        return 0;
    if (!file)
        return !strcmp(w->path, "*") || !strcmp(w->path, ".");
    size_t n = strlen(w->path);
    while (n > 1 && w->path[n - 1] == '/')
        n--;
    if (!strncmp(file, w->path, n) && (file[n] == '\0' || file[n] == '/'))
        return 1;
    return fnmatch(w->path, file, 0) == 0;
}

static char *dupn(const char *s)
{
    return s ? strdup(s) : NULL;
}

int ck_report_finding(ck_state *run, ck_flist *out, const ck_where *w, const char *id,
                      ck_sev sev, const char *file, long line, const char *pointer,
                      const char *expected, const char *found, const char *fmt, ...)
{
    if (ck_skipped(run, id))
        return 0;
    if (flist_reserve(out, 1)) {
        run->oom = 1;
        return sev == CK_SEV_ERROR;
    }
    ck_finding *f = &out->v[out->n];
    memset(f, 0, sizeof *f);
    const ck_check_info *ci = ck_check_find(id);
    f->id = ci ? ci->id : CK_ID(R1);
    f->sev = sev;
    f->key = -1;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&f->message, fmt, ap) < 0)
        f->message = NULL;
    va_end(ap);
    f->file = dupn(file);
    f->line = line;
    f->pointer = dupn(pointer);
    f->expected = dupn(expected);
    f->found = dupn(found);
    if (w) {
        const char *g[5] = {w->division, w->submitter, w->system, w->model, w->scenario};
        for (int k = 0; k < 5; k++)
            f->group[k] = dupn(g[k]);
    }
    if (!f->message) {
        run->oom = 1;
        f->message = NULL;
    }
    for (size_t i = 0; i < run->nwaivers; i++) {
        if (waiver_matches(&run->waivers[i], f->id, f->file)) {
            f->waived = 1;
            f->waiver = dupn(run->waivers[i].why);
            break;
        }
    }
    out->n++;
    if (f->waived)
        return 0;
    if (sev == CK_SEV_ERROR)
        return 1;
    if (sev == CK_SEV_WARNING && run->o->strict)
        return 1;
    return 0;
}
