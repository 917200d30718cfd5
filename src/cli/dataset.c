/* mlsubmit dataset: checksum manifests of dataset trees (manifest) and their verification
 * (verify). The work is in src/common/treehash*.c; this file parses options (cli/parseopt.h)
 * and prints. */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/treehash.h"
#include "cli/cli.h"
#include "cli/parseopt.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/progress.h"
#include "common/strutil.h"

#define MAX_NOTES 20

static const char usage_text[] =
    "usage: mlsubmit dataset manifest DIR [--algo sha256|sha1|md5] [--format sha256sum|json]\n"
    "                                     [-o FILE] [--jobs N]\n"
    "       mlsubmit dataset verify MANIFEST [--root DIR] [--ignore-extra] [--json] [--jobs N]\n"
    "\n"
    "manifest  hashes every regular file below DIR (sorted, paths relative to DIR) and writes\n"
    "          the manifest to stdout or, atomically, to FILE. --format sha256sum (default) is\n"
    "          the coreutils form '<hex>  <path>' (whatever --algo says); json is mlsubmit's own\n"
    "          form with sizes. Symbolic links are never followed and, like devices, FIFOs and\n"
    "          sockets, left out with a note on stderr; an unreadable file or directory is an\n"
    "          error (exit 3) and nothing is written.\n"
    "verify    checks the tree under DIR (default: the manifest's directory) against MANIFEST:\n"
    "          sha256sum/sha1sum/md5sum output (text or *binary, \\-escaped names, BSD tags)\n"
    "          or the JSON form. Reports MISSING, CHANGED (expected and found digest, or the\n"
    "          size when the JSON manifest shows it differs), EXTRA (files not listed; not with\n"
    "          --ignore-extra), ERROR (listed but unreadable, a symlink, not a regular file)\n"
    "          and a summary line; --json prints the same as a JSON document.\n"
    "\n"
    "  --algo A       digest for manifest: sha256 (default), sha1, md5\n"
    "  --format F     manifest output: sha256sum (also md5sum, sha1sum) or json\n"
    "  -o, --output F write the manifest to F (temporary file + rename) instead of stdout\n"
    "  --root DIR     verify: the directory the manifest's paths are relative to\n"
    "  --ignore-extra verify: files under the root that are not listed are not failures\n"
    "  --json         verify: machine-readable report on stdout\n"
    "  --jobs N       hashing threads (default: one per available CPU)\n"
    "\n"
    "Names in reports are shown with \\\\, \\n, \\r, \\t and \\xHH escapes for unprintable bytes.\n"
    "A progress line appears on a terminal after a second (MLSUBMIT_NO_PROGRESS=1 hides it).\n"
    "Exit codes: 0 verified / written, 1 verification failed, 2 usage, 3 bad manifest or\n"
    "unreadable input, 4 runtime failure.\n";

/* Parses a subcommand's options and its one operand (what names it in messages). Returns -1
 * to go on, or the exit code to return now (--help printed: 0; a usage error printed: 2). */
static int parse_operand(const char *cmd, const cli_opt *opts, int argc, char **argv, const char **operand,
                         const char *what)
{
    char **pos;
    int npos = cli_parse(cmd, usage_text, opts, argc, argv, &pos);
    if (npos < 0)
        return cli_parse_exit(npos);
    if (npos > 1)
        return cli_usage_error(cmd, "one %s expected, got '%s' and '%s'", what, pos[0], pos[1]);
    if (npos < 1)
        return cli_usage_error(cmd, "missing the %s", what);
    *operand = pos[0];
    return -1;
}

/* --jobs N: 1..1024 hashing threads (not given: 0, one per CPU). */
static int jobs_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    uint64_t v;
    if (ms_parse_u64(arg, &v) || v < 1 || v > 1024)
        return cli_usage_error(cmd, "--jobs: expected a number of threads from 1 to 1024, got '%s'", arg);
    *(int *)opt->ctx = (int)v;
    return 0;
}

static void human_bytes(uint64_t b, char *out, size_t n)
{
    if (b >= (1ull << 30))
        snprintf(out, n, "%.2f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(out, n, "%.1f MiB", (double)b / (double)(1ull << 20));
    else if (b >= 1024)
        snprintf(out, n, "%.1f KiB", (double)b / 1024.0);
    else
        snprintf(out, n, "%llu bytes", (unsigned long long)b);
}

/* Notes on stderr for entries the walk left out (symlinks, special files). */
static void print_skipped_notes(const ms_ds_tree *t)
{
    size_t shown = 0, total = 0;
    for (size_t i = 0; i < t->nskipped; i++) {
        if (t->skipped[i].kind == MS_DS_SKIP_UNREADABLE)
            continue;
        total++;
        if (shown >= MAX_NOTES)
            continue;
        fputs("mlsubmit dataset: note: left out ", stderr);
        ms_ds_fput_name(t->skipped[i].path, stderr);
        fprintf(stderr, ": %s\n", t->skipped[i].reason);
        shown++;
    }
    if (total > shown)
        fprintf(stderr, "mlsubmit dataset: note: ... and %zu more entries left out\n", total - shown);
}

static int cmd_manifest(int argc, char **argv)
{
    const char *cmd = "dataset manifest";
    const char *dir = NULL, *algo = "sha256", *format = "sha256sum", *outp = NULL;
    int jobs = 0;
    const cli_opt opts[] = {
        CLI_STRING(0, "algo", &algo, "A", NULL),
        CLI_STRING(0, "format", &format, "F", NULL),
        CLI_STRING('o', "output", &outp, "F", NULL),
        CLI_CALLBACK('j', "jobs", "N", NULL, jobs_cb, &jobs),
        CLI_END,
    };
    int pr = parse_operand(cmd, opts, argc, argv, &dir, "dataset directory");
    if (pr >= 0)
        return pr;
    if (!ms_hash_known(algo))
        return cli_usage_error(cmd, "--algo: expected sha256, sha1 or md5, got '%s'", algo);
    int json = !strcmp(format, "json");
    if (!json && strcmp(format, "sha256sum") && strcmp(format, "md5sum") && strcmp(format, "sha1sum"))
        return cli_usage_error(cmd, "--format: expected sha256sum (md5sum, sha1sum) or json, got '%s'",
                               format);

    /* do not list the output itself when it is being written inside the tree */
    struct stat st;
    uint64_t xdev = 0, xino = 0;
    if ((outp ? stat(outp, &st) : fstat(STDOUT_FILENO, &st)) == 0 && S_ISREG(st.st_mode)) {
        xdev = (uint64_t)st.st_dev;
        xino = (uint64_t)st.st_ino;
    }
    ms_progress prog;
    ms_progress_init(&prog, "dataset manifest");
    ms_ds_hash_opts ho = {.jobs = jobs, .progress = &prog};
    ms_ds_tree t;
    ms_ds_manifest m;
    ms_err e = {0};
    memset(&t, 0, sizeof t);
    int64_t t0 = ms_now_ns();
    int rc = ms_ds_build(dir, algo, &ho, xdev, xino, &t, &m, &e);
    print_skipped_notes(&t);
    ms_ds_tree_free(&t);
    if (rc)
        return cli_fail(cmd, &e);
    double secs = (double)(ms_now_ns() - t0) / 1e9;

    if (outp) {
        ms_afile af;
        rc = ms_afile_open(&af, outp, &e);
        if (rc == MS_OK) {
            rc = json ? ms_ds_write_json(&m, af.fp, &e) : ms_ds_write_sums(&m, af.fp, &e);
            if (rc == MS_OK)
                rc = ms_afile_commit(&af, &e);
            else
                ms_afile_abort(&af);
        }
        if (rc == MS_OK) {
            uint64_t bytes = 0;
            for (size_t i = 0; i < m.n; i++)
                bytes += (uint64_t)m.entries[i].size;
            char hb[64];
            human_bytes(bytes, hb, sizeof hb);
            printf("wrote %s: %zu files, %s, %s, in %.2f s\n", outp, m.n, hb, algo, secs);
        }
    } else {
        rc = json ? ms_ds_write_json(&m, stdout, &e) : ms_ds_write_sums(&m, stdout, &e);
        if (rc == MS_OK && fflush(stdout) != 0)
            rc = ms_err_set(&e, MS_ERUNTIME, "write error on standard output");
    }
    ms_ds_manifest_free(&m);
    return rc ? cli_fail(cmd, &e) : MS_OK;
}

static void print_finding(const ms_ds_finding *f, const char *algo)
{
    static const char *const label[] = {"MISSING ", "CHANGED ", "EXTRA   ", "ERROR   ", "SKIPPED "};
    fputs(label[f->status], stdout);
    fputc(' ', stdout);
    ms_ds_fput_name(f->path, stdout);
    if (f->status == MS_DS_CHANGED && f->expected[0])
        printf(": expected %s %s, found %s\n", algo, f->expected, f->found);
    else if (f->status == MS_DS_CHANGED)
        printf(": size %lld bytes, expected %lld (not hashed)\n", (long long)f->found_size,
               (long long)f->expected_size);
    else if (f->reason)
        printf(": %s\n", f->reason);
    else
        fputc('\n', stdout);
}

static int cmd_verify(int argc, char **argv)
{
    const char *cmd = "dataset verify";
    const char *manifest = NULL, *root = NULL;
    int jobs = 0, json = 0, ignore_extra = 0;
    const cli_opt opts[] = {
        CLI_STRING(0, "root", &root, "DIR", NULL),
        CLI_CALLBACK('j', "jobs", "N", NULL, jobs_cb, &jobs),
        CLI_FLAG(0, "json", &json, NULL),
        CLI_FLAG(0, "ignore-extra", &ignore_extra, NULL),
        CLI_END,
    };
    int pr = parse_operand(cmd, opts, argc, argv, &manifest, "manifest file");
    if (pr >= 0)
        return pr;

    ms_err e = {0};
    ms_ds_manifest m;
    int rc = ms_ds_manifest_load(manifest, &m, &e);
    if (rc)
        return cli_fail(cmd, &e);
    char *mcopy = strdup(manifest);
    if (!mcopy) {
        ms_ds_manifest_free(&m);
        ms_err_oom(&e);
        return cli_fail(cmd, &e);
    }
    if (!root)
        root = dirname(mcopy);

    ms_progress prog;
    ms_progress_init(&prog, "dataset verify");
    ms_ds_verify_opts vo = {.hash = {.jobs = jobs, .progress = &prog}, .ignore_extra = ignore_extra};
    struct stat st;
    if (stat(manifest, &st) == 0) {
        vo.exclude_dev = (uint64_t)st.st_dev;
        vo.exclude_ino = (uint64_t)st.st_ino;
    }
    ms_ds_result r;
    int64_t t0 = ms_now_ns();
    rc = ms_ds_verify(&m, root, &vo, &r, &e);
    double secs = (double)(ms_now_ns() - t0) / 1e9;
    const char *algo = m.algo[0] ? m.algo : "sha256";
    if (rc == MS_OK && json) {
        rc = ms_ds_write_result_json(&r, manifest, root, algo, stdout, &e);
    } else if (rc == MS_OK) {
        for (size_t i = 0; i < r.n; i++)
            print_finding(&r.items[i], algo);
        char hb[64];
        human_bytes(r.bytes_hashed, hb, sizeof hb);
        printf("summary: %s: %zu listed, %zu ok, %zu missing, %zu changed, ", ms_ds_result_ok(&r) ? "OK" : "FAILED",
               r.listed, r.ok, r.missing, r.changed);
        if (ignore_extra)
            printf("extra ignored, ");
        else
            printf("%zu extra, ", r.extra);
        printf("%zu unreadable; %s hashed in %.2f s\n", r.errors, hb, secs);
    }
    if (rc == MS_OK && fflush(stdout) != 0)
        rc = ms_err_set(&e, MS_ERUNTIME, "write error on standard output");
    int verdict = rc ? cli_fail(cmd, &e) : ms_ds_result_ok(&r) ? MS_OK : MS_FAIL;
    ms_ds_result_free(&r); /* zeroed by ms_ds_verify on failure */
    ms_ds_manifest_free(&m);
    free(mcopy);
    return verdict;
}

int cmd_dataset(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return MS_EUSAGE;
    }
    if (cli_wants_help(argc, argv)) {
        fputs(usage_text, stdout);
        return MS_OK;
    }
    if (!strcmp(argv[1], "manifest"))
        return cmd_manifest(argc - 1, argv + 1);
    if (!strcmp(argv[1], "verify"))
        return cmd_verify(argc - 1, argv + 1);
    return cli_usage_error("dataset", "unknown subcommand '%s' (expected manifest or verify)", argv[1]);
}
