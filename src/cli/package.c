/* mlsubmit package: a reproducible tarball of a checked tree, and its verification. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rpopts.h"
#include "common/strutil.h"
#include "report/report.h"

static const char usage_text[] =
    "usage: mlsubmit package ROOT -o SUBMISSION.tar.gz [--force] [--version vX.Y] [--backup DIR]\n"
    "                        [--jobs N] [checker options]\n"
    "       mlsubmit package --verify SUBMISSION.tar.gz\n"
    "\n"
    "Checks the tree first and refuses to package a tree with errors (--force packages it\n"
    "anyway), then writes a reproducible tar.gz: the index of the tree (portable: SHA-256 of every\n"
    "file, results, findings, runs, truncation records of --backup) as the first member\n"
    "" "'.mlsubmit/index.sqlite', then every directory, file and link sorted by path, owner 0:0,\n"
    "mtime SOURCE_DATE_EPOCH (default 0), fixed permissions, gzip without timestamp: the same tree\n"
    "gives byte-identical packages. Symbolic links leaving ROOT are refused. SUBMISSION.tar.gz and\n"
    "SUBMISSION.tar.gz.sha256 (sha256sum format) are written as unnamed temporary files and\n"
    "linked into place when complete: an interrupted run leaves no partial output.\n"
    "\n"
    "--verify re-hashes every member against the embedded index and lists each difference by\n"
    "member name (CHANGED, MISSING, EXTRA, UNSAFE, ERROR); the .sha256 beside is checked too.\n"
    "\n"
    "Exit: 0 written / verified, 1 refused (checker errors, link leaving ROOT) / differences,\n"
    "2 usage, 3 bad input, 4 cannot write.\n";

static int package_run(rp_package_opts *op, cli_checker *ck, const char *verify, int npos, char **pos);

int cmd_package(int argc, char **argv)
{
    rp_package_opts o = {.note = rp_cli_print};
    cli_checker ck;
    cli_checker_init(&ck, "\nChecker options (as for 'mlsubmit check'):");
    const char *verify = NULL;
    const cli_opt opts[] = {
        CLI_STRING('o', "output", &o.output, "FILE", NULL),
        CLI_STRING(0, "version", &o.version, "vX.Y", NULL),
        CLI_STRING(0, "backup", &o.backup, "DIR", NULL),
        CLI_CALLBACK(0, "jobs", "N", NULL, cli_jobs_cb, &o.jobs),
        CLI_STRING(0, "verify", &verify, "FILE", NULL),
        CLI_FLAG(0, "force", &o.force, NULL),
        CLI_TABLE(ck.opts),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse("package", usage_text, opts, argc, argv, &pos);
    int rc = npos < 0 ? cli_parse_exit(npos) : package_run(&o, &ck, verify, npos, pos);
    cli_checker_free(&ck);
    return rc;
}

static int package_run(rp_package_opts *op, cli_checker *ck, const char *verify, int npos, char **pos)
{
    rp_package_opts o = *op;
    if (cli_root_arg("package", npos, pos, &o.root))
        return MS_EUSAGE;
    ms_err e;
    ms_err_clear(&e);
    if (verify) {
        if (o.root || o.output)
            return cli_usage_error("package", "--verify takes only the package");
        rp_verify_stats vs;
        int rc = rp_package_verify(verify, rp_cli_print, NULL, &vs, &e);
        if (rc)
            return cli_fail("package", &e);
        int bad = vs.changed || vs.missing || vs.extra || vs.errors || vs.sha256_file == 0;
        printf("verify %s: %s: %zu members, %zu ok, %zu changed, %zu missing, %zu extra, %zu errors; %s\n", verify,
               bad ? "FAILED" : "OK", vs.members, vs.ok, vs.changed, vs.missing, vs.extra, vs.errors,
               vs.sha256_file < 0 ? "no .sha256 beside" : vs.sha256_file ? ".sha256 matches" : ".sha256 DIFFERS");
        return bad ? MS_FAIL : MS_OK;
    }
    if (!o.root || !o.output)
        return cli_usage_error("package", "ROOT and -o SUBMISSION.tar.gz are required");
    cli_warn_not_root("package", o.root, "the package holds no results");
    o.check = &ck->o;
    rp_package_stats st;
    int rc = rp_package(&o, &st, &e);
    if (rc)
        return cli_fail("package", &e);
    printf("package %s: %zu members (%zu files, %zu directories, %zu links, %llu bytes), sha256 %s\n"
           "checksum: %s.sha256%s\n",
           o.output, st.members, st.files, st.dirs, st.symlinks, (unsigned long long)st.bytes, st.sha256, o.output,
           st.check_exit > 0 ? " (packaged with --force although the checker finds errors)" : "");
    if (st.check_exit > 0)
        fprintf(stderr, "mlsubmit package: warning: packaged with --force on a failed check: %s\n", st.check_failure);
    return MS_OK;
}
