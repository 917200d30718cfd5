/* The Network division's checks beyond the official verdict (N1-N3; stricter: warnings unless
 * --strict), once per system of the network division. The official checker's own network
 * checks are Y4/Y5 (is_network, the required network fields: submission_checker.py,
 * is_system_over_network and check_system_desc_id) and P15 (the "Network SUT" name:
 * check_performance_dir). These follow the MLPerf Inference rules of the division
 * (inference_rules.adoc, "Network division"): datacenter systems only; the network described
 * in earnest (fabric, protocol, interfaces of both sides); the Query Dispatch Library's code and
 * documentation published with the submission. Facts: rules/<v>.json, key network_division
 * (system_types, count_fields, qdl_code_dir); a round without the key gets none of these. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"
#include "common/fsutil.h"

/* 1 if dir holds a regular file (at most depth levels down, hidden names skipped). */
static int has_file(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *p = ms_path_join(dir, de->d_name);
        if (!p)
            break;
        if (ck_isfile(p))
            found = 1;
        else if (depth > 0 && ck_isdir(p))
            found = has_file(p, depth - 1);
        free(p);
    }
    closedir(d);
    return found;
}

/* The directory part of path (malloc'd), or NULL. */
static char *parent(const char *path)
{
    const char *sl = strrchr(path, '/');
    return sl ? strndup(path, (size_t)(sl - path)) : strdup(".");
}

/* A count field: a positive integer, written as a string or a JSON integer. */
static int positive_count(const json_t *v)
{
    if (json_is_integer(v))
        return json_integer_value(v) > 0;
    const char *s = json_string_value(v);
    if (!s)
        return 0;
    while (*s == ' ')
        s++;
    char *end;
    long n = strtol(s, &end, 10);
    while (*end == ' ')
        end++;
    return end != s && *end == '\0' && n > 0;
}

void ck_check_network_system(ck_state *run, ck_system *sys, const char *division, const char *submitter,
                             const char *abs)
{
    const json_t *nd = ck_rget(&run->rules, "network_division");
    if (!nd || !sys->j || strcmp(division, "network") != 0)
        return;
    ck_where w = {division, submitter, sys->name, NULL, NULL};
    const char *rel = sys->json_rel;
    /* N1: datacenter only */
    const json_t *types = json_object_get(nd, "system_types");
    const char *stype = json_string_value(json_object_get(sys->j, "system_type"));
    if (stype && json_array_size(types)) {
        int ok = 0;
        for (size_t i = 0; i < json_array_size(types); i++)
            ok |= !strcmp(stype, json_string_value(json_array_get(types, i)));
        if (!ok)
            ck_report_finding(run, &sys->findings, &w, CK_ID(N1), CK_SEV_WARNING, rel, 0, "/system_type", "datacenter",
                              stype, "%s: system_type '%s': the Network division is for datacenter systems only",
                              rel, stype);
    }
    /* N2: the network described: every network field a non-empty text, the counts positive */
    const json_t *netf = ck_rget(&run->rules, "system_desc_network_fields");
    const json_t *counts = json_object_get(nd, "count_fields");
    for (size_t i = 0; i < json_array_size(netf); i++) {
        const char *k = json_string_value(json_array_get(netf, i));
        const json_t *v = json_object_get(sys->j, k);
        if (!v)
            continue; /* Y5 reports it */
        char *ptr = ms_json_pointer_append("", k);
        int is_count = 0;
        for (size_t c = 0; c < json_array_size(counts); c++)
            is_count |= !strcmp(k, json_string_value(json_array_get(counts, c)));
        const char *s = json_string_value(v);
        if (is_count && !positive_count(v))
            ck_report_finding(run, &sys->findings, &w, CK_ID(N2), CK_SEV_WARNING, rel, 0, ptr, "a positive count",
                              s ? s : "not a count", "%s, field %s: expected a positive count of %s", rel, k,
                              !strcmp(k, "number_connections") ? "connections" : "network interfaces");
        else if (!is_count && (!s || !s[strspn(s, " \t")]))
            ck_report_finding(run, &sys->findings, &w, CK_ID(N2), CK_SEV_WARNING, rel, 0, ptr, "a description",
                              s ? "empty" : "not a string", "%s, field %s: the network division needs it described",
                              rel, k);
        free(ptr);
    }
    /* N3: the QDL's code and documentation in the submitter's code directory */
    const char *cdir = json_string_value(json_object_get(nd, "qdl_code_dir"));
    if (cdir && abs) {
        char *sysdir = parent(abs);         /* <submitter>/systems */
        char *subdir = sysdir ? parent(sysdir) : NULL;
        char *code = subdir ? ms_path_join(subdir, cdir) : NULL;
        if (code && !has_file(code, 8)) {
            char *crel = ms_path_join(division, submitter);
            char *crel2 = crel ? ms_path_join(crel, cdir) : NULL;
            ck_report_finding(run, &sys->findings, &w, CK_ID(N3), CK_SEV_WARNING, crel2 ? crel2 : cdir, 0, NULL,
                              "the QDL's source and documentation", "no file",
                              "%s/: no file; the network division publishes the Query Dispatch Library's code "
                              "and the documentation of what it sends over the network", crel2 ? crel2 : cdir);
            free(crel);
            free(crel2);
        }
        free(sysdir);
        free(subdir);
        free(code);
    }
}
