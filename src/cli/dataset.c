/* mlsubmit dataset: checksum manifests of dataset trees (manifest) and their verification
 * (verify). The work is in src/common/treehash*.c; this file parses options and prints. */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/treehash.h"
#include "cli/cli.h"
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

/* One command-line option: a flag (sets *flag) or one taking a value (sets *val). */
struct opt {
    const char *name;  /* "--name" */
    const char *alias; /* short form or NULL */
    const char **val;  /* for options with a value */
    int *flag;         /* for flags */
};

/* Parses argv[1..] against opts ("--name VALUE", "--name=VALUE", the alias, "--" ends the
 * options) and takes exactly one operand into *operand (what names it in messages). Returns
 * MS_OK or the usage-error exit code. */
static int parse_args(const char *cmd, int argc, char **argv, const struct opt *opts, size_t nopts,
                      const char **operand, const char *what)
{
    int dashdash = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!dashdash && !strcmp(a, "--")) {
            dashdash = 1;
            continue;
        }
        if (dashdash || a[0] != '-' || !a[1]) {
            if (*operand)
                return cli_usage_error(cmd, "one %s expected, got '%s' and '%s'", what, *operand, a);
            *operand = a;
            continue;
        }
        const struct opt *o = NULL;
        const char *inline_val = NULL;
        for (size_t k = 0; k < nopts && !o; k++) {
            size_t n = strlen(opts[k].name);
            if (!strcmp(a, opts[k].name) || (opts[k].alias && !strcmp(a, opts[k].alias)))
                o = &opts[k];
            else if (opts[k].val && !strncmp(a, opts[k].name, n) && a[n] == '=') {
                o = &opts[k];
                inline_val = a + n + 1;
            }
        }
        if (!o)
            return cli_usage_error(cmd, "unknown option '%s'", a);
        if (o->flag) {
            *o->flag = 1;
        } else if (inline_val) {
            *o->val = inline_val;
        } else {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "%s needs a value", a);
            *o->val = argv[++i];
        }
    }
    if (!*operand)
        return cli_usage_error(cmd, "missing the %s", what);
    return MS_OK;
}

/* --jobs (NULL: not given, 0 = one per CPU). */
static int parse_jobs(const char *cmd, const char *s, int *jobs)
{
    uint64_t v;
    *jobs = 0;
    if (!s)
        return MS_OK;
    if (ms_parse_u64(s, &v) || v < 1 || v > 1024)
        return cli_usage_error(cmd, "--jobs: expected a number of threads from 1 to 1024, got '%s'", s);
    *jobs = (int)v;
    return MS_OK;
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
    const char *dir = NULL, *algo = "sha256", *format = "sha256sum", *outp = NULL, *jobs_s = NULL;
    const struct opt opts[] = {
        {"--algo", NULL, &algo, NULL},
        {"--format", NULL, &format, NULL},
        {"--output", "-o", &outp, NULL},
        {"--jobs", "-j", &jobs_s, NULL},
    };
    int jobs;
    if (parse_args(cmd, argc, argv, opts, sizeof opts / sizeof opts[0], &dir, "dataset directory") ||
        parse_jobs(cmd, jobs_s, &jobs))
        return MS_EUSAGE;
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
    const char *manifest = NULL, *root = NULL, *jobs_s = NULL;
    int jobs, json = 0, ignore_extra = 0;
    const struct opt opts[] = {
        {"--root", NULL, &root, NULL},
        {"--jobs", "-j", &jobs_s, NULL},
        {"--json", NULL, NULL, &json},
        {"--ignore-extra", NULL, NULL, &ignore_extra},
    };
    if (parse_args(cmd, argc, argv, opts, sizeof opts / sizeof opts[0], &manifest, "manifest file") ||
        parse_jobs(cmd, jobs_s, &jobs))
        return MS_EUSAGE;

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
