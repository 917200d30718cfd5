/* Running the checker for the index, package and report, through checker.h only: its results
 * come as data (ck_report_rows: the summary.csv rows; ck_report_document: the JSON report's
 * document), no file is written. */
#include "report/internal.h"

#include <stdlib.h>
#include <string.h>

void rp_check_out_free(rp_check_out *c)
{
    ms_csv_free(&c->csv);
    json_decref(c->report);
    free(c->version);
    memset(c, 0, sizeof *c);
}

int rp_check_run(const char *root, const char *version, const char *data_dir,
                 const ck_options *opts, rp_check_out *out, ms_err *e)
{
    memset(out, 0, sizeof *out);
    ck_options o;
    if (opts)
        o = *opts;
    else
        memset(&o, 0, sizeof o);
    o.root = root;
    o.version = version;
    char *dd = data_dir ? strdup(data_dir) : ru_data_dir(NULL, NULL, e);
    if (!dd)
        return data_dir ? ms_err_oom(e) : MS_EINPUT;
    o.data_dir = dd;
    ck_report *rep = NULL;
    int rc = ck_run(&o, &rep, e);
    if (rc) {
        free(dd);
        return rc;
    }
    out->exit_code = ck_report_exit_code(rep);
    if ((rc = ck_report_rows(rep, &out->csv, e)) == MS_OK && !(out->report = ck_report_document(rep, e)))
        rc = MS_ERUNTIME;
    if (rc == MS_OK) {
        const char *v = json_string_value(json_object_get(out->report, "rules_version"));
        if (!(out->version = strdup(v ? v : (version ? version : ""))))
            rc = ms_err_oom(e);
    }
    free(dd);
    ck_report_free(rep);
    if (rc)
        rp_check_out_free(out);
    return rc;
}

/* Groups the findings that count against the verdict by check ID, in the order first seen:
 * "S2 files at the root (1 finding: 'notes.txt'; skipped by --skip-extra-files-in-root-check)".
 * Only the official checker's own options are named: they skip what a round may waive (files at
 * the root of the published repository, power); the other checks are the rules themselves. */
void rp_check_failure_text(const json_t *findings, int unified, char *out, size_t outsz)
{
    enum { MAXIDS = 6 };
    const char *ids[MAXIDS];
    const char *title[MAXIDS], *file[MAXIDS];
    size_t count[MAXIDS], nids = 0, more = 0;
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        if (!json_is_true(json_object_get(f, "counts")))
            continue;
        const char *id = json_string_value(json_object_get(f, "id"));
        if (!id)
            continue;
        size_t k = 0;
        while (k < nids && strcmp(ids[k], id))
            k++;
        if (k < nids) {
            count[k]++;
            continue;
        }
        if (nids == MAXIDS) {
            more++;
            continue;
        }
        ids[nids] = id;
        title[nids] = json_string_value(json_object_get(f, "title"));
        file[nids] = json_string_value(json_object_get(f, "file"));
        if (!file[nids] || !*file[nids]) /* a finding about the root names what it found */
            file[nids] = json_string_value(json_object_get(f, "found"));
        count[nids++] = 1;
    }
    size_t len = 0;
    out[0] = 0;
    for (size_t k = 0; k < nids && len < outsz; k++) {
        const char *flag = ck_check_skip_flag(ids[k], unified);
        int n = snprintf(out + len, outsz - len, "%s%s%s%s (%zu finding%s%s%s%s%s)", k ? ", " : "", ids[k],
                         title[k] ? " " : "", title[k] ? title[k] : "", count[k], count[k] == 1 ? "" : "s",
                         file[k] && *file[k] ? (count[k] == 1 ? ": " : ", first: ") : "",
                         file[k] && *file[k] ? file[k] : "", flag ? "; skipped by " : "", flag ? flag : "");
        if (n < 0)
            break;
        len += (size_t)n;
    }
    if (more && len < outsz)
        snprintf(out + len, outsz - len, " and %zu more finding%s", more, more == 1 ? "" : "s");
    if (!nids && outsz)
        snprintf(out, outsz, "errors");
}

int rp_check_unified(const rp_check_out *c)
{
    const char *p = json_string_value(json_object_get(c->report, "profile"));
    return p ? !strcmp(p, "unified") : -1;
}
