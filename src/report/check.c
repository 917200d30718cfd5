/* Running the checker for the index, package and report, through checker.h only: the CSV and
 * JSON writers take paths, so they write into a private mkdtemp directory under $TMPDIR that is
 * removed as soon as both files are read back. */
#include "report/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"

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
    char *dd = data_dir ? strdup(data_dir) : ck_find_data_dir(NULL, e);
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
    const char *t = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/mlsubmit-check-XXXXXX", t && *t ? t : "/tmp");
    char *dir = mkdtemp(tmpl);
    char *csvp = NULL, *jsp = NULL;
    if (!dir) {
        rc = ms_err_errno(e, MS_ERUNTIME, errno, "cannot create a temporary directory in %s", t && *t ? t : "/tmp");
        goto out;
    }
    csvp = rp_fmt("%s/summary.csv", dir);
    jsp = rp_fmt("%s/report.json", dir);
    if (!csvp || !jsp) {
        rc = ms_err_oom(e);
        goto out;
    }
    if ((rc = ck_report_write_csv(rep, csvp, e)) || (rc = ck_report_write_json(rep, jsp, e)))
        goto out;
    if ((rc = ms_csv_load(csvp, &out->csv, e)))
        goto out;
    if (!(out->report = rp_json_load(jsp, e))) {
        rc = MS_ERUNTIME;
        goto out;
    }
    const char *v = json_string_value(json_object_get(out->report, "rules_version"));
    if (!(out->version = strdup(v ? v : (version ? version : ""))))
        rc = ms_err_oom(e);
out:
    if (csvp)
        unlink(csvp);
    if (jsp)
        unlink(jsp);
    if (dir)
        rmdir(dir);
    free(csvp);
    free(jsp);
    free(dd);
    ck_report_free(rep);
    if (rc)
        rp_check_out_free(out);
    return rc;
}
