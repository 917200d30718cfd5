/* Rules data file lookup: see datafile.h. */
#include "common/datafile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"

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
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return 0;
    exe[k] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    static const char *const rel[] = {"../rules", "../share/mlsubmit/rules"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(out, n, "%s/%s/%s", exe, rel[i], name);
        if (ms_is_regular_file(out))
            return 1;
    }
    snprintf(out, n, "rules/%s", name);
    return 0;
}
