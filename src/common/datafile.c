/* Rules and dataset lookup: see datafile.h. */
#include "common/datafile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"

/* The directory of the running binary (symbolic links resolved when resolve is set). */
static int exe_dir(char *out, size_t n, int resolve)
{
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return -1;
    exe[k] = '\0';
    char real[PATH_MAX];
    const char *p = resolve && realpath(exe, real) ? real : exe;
    const char *slash = strrchr(p, '/');
    if (!slash || (size_t)(slash - p) >= n)
        return -1;
    memcpy(out, p, (size_t)(slash - p));
    out[slash - p] = '\0';
    return 0;
}

int ms_find_rules_file(const char *name, char *out, size_t n)
{
    const char *env = getenv("MLSUBMIT_RULES");
    if (env && *env) {
        snprintf(out, n, "%s/%s", env, name);
        return ms_is_regular_file(out);
    }
    snprintf(out, n, "rules/%s", name);
    if (ms_is_regular_file(out))
        return 1;
    char dir[PATH_MAX];
    if (exe_dir(dir, sizeof dir, 0))
        return 0;
    static const char *const rel[] = {"../rules", "../share/mlsubmit/rules"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(out, n, "%s/%s/%s", dir, rel[i], name);
        if (ms_is_regular_file(out))
            return 1;
    }
    snprintf(out, n, "rules/%s", name);
    return 0;
}

/* dir holds marker: dir is returned (malloc'd); else "dir (why)" is added to the places tried */
static char *try_dir(const char *dir, const char *why, const char *marker, ms_buf *tried, int *oom)
{
    char *f = ms_path_join(dir, marker);
    if (!f) {
        *oom = 1;
        return NULL;
    }
    int ok = ms_is_regular_file(f);
    free(f);
    if (ok) {
        char *d = strdup(dir);
        if (!d)
            *oom = 1;
        return d;
    }
    if (ms_buf_printf(tried, "%s%s%s%s%s", tried->len ? ", " : "", dir, why ? " (" : "", why ? why : "",
                      why ? ")" : ""))
        *oom = 1;
    return NULL;
}

char *ms_find_dataset_dir(const char *given, const char *dataset, const char *marker, ms_err *e)
{
    ms_buf tried = MS_BUF_INIT;
    int oom = 0;
    char *found = NULL;
    char path[PATH_MAX + 64];
    if (given && *given) {
        snprintf(path, sizeof path, "%s/%s", given, dataset);
        if (!(found = try_dir(path, NULL, marker, &tried, &oom)) && !oom)
            found = try_dir(given, NULL, marker, &tried, &oom);
    } else {
        const char *env = getenv("MLSUBMIT_DATA");
        if (env && *env) {
            snprintf(path, sizeof path, "%s/%s", env, dataset);
            found = try_dir(path, "MLSUBMIT_DATA", marker, &tried, &oom);
        }
        if (!found && !oom) {
            snprintf(path, sizeof path, "data/%s", dataset);
            found = try_dir(path, "working directory", marker, &tried, &oom);
        }
        char dir[PATH_MAX];
        static const struct {
            const char *rel, *why;
        } beside[] = {{"../data", "build tree"}, {"../share/mlsubmit/data", "installation"}};
        int have_exe = !exe_dir(dir, sizeof dir, 1);
        for (size_t i = 0; have_exe && !found && !oom && i < sizeof beside / sizeof *beside; i++) {
            snprintf(path, sizeof path, "%s/%s/%s", dir, beside[i].rel, dataset);
            found = try_dir(path, beside[i].why, marker, &tried, &oom);
        }
    }
    if (oom) {
        free(found);
        ms_buf_free(&tried);
        ms_err_oom(e);
        return NULL;
    }
    if (!found) {
        if (given && *given)
            ms_err_set(e, MS_EINPUT, "%s: no %s dataset (%s); tried %s", given, dataset, marker, tried.data);
        else
            ms_err_set(e, MS_EINPUT,
                       "no %s dataset (%s); tried %s. Run 'make data' ('make install' then installs it), "
                       "give --data DIR (the folder holding %s/) or set MLSUBMIT_DATA",
                       dataset, marker, tried.data, dataset);
    }
    ms_buf_free(&tried);
    return found;
}
