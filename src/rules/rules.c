/* Rounds, rules and scenarios: see rules.h. */
#include "rules/rules.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jschema.h"

/* ------------------------------------------------------------ the data folder ---- */

/* The directory of exe (NULL: the running binary), symbolic links resolved. */
static int exe_dir(const char *exe, char *out, size_t n)
{
    char self[PATH_MAX];
    if (!exe) {
        ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
        if (k <= 0)
            return -1;
        self[k] = '\0';
        exe = self;
    }
    char real[PATH_MAX];
    const char *p = realpath(exe, real) ? real : exe;
    const char *slash = strrchr(p, '/');
    if (!slash || (size_t)(slash - p) >= n)
        return -1;
    memcpy(out, p, (size_t)(slash - p));
    out[slash - p] = '\0';
    return 0;
}

char *ru_data_path(const char *data, const char *sub, const char *name)
{
    char *s = NULL;
    int k;
    if (!strcmp(data, "."))
        k = name ? asprintf(&s, "%s/%s", sub, name) : asprintf(&s, "%s", sub);
    else
        k = name ? asprintf(&s, "%s/%s/%s", data, sub, name) : asprintf(&s, "%s/%s", data, sub);
    return k < 0 ? NULL : s;
}

/* dir has a rules/ directory: 1; else "dir (why)" is added to tried. -1 out of memory. */
static int try_data(const char *dir, const char *why, ms_buf *tried)
{
    char *p = ru_data_path(dir, "rules", NULL);
    if (!p)
        return -1;
    int ok = ms_is_dir(p);
    free(p);
    if (ok)
        return 1;
    return ms_buf_printf(tried, "%s%s (%s)", tried->len ? ", " : "", dir, why) ? -1 : 0;
}

char *ru_data_dir(const char *given, const char *exe, ms_err *e)
{
    ms_buf tried = MS_BUF_INIT;
    char path[PATH_MAX + 32];
    const char *found = NULL;
    int rc = 0;
    const char *env = getenv(RU_DATA_ENV), *old = getenv(RU_RULES_ENV_OLD);
    if (given) {
        if ((rc = try_data(given, "given", &tried)) == 1)
            found = given;
    } else if (env && *env) {
        if ((rc = try_data(env, RU_DATA_ENV, &tried)) == 1)
            found = env;
    } else if (old && *old) {
        snprintf(path, sizeof path, "%s/..", old);
        if ((rc = try_data(path, RU_RULES_ENV_OLD "/..", &tried)) == 1)
            found = path;
    } else {
        if ((rc = try_data(".", "working directory", &tried)) == 1)
            found = ".";
        char dir[PATH_MAX];
        static const struct {
            const char *rel, *why;
        } beside[] = {{"..", "build tree"}, {"../share/mlsubmit", "installation"}};
        int have_exe = !exe_dir(exe, dir, sizeof dir);
        for (size_t i = 0; have_exe && !found && rc == 0 && i < sizeof beside / sizeof *beside; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, beside[i].rel);
            if ((rc = try_data(path, beside[i].why, &tried)) == 1)
                found = path;
        }
    }
    char *out = NULL;
    if (rc < 0)
        ms_err_oom(e);
    else if (found) {
        if (!(out = strdup(found)))
            ms_err_oom(e);
    } else
        ms_err_set(e, MS_EINPUT,
                   "cannot find the data folder (a directory holding rules/ and schemas/); tried %s. "
                   "Set " RU_DATA_ENV ", run from the source tree, or keep the binary beside rules/ "
                   "(build tree) or in <prefix>/bin of an installation (<prefix>/share/mlsubmit)",
                   tried.data ? tried.data : "nothing");
    ms_buf_free(&tried);
    return out;
}

char *ru_rules_file(const char *name, ms_err *e)
{
    char *data = ru_data_dir(NULL, NULL, e);
    if (!data)
        return NULL;
    char *p = ru_data_path(data, "rules", name);
    free(data);
    if (!p)
        ms_err_oom(e);
    else if (!ms_is_regular_file(p)) {
        ms_err_set(e, MS_EINPUT, "%s not found (set " RU_DATA_ENV " to the folder holding rules/)", p);
        free(p);
        p = NULL;
    }
    return p;
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

char *ru_dataset_dir(const char *given, const char *dataset, const char *marker, ms_err *e)
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
        int have_exe = !exe_dir(NULL, dir, sizeof dir);
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

/* ------------------------------------------------------------------ rounds ---- */

static int parse_version(const char *name, int *maj, int *min)
{
    char *end;
    if (name[0] != 'v')
        return -1;
    long a = strtol(name + 1, &end, 10);
    if (*end != '.')
        return -1;
    long b = strtol(end + 1, &end, 10);
    if (strcmp(end, ".json"))
        return -1;
    *maj = (int)a;
    *min = (int)b;
    return 0;
}

/* version order of the names (v1.9 < v1.10 < v10.0) */
static int cmp_round(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

void ru_rounds_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int ru_rounds(const char *data, char ***names, size_t *n, ms_err *e)
{
    *names = NULL;
    *n = 0;
    char *rd = ru_data_path(data, "rules", NULL);
    if (!rd)
        return ms_err_oom(e);
    DIR *d = opendir(rd);
    if (!d) {
        int rc = ms_err_errno(e, MS_EINPUT, errno, "%s: cannot list the rules", rd);
        free(rd);
        return rc;
    }
    free(rd);
    char **v = NULL;
    size_t nv = 0, cap = 0;
    for (struct dirent *de; (de = readdir(d));) {
        int a, b;
        if (parse_version(de->d_name, &a, &b))
            continue;
        if (MS_GROW(v, cap, nv + 1, 32) || !(v[nv] = strndup(de->d_name, strlen(de->d_name) - 5))) {
            closedir(d);
            ru_rounds_free(v, nv);
            return ms_err_oom(e);
        }
        nv++;
    }
    closedir(d);
    if (nv > 1)
        qsort(v, nv, sizeof *v, cmp_round);
    *names = v;
    *n = nv;
    return MS_OK;
}

char *ru_newest_round(const char *data, ms_err *e)
{
    char **v;
    size_t n;
    if (ru_rounds(data, &v, &n, e))
        return NULL;
    if (!n) {
        char *rd = ru_data_path(data, "rules", NULL);
        ms_err_set(e, MS_EINPUT, "%s holds no v<major>.<minor>.json rules file", rd ? rd : "rules/");
        free(rd);
        ru_rounds_free(v, n);
        return NULL;
    }
    char *best = v[n - 1];
    v[n - 1] = NULL;
    ru_rounds_free(v, n);
    return best;
}

int ru_unknown_round(const char *data, const char *version, const char *path, ms_err *e)
{
    char **v;
    size_t n;
    ms_buf known = MS_BUF_INIT;
    if (ru_rounds(data, &v, &n, e) == MS_OK) {
        for (size_t i = 0; i < n; i++)
            if (ms_buf_puts(&known, i ? ", " : "") || ms_buf_puts(&known, v[i])) {
                ms_buf_free(&known);
                break;
            }
        ru_rounds_free(v, n);
    }
    int rc = ms_err_set(e, MS_EUSAGE, "unknown version '%s': no rules file %s (the rounds there: %s)",
                        version, path, known.data && *known.data ? known.data : "none");
    ms_buf_free(&known);
    return rc;
}

void ru_round_free(ru_round *r)
{
    json_decref(r->j);
    free(r->version);
    free(r->data_dir);
    free(r->path);
    memset(r, 0, sizeof *r);
}

int ru_round_load(ru_round *r, const char *data, const char *version, ms_err *e)
{
    memset(r, 0, sizeof *r);
    r->data_dir = data ? strdup(data) : ru_data_dir(NULL, NULL, e);
    if (!r->data_dir)
        return data ? ms_err_oom(e) : MS_EINPUT;
    r->version = version ? strdup(version) : ru_newest_round(r->data_dir, e);
    if (!r->version) {
        ru_round_free(r);
        return version ? ms_err_oom(e) : MS_EINPUT;
    }
    char name[128];
    snprintf(name, sizeof name, "%s.json", r->version);
    if (!(r->path = ru_data_path(r->data_dir, "rules", name))) {
        ru_round_free(r);
        return ms_err_oom(e);
    }
    if (!ms_is_regular_file(r->path)) {
        int rc = ru_unknown_round(r->data_dir, r->version, r->path, e);
        ru_round_free(r);
        return rc;
    }
    json_error_t je;
    if (!(r->j = json_load_file(r->path, 0, &je))) {
        int rc = ms_err_set(e, MS_EINPUT, "%s:%d:%d: %s", r->path, je.line, je.column, je.text);
        ru_round_free(r);
        return rc;
    }
    const char *prof = json_string_value(json_object_get(r->j, "profile"));
    r->unified = prof && !strcmp(prof, "unified");
    return MS_OK;
}

int ru_validate(const json_t *doc, const char *data, const char *definition, ms_buf *out, ms_err *e)
{
    char *sp = ru_data_path(data, "schemas", "rules.schema.json");
    if (!sp)
        return ms_err_oom(e), -1;
    ms_jschema *schema = NULL;
    int rc;
    if (!definition) {
        rc = ms_jschema_load(&schema, sp, e);
    } else {
        /* the definition as a schema of its own, with the definitions it refers to */
        json_error_t je;
        json_t *root = json_load_file(sp, 0, &je);
        json_t *sub = root ? json_object() : NULL;
        char ref[160];
        snprintf(ref, sizeof ref, "#/definitions/%s", definition);
        if (!root)
            rc = ms_err_set(e, MS_EINPUT, "%s:%d:%d: %s", sp, je.line, je.column, je.text);
        else if (!sub || json_object_set(sub, "$schema", json_object_get(root, "$schema")) ||
                 json_object_set(sub, "definitions", json_object_get(root, "definitions")) ||
                 json_object_set_new(sub, "$ref", json_string(ref)))
            rc = ms_err_oom(e);
        else
            rc = ms_jschema_new(&schema, sub, sp, e);
        json_decref(sub);
        json_decref(root);
    }
    free(sp);
    if (rc != MS_OK)
        return -1;
    ms_jschema_errors errs = {0};
    int v = ms_jschema_validate(schema, doc, &errs, 200, e);
    ms_jschema_free(schema);
    if (v < 0) {
        ms_jschema_errors_free(&errs);
        return -1;
    }
    int n = 0;
    for (size_t i = 0; i < errs.n; i++, n++)
        if (ms_buf_printf(out, "%s: %s (%s)\n", errs.v[i].pointer[0] ? errs.v[i].pointer : "/", errs.v[i].message,
                          errs.v[i].keyword)) {
            ms_jschema_errors_free(&errs);
            return ms_err_oom(e), -1;
        }
    ms_jschema_errors_free(&errs);
    return n;
}

/* ------------------------------------------------------------- model mapping ---- */

int ru_list_has(const json_t *arr, const char *s)
{
    if (!s)
        return 0;
    size_t n = json_array_size(arr);
    for (size_t i = 0; i < n; i++) {
        const char *v = json_string_value(json_array_get(arr, i));
        if (v && v[0] == s[0] && !strcmp(v, s))
            return 1;
    }
    return 0;
}

const char *ru_map_model(const json_t *rules, const char *dir, const json_t *extra, int extra_first)
{
    if (ru_list_has(json_object_get(rules, "models"), dir))
        return dir;
    const json_t *mapping = json_object_get(rules, "model_mapping");
    const char *m = extra_first ? json_string_value(json_object_get(extra, dir)) : NULL;
    if (m && *m)
        return m;
    m = json_string_value(json_object_get(mapping, dir));
    if (m && *m)
        return m;
    m = json_string_value(json_object_get(extra, dir));
    if (m && *m)
        return m;
    const char *guess = dir;
    const json_t *g = json_object_get(rules, "model_guesses");
    for (size_t i = 0; i < json_array_size(g) && guess == dir; i++) {
        const json_t *item = json_array_get(g, i);
        const char *model = json_string_value(json_object_get(item, "model"));
        const json_t *subs = json_object_get(item, "contains");
        const json_t *pfx = json_object_get(item, "prefix");
        for (size_t k = 0; model && k < json_array_size(subs) && guess == dir; k++) {
            const char *sub = json_string_value(json_array_get(subs, k));
            if (sub && strstr(dir, sub))
                guess = model;
        }
        for (size_t k = 0; model && k < json_array_size(pfx) && guess == dir; k++) {
            const char *pre = json_string_value(json_array_get(pfx, k));
            if (pre && !strncmp(dir, pre, strlen(pre)))
                guess = model;
        }
    }
    m = json_string_value(json_object_get(mapping, guess));
    return m ? m : guess;
}

/* ---------------------------------------------------------------- scenarios ---- */

static const char *const scenario_names[RU_NSCENARIOS] = {"SingleStream", "MultiStream", "Server", "Offline",
                                                          "Interactive"};

const char *ru_scenario_name(int s)
{
    return s >= 0 && s < RU_NSCENARIOS ? scenario_names[s] : NULL;
}

int ru_scenario_parse(const char *name)
{
    for (int i = 0; name && i < RU_NSCENARIOS; i++)
        if (!strcmp(name, scenario_names[i]))
            return i;
    return -1;
}

/* the lower-case spelling of a canonical name (the directories preprocess_submission.py writes) */
static int lower_eq(const char *dir, const char *name)
{
    size_t k = 0;
    for (; name[k] && dir[k]; k++) {
        char c = name[k];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (dir[k] != c)
            return 0;
    }
    return !name[k] && !dir[k];
}

int ru_scenario_from_dir(const json_t *rules, const char *dir)
{
    if (!dir)
        return -1;
    int s = ru_scenario_parse(dir);
    if (s >= 0)
        return s;
    if (rules)
        return ru_scenario_parse(json_string_value(json_object_get(json_object_get(rules, "scenario_dir_aliases"), dir)));
    for (int i = 0; i < RU_NSCENARIOS; i++)
        if (lower_eq(dir, scenario_names[i]))
            return i;
    return -1;
}

const char *ru_scenario_canon(const json_t *rules, const char *dir)
{
    return ru_scenario_name(ru_scenario_from_dir(rules, dir));
}
