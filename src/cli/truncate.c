/* mlsubmit truncate: accuracy-log truncation with a verifiable record (truncate_accuracy_log.py).
 * */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rpopts.h"
#include "report/report.h"

static const char usage_text[] =
    "usage: mlsubmit truncate ROOT --backup DIR [--version vX.Y] [--submitter NAME]\n"
    "                         [--scenarios-to-skip A,B] [--dry-run]\n"
    "       mlsubmit truncate --verify ROOT --backup DIR [--db INDEX] [--version vX.Y]\n"
    "\n"
    "Truncates every accuracy log of the tree as truncate_accuracy_log.py does: the full log is\n"
    "kept in DIR under the same relative path, hash=<SHA-256 of the full log> is appended to\n"
    "accuracy.txt, and a log of 4,096 bytes or more becomes its first 4,096 characters,\n"
    "'\\n\\n...\\n\\n' and its last 4,096 bytes (8,199 bytes for an ASCII log). Logs already\n"
    "truncated (a hash line and under 10,240 bytes) are left alone. Each truncation is recorded in\n"
    "DIR/mlsubmit-truncation.json (full log's SHA-256 and size, truncated log's SHA-256 and size);\n"
    "'mlsubmit index --backup DIR' copies the records into an index.\n"
    "\n"
    "--verify proves a truncation: every recorded full log in DIR has its recorded size and\n"
    "SHA-256, the log in the tree is exactly its truncation, accuracy.txt names its hash; logs of\n"
    "10,240 bytes or more without a record are reported. --db takes the records from an index\n"
    "(e.g. the one inside a package) instead of DIR's record file.\n"
    "\n"
    "Exit: 0 done / verified, 1 errors (skipped directories) / mismatches, 2 usage,\n"
    "3 bad input, 4 a file could not be written.\n";

static int scen_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    struct tr_skips {
        char *v[64];
        size_t n;
    } *sk = opt->ctx;
    char *save = NULL;
    for (char *t = strtok_r((char *)arg, ",", &save); t && sk->n < 64; t = strtok_r(NULL, ",", &save))
        sk->v[sk->n++] = t;
    return 0;
}

int cmd_truncate(int argc, char **argv)
{
    rp_truncate_opts o = {.note = rp_cli_print};
    int verify = 0;
    const char *db = NULL;
    struct tr_skips {
        char *v[64];
        size_t n;
    } sk = {.n = 0};
    const cli_opt opts[] = {
        CLI_FLAG(0, "verify", &verify, NULL),
        CLI_FLAG(0, "dry-run", &o.dry_run, NULL),
        CLI_STRING(0, "backup", &o.backup, "DIR", NULL),
        CLI_STRING(0, "version", &o.version, "vX.Y", NULL),
        CLI_STRING(0, "submitter", &o.submitter, "NAME", NULL),
        CLI_STRING(0, "db", &db, "FILE", NULL),
        CLI_CALLBACK(0, "scenarios-to-skip", "A,B", NULL, scen_cb, &sk),
        CLI_STRING(0, "input", &o.root, "DIR", NULL),
        CLI_END,
    };
    char **pos;
    int npos = cli_parse("truncate", usage_text, opts, argc, argv, &pos);
    if (npos < 0)
        return cli_parse_exit(npos);
    if (cli_root_arg("truncate", npos, pos, &o.root))
        return MS_EUSAGE;
    if (!o.root)
        return cli_usage_error("truncate", "ROOT is required");
    if (!o.backup)
        return cli_usage_error("truncate", "--backup DIR is required");
    if (db && !verify)
        return cli_usage_error("truncate", "--db is only for --verify");
    cli_warn_not_root("truncate", o.root, verify ? "nothing was verified" : "nothing was truncated");
    o.scenarios_to_skip = (const char *const *)sk.v;
    o.nskip = sk.n;
    ms_err e;
    ms_err_clear(&e);
    rp_truncate_stats st;
    int rc = verify ? rp_truncate_verify(&o, db, &st, &e) : rp_truncate(&o, &st, &e);
    if (rc)
        return cli_fail("truncate", &e);
    if (verify) {
        printf("verify: %zu verified, %zu mismatch%s\n", st.verified, st.mismatches,
               st.mismatches == 1 ? "" : "es");
        return st.mismatches ? MS_FAIL : MS_OK;
    }
    printf("%s: %zu truncated, %zu already done, %zu error%s\n", o.dry_run ? "dry run" : "summary",
           st.truncated, st.already, st.errors, st.errors == 1 ? "" : "s");
    return st.errors ? MS_FAIL : MS_OK;
}
