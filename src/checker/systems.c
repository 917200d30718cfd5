/* System-description checks (Y1-Y10), once per system directory. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"
#include "common/pyfmt.h"

#define YF(id, sev, ptr, exp, found, ...)                                                     \
    ck_report_finding(run, &sys->findings, &w, id, sev, rel, 0, ptr, exp, found, __VA_ARGS__)


/* Python's str() of a JSON value, as the checkers print it (malloc'd; NULL when out of memory) */
static char *py_str(const json_t *v)
{
    ms_buf b = MS_BUF_INIT;
    char *t = ms_py_str_json(&b, v) == 0 ? ms_buf_steal(&b) : NULL;
    ms_buf_free(&b);
    return t;
}
static int lower_eq(const char *a, const char *b)
{
    return a && b && !strcasecmp(a, b);
}

static int covered(const char *ptr, const char *const *fields)
{
    for (size_t i = 0; fields[i]; i++)
        if (ptr[0] == '/' && !strcmp(ptr + 1, fields[i]))
            return 1;
    return 0;
}

void ck_check_system(ck_state *run, ck_system *sys, const char *division, const char *submitter,
                     const char *abs)
{
    const ck_rules *r = &run->rules;
    ck_where w = {division, submitter, sys->name, NULL, NULL};
    const char *rel = sys->json_rel;
    int unified = r->unified;
    sys->ok = 0;
    if (!ck_isfile(abs)) {
        YF(CK_ID(Y1), CK_SEV_ERROR, NULL, NULL, NULL, "no system_desc for %s/%s/%s%s", division, submitter,
           sys->name, unified ? " (the unified checker crashes on this)" : "");
        return;
    }
    json_error_t je;
    sys->j = ms_json_load_path(abs, JSON_ALLOW_NUL, &je);
    if (!sys->j) {
        ck_report_finding(run, &sys->findings, &w, CK_ID(Y9), CK_SEV_ERROR, rel, je.line > 0 ? je.line : 0,
                          NULL, "a JSON object", je.text, "cannot parse the system description: %s",
                          je.text);
        return;
    }
    if (!json_is_object(sys->j)) {
        YF(CK_ID(Y9), CK_SEV_ERROR, NULL, "a JSON object", "another JSON value",
           "the system description must be a JSON object");
        return;
    }
    size_t start = sys->findings.n;
    json_t *j = sys->j;
    /* Y2 */
    const json_t *status = json_object_get(j, "status");
    if (!json_is_string(status) && r->sw.status_checked) {
        /* status_checked false (submission-checker.py v0.7.1, check_results_dir): status is
         * only system_json.get("status") put through fmt.format's str(), any JSON value does;
         * a missing status is Y5's, a required field */
        YF(CK_ID(Y9), CK_SEV_ERROR, "/status", "a string", status ? "another JSON value" : "missing",
           "status must be a string (the MLCommons checker crashes otherwise)");
    } else if (json_is_string(status)) {
        char low[64];
        snprintf(low, sizeof low, "%s", json_string_value(status));
        for (char *p = low; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        if (r->sw.status_checked && !ck_rlist_has(r, "valid_availabilities", low))
            YF(CK_ID(Y2), CK_SEV_ERROR, "/status", "available, preview or rdi", json_string_value(status),
               "%s has invalid status (%s)", rel, low);
    }
    /* Y3 */
    const json_t *st = json_object_get(j, "system_type");
    const char *stype = json_string_value(st);
    if (!ck_rget(r, "valid_system_types")) {
        sys->category = "any";  /* a round without system types (v0.5) */
        /* Config.set_type of tag v0.7.1 returns for None (v0.5), takes datacenter or edge, and
         * raises ValueError on anything else: the checker stops there */
        if (st && !json_is_null(st) && ck_rget(r, "system_types_if_present") &&
            !(stype && ck_rlist_has(r, "system_types_if_present", stype))) {
            char *t = py_str(st);
            YF(CK_ID(Y3), CK_SEV_ERROR, "/system_type", "absent, null, datacenter or edge",
               t ? t : "None", "%s has invalid system type (%s): the MLCommons checker stops "
               "(set_type: ValueError: invalid system type)", rel, t ? t : "None");
            free(t);
        }
    } else if (stype && ck_rlist_has(r, "valid_system_types", stype)) {
        sys->category = stype;
    } else {
        char *t = py_str(st);
        YF(CK_ID(Y3), CK_SEV_ERROR, "/system_type", "datacenter, edge, datacenter,edge or edge,datacenter",
           t ? t : "None", "%s has invalid system type (%s)", rel, t ? t : "None");
        free(t);
    }
    sys->walkable = sys->category != NULL;
    /* Y4: network mode */
    /* network_mode_checked false (before is_system_over_network, tag v2.1): not read at all */
    const json_t *isn = r->sw.network_mode_checked ? json_object_get(j, "is_network") : NULL;
    int net_str = 0, net_truthy = ms_py_truthy(isn);
    if (isn && !json_is_string(isn) && !json_is_null(isn)) {
        YF(CK_ID(Y9), CK_SEV_ERROR, "/is_network", "the string \"true\" or \"false\"", "a non-string value",
           "is_network must be a string (the MLCommons checker crashes on a JSON boolean)");
    } else if (json_is_string(isn)) {
        net_str = lower_eq(json_string_value(isn), "true");
    }
    sys->is_network = net_str;
    int want = !r->sw.network_mode_checked ? -1 : !strcmp(division, "network") ? 1 : !strcmp(division, "closed") ? 0 : -1;
    if (want >= 0 && want != net_str)
        YF(CK_ID(Y4), CK_SEV_ERROR, "/is_network", want ? "\"true\"" : "absent or \"false\"",
           net_str ? "true" : "false", "%s incorrect network mode (=%s) for division '%s'", rel,
           net_str ? "True" : "False", division);
    /* Y5: required and meaningful fields */
    const json_t *req = ck_rget(r, "system_desc_required_fields");
    const json_t *netf = ck_rget(r, "system_desc_network_fields");
    const json_t *mean = ck_rget(r, "system_desc_meaningful_fields");
    int need_net = unified ? net_truthy : net_str;
    for (int pass = 0; pass < 2; pass++) {
        const json_t *list = pass ? netf : req;
        if (pass && !need_net)
            break;
        for (size_t i = 0; i < json_array_size(list); i++) {
            const char *k = json_string_value(json_array_get(list, i));
            const json_t *v = json_object_get(j, k);
            int missing = !v;
            int empty = !missing && !run->o->skip_meaningful_fields_emptiness_check && !ms_py_truthy(v) &&
                        ck_jlist_has(mean, k);
            if (!missing && !empty)
                continue; /* (the JSON pointer is built only for a finding) */
            char *ptr = ms_json_pointer_append("", k);
            if (missing)
                YF(CK_ID(Y5), CK_SEV_ERROR, ptr, "present", "missing", "%s, field %s is missing", rel, k);
            else
                YF(CK_ID(Y5), CK_SEV_ERROR, ptr, "a meaningful response", "empty",
                   "%s, field %s requires a meaningful response but is empty%s", rel, k,
                   json_is_integer(v) ? " (the integer 0 counts as empty; write \"0\")" : "");
            free(ptr);
        }
    }
    ck_check_network_system(run, sys, division, submitter, abs); /* N1-N3 */
    /* Y8: unknown fields (legacy warning) */
    if (!unified) {
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            if (ck_jlist_has(req, k) || ck_jlist_has(netf, k) ||
                ck_rlist_has(r, "system_desc_power_fields_known_not_enforced", k) ||
                !strcmp(k, "system_power_capacity"))
                continue;
            char *ptr = ms_json_pointer_append("", k);
            YF(CK_ID(Y8), CK_SEV_WARNING, ptr, NULL, k, "%s, field %s is unknown", rel, k);
            free(ptr);
        }
    }
    /* Y6 */
    const json_t *sub = json_object_get(j, "submitter");
    if (!json_is_string(sub))
        YF(CK_ID(Y9), CK_SEV_ERROR, "/submitter", "a string", sub ? "another JSON value" : "missing",
           "submitter must be a string (the MLCommons checker crashes otherwise)");
    else if (r->sw.submitter_case_sensitive ? strcmp(json_string_value(sub), submitter) != 0
                                            : !lower_eq(json_string_value(sub), submitter))
        YF(CK_ID(Y6), CK_SEV_ERROR, "/submitter", submitter, json_string_value(sub),
           "%s has submitter %s, directory has %s", rel, json_string_value(sub), submitter);
    /* Y7 */
    const char *div = json_string_value(json_object_get(j, "division"));
    if (!div || (unified ? strcasecmp(div, division) : strcmp(div, division))) {
        char *t = py_str(json_object_get(j, "division"));
        YF(CK_ID(Y7), CK_SEV_ERROR, "/division", division, t ? t : "None",
           "%s has division %s, division has %s", rel, t ? t : "None", division);
        free(t);
    }
    /* Y9: values the legacy CSV writer concatenates as strings ('"' + value + '"'): only
     * the columns the round's log_result quotes (csv_quoted_columns_legacy; v0.7.1 writes none
     * of these fields). The reference fails there only when it writes a row of the system
     * (log_result): these findings do not stop its models from being checked (csv_start..) */
    size_t csv_start = sys->findings.n;
    if (!unified) {
        const json_t *quoted = ck_rget(r, "csv_quoted_columns_legacy");
        /* each field and its summary.csv column */
        static const char *const strs[][2] = {{"system_name", "SystemName"},
                                              {"host_processor_model_name", "host_processor_model_name"},
                                              {"accelerator_model_name", "accelerator_model_name"},
                                              {"framework", "framework"},
                                              {"operating_system", "operating_system"}};
        for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
            const json_t *v = json_object_get(j, strs[i][0]);
            if (v && !json_is_string(v) && ck_jlist_has(quoted, strs[i][1])) {
                char *ptr = ms_json_pointer_append("", strs[i][0]);
                YF(CK_ID(Y9), CK_SEV_ERROR, ptr, "a string", "another JSON value",
                   "%s must be a string (the MLCommons checker crashes writing summary.csv)",
                   strs[i][0]);
                free(ptr);
            }
        }
        const json_t *hw = json_object_get(j, "hw_notes"), *sw = json_object_get(j, "sw_notes");
        /* log_result (v5.1.1): with sw_notes truthy, `hw_notes + ". "` runs when hw_notes is
         * truthy and `... + sw_notes` always; without, `'"' + hw_notes + '"'`. Before v2.1
         * (csv_notes_always_joined, log_result of tag v1.0.1): `hw_notes + ". " + sw_notes`
         * whatever hw_notes is, so any hw_notes but a string fails either way */
        if (ck_jlist_has(quoted, "notes") &&
            ((hw && !json_is_string(hw) &&
              (r->sw.csv_notes_always_joined || !ms_py_truthy(sw) || ms_py_truthy(hw))) ||
             (sw && ms_py_truthy(sw) && !json_is_string(sw))))
            YF(CK_ID(Y9), CK_SEV_ERROR, "/hw_notes", "strings", "another JSON value",
               "hw_notes/sw_notes must be strings (the MLCommons checker crashes writing "
               "summary.csv)");
    }
    size_t csv_end = sys->findings.n;
    /* Y10 (stricter): the schema, for what Y2-Y9 do not already say */
    if (run->sys_schema) {
        static const char *const done[] = {"status", "system_type", "division", "submitter",
                                           "is_network", "system_name", "host_processor_model_name",
                                           "accelerator_model_name", "framework",
                                           "operating_system", "hw_notes", "sw_notes", NULL};
        ms_jschema_errors errs = {0};
        ms_err e;
        if (ms_jschema_validate(run->sys_schema, j, &errs, 40, &e) == 0) {
            for (size_t i = 0; i < errs.n; i++) {
                const ms_jschema_error *x = &errs.v[i];
                if (!strcmp(x->keyword, "required") || !strcmp(x->keyword, "additionalProperties") ||
                    !strcmp(x->keyword, "not") || covered(x->pointer, done))
                    continue;
                ck_report_finding(run, &sys->findings, &w, CK_ID(Y10), CK_SEV_WARNING, rel, 0, x->pointer,
                                  NULL, NULL, "%s (%s)", x->message, x->keyword);
            }
        }
        ms_jschema_errors_free(&errs);
    }
    sys->ok = 1;
    for (size_t i = start; i < sys->findings.n; i++) {
        const ck_finding *f = &sys->findings.v[i];
        if (!f->waived && (f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict)) &&
            (i < csv_start || i >= csv_end))
            sys->ok = 0;
    }
}

void ck_system_free(ck_system *s)
{
    free(s->name);
    free(s->json_rel);
    free(s->np_text);
    json_decref(s->j);
    ck_flist_free(&s->findings);
}
