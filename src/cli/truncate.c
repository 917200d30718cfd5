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

int cmd_truncate(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage_text, stdout);
        return MS_OK;
    }
    rp_truncate_opts o = {.note = rp_cli_print};
    int verify = 0;
    const char *db = NULL;
    char *skips[64];
    size_t nskips = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--verify"))
            verify = 1;
        else if (!strcmp(a, "--dry-run"))
            o.dry_run = 1;
        else if (!strcmp(a, "--backup") || !strcmp(a, "--version") || !strcmp(a, "--submitter") ||
                 !strcmp(a, "--db") || !strcmp(a, "--scenarios-to-skip") || !strcmp(a, "--input")) {
            if (i + 1 >= argc)
                return cli_usage_error("truncate", "%s needs a value", a);
            char *v = argv[++i];
            if (!strcmp(a, "--backup"))
                o.backup = v;
            else if (!strcmp(a, "--version"))
                o.version = v;
            else if (!strcmp(a, "--submitter"))
                o.submitter = v;
            else if (!strcmp(a, "--db"))
                db = v;
            else if (!strcmp(a, "--input"))
                o.root = v;
            else {
                char *save = NULL;
                for (char *t = strtok_r(v, ",", &save); t && nskips < 64; t = strtok_r(NULL, ",", &save))
                    skips[nskips++] = t;
            }
        } else if (a[0] == '-' && a[1])
            return cli_usage_error("truncate", "unknown option '%s'", a);
        else if (!o.root)
            o.root = a;
        else
            return cli_usage_error("truncate", "only one ROOT may be given ('%s')", a);
    }
    if (!o.root)
        return cli_usage_error("truncate", "ROOT is required");
    if (!o.backup)
        return cli_usage_error("truncate", "--backup DIR is required");
    if (db && !verify)
        return cli_usage_error("truncate", "--db is only for --verify");
    o.scenarios_to_skip = (const char *const *)skips;
    o.nskip = nskips;
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
