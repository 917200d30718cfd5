/* Unit tests for src/common/treehash*: manifest parsing (coreutils and JSON forms), writing,
 * the tree walk, parallel hashing and verification findings. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/treehash.h"
#include "common/hash.h"
#include "common/strutil.h"
#include "testutil.h"

#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define MD5_ABC "900150983cd24fb0d6963f7d28e17f72"
#define SHA1_ABC "a9993e364706816aba3e25717850c26c9cd0d89d"

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes a test's temporary tree (never following symlinks). */
static void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void put_file(const char *dir, const char *rel, const void *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_msg(fd >= 0, "cannot create %s: %s", path, strerror(errno));
    if (len)
        ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void put_str(const char *dir, const char *rel, const char *s)
{
    put_file(dir, rel, s, strlen(s));
}

static void sub_dir(const char *dir, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    ck_assert_int_eq(mkdir(path, 0755), 0);
}

static int parse(const char *text, ms_ds_manifest *m, ms_err *e)
{
    return ms_ds_manifest_parse(text, strlen(text), "M", m, e);
}

static const ms_ds_entry *find_entry(const ms_ds_manifest *m, const char *path)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->entries[i].path, path))
            return &m->entries[i];
    return NULL;
}

static const ms_ds_finding *find_finding(const ms_ds_result *r, ms_ds_status st, const char *path)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].status == st && !strcmp(r->items[i].path, path))
            return &r->items[i];
    return NULL;
}

/* Serialises with the writer into a malloc'd string. */
static char *write_to_string(const ms_ds_manifest *m, int json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ms_err e = {0};
    int rc = json ? ms_ds_write_json(m, f, &e) : ms_ds_write_sums(m, f, &e);
    ck_assert_msg(rc == MS_OK, "%s", e.msg);
    fclose(f);
    return text;
}

static void build(const char *dir, const char *algo, int jobs, ms_ds_manifest *m)
{
    ms_ds_hash_opts ho = {.jobs = jobs};
    ms_ds_tree t;
    ms_err e = {0};
    int rc = ms_ds_build(dir, algo, &ho, 0, 0, &t, m, &e);
    ck_assert_msg(rc == MS_OK, "%s", e.msg);
    ms_ds_tree_free(&t);
}

static void verify(const ms_ds_manifest *m, const char *dir, int ignore_extra, ms_ds_result *r)
{
    ms_ds_verify_opts vo = {.hash = {.jobs = 2}, .ignore_extra = ignore_extra};
    ms_err e = {0};
    int rc = ms_ds_verify(m, dir, &vo, r, &e);
    ck_assert_msg(rc == MS_OK, "%s", e.msg);
}

/* ---- coreutils form ----------------------------------------------------------------------- */

START_TEST(sums_text_binary_and_tags)
{
    ms_ds_manifest m;
    ms_err e = {0};
    const char *text = SHA_ABC "  plain.txt\n"
                               SHA_EMPTY " *bin/ary.dat\r\n"
                               "# a comment\n"
                               "\n"
                               "   \t\n"
                               "SHA256 (tagged (1).txt) = " SHA_ABC "\n"
                               "  " SHA_ABC "  ./lead//ing.txt\n"
                               "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD single space\n"
                               SHA_ABC "  with  two  spaces \n"
                               SHA_ABC "  *starts-with-star\n";
    ck_assert_msg(parse(text, &m, &e) == MS_OK, "%s", e.msg);
    ck_assert_str_eq(m.algo, "sha256");
    ck_assert_int_eq(m.format, MS_DS_FMT_SUMS);
    ck_assert_uint_eq(m.n, 7);
    ck_assert_ptr_nonnull(find_entry(&m, "plain.txt"));
    const ms_ds_entry *b = find_entry(&m, "bin/ary.dat"); /* '*' marker, CR dropped */
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(b->digest, SHA_EMPTY);
    ck_assert_uint_eq(b->line, 2);
    ck_assert_int_eq(b->size, -1);
    ck_assert_ptr_nonnull(find_entry(&m, "tagged (1).txt"));
    ck_assert_ptr_nonnull(find_entry(&m, "lead/ing.txt"));
    const ms_ds_entry *s = find_entry(&m, "single space"); /* upper-case hex, lower-cased */
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->digest, SHA_ABC);
    ck_assert_ptr_nonnull(find_entry(&m, "with  two  spaces "));
    ck_assert_ptr_nonnull(find_entry(&m, "*starts-with-star")); /* text marker, then the name */
    /* sorted by path */
    for (size_t i = 1; i < m.n; i++)
        ck_assert_int_lt(strcmp(m.entries[i - 1].path, m.entries[i].path), 0);
    ms_ds_manifest_free(&m);
}
END_TEST

START_TEST(sums_md5_sha1_and_bsd_tags)
{
    ms_ds_manifest m;
    ms_err e = {0};
    ck_assert_int_eq(parse(MD5_ABC "  a\nMD5 (b) = " MD5_ABC "\n", &m, &e), MS_OK);
    ck_assert_str_eq(m.algo, "md5");
    ck_assert_uint_eq(m.n, 2);
    ms_ds_manifest_free(&m);
    ck_assert_int_eq(parse("SHA1 (a) = " SHA1_ABC "\n" SHA1_ABC " *b\n", &m, &e), MS_OK);
    ck_assert_str_eq(m.algo, "sha1");
    ms_ds_manifest_free(&m);
    ck_assert_int_eq(parse("SHA2-256(a)= " SHA_ABC "\n", &m, &e), MS_OK); /* openssl dgst */
    ck_assert_str_eq(m.algo, "sha256");
    ms_ds_manifest_free(&m);
}
END_TEST

START_TEST(sums_escaped_names)
{
    ms_ds_manifest m;
    ms_err e = {0};
    /* GNU coreutils 9: a leading '\' and \\, \n, \r inside the name */
    const char *text = "\\" SHA_ABC "  a\\nb\n"
                       "\\" SHA_ABC "  c\\\\d\n"
                       "\\" SHA_ABC "  e\\rf\n"
                       "\\SHA256 (g\\\\h) = " SHA_ABC "\n"
                       SHA_ABC "  not\\escaped\n";
    ck_assert_msg(parse(text, &m, &e) == MS_OK, "%s", e.msg);
    ck_assert_uint_eq(m.n, 5);
    ck_assert_ptr_nonnull(find_entry(&m, "a\nb"));
    ck_assert_ptr_nonnull(find_entry(&m, "c\\d"));
    ck_assert_ptr_nonnull(find_entry(&m, "e\rf"));
    ck_assert_ptr_nonnull(find_entry(&m, "g\\h"));
    ck_assert_ptr_nonnull(find_entry(&m, "not\\escaped")); /* no leading '\': taken literally */
    ms_ds_manifest_free(&m);
}
END_TEST

/* The error names the manifest and line, and says what was expected. */
static void expect_error(const char *text, const char *where, const char *what)
{
    ms_ds_manifest m;
    ms_err e = {0};
    ck_assert_int_eq(parse(text, &m, &e), MS_EINPUT);
    ck_assert_int_eq(e.code, MS_EINPUT);
    ck_assert_msg(ms_starts_with(e.msg, where), "message '%s' should start with '%s'", e.msg, where);
    ck_assert_msg(strstr(e.msg, what), "message '%s' should mention '%s'", e.msg, what);
    ck_assert_uint_eq(m.n, 0);
    ck_assert_ptr_null(m.entries);
}

START_TEST(sums_malformed_lines_name_the_line)
{
    expect_error(SHA_ABC "  ok\nnot a checksum line\n", "M:2:", "expected '<hex digest>  <file name>'");
    expect_error(SHA_ABC "  ok\n\n" "abcdef  short\n", "M:3:", "has 6 hex digits");
    expect_error(SHA_ABC "\n", "M:1:", "missing file name");
    expect_error("\\" SHA_ABC "  bad\\escape\n", "M:1:", "invalid escape");
    expect_error("\\" SHA_ABC "  trailing\\\n", "M:1:", "lone '\\'");
    expect_error(SHA_ABC "  a\n" MD5_ABC "  b\n", "M:2:", "line 1 has a sha256 digest");
    expect_error(SHA_ABC "  /etc/passwd\n", "M:1:", "is absolute");
    expect_error(SHA_ABC "  a/../../b\n", "M:1:", "'..'");
    expect_error(SHA_ABC "  x\n" SHA_ABC "  y\n" SHA_ABC "  ./x\n", "M:3:", "already listed on line 1");
    expect_error("SHA256 (x = " SHA_ABC "\n", "M:1:", "')'");
    expect_error("SHA256 (x) = " MD5_ABC "\n", "M:1:", "has 64 hex digits, this one has 32");
    expect_error(SHA_ABC "x  name\n", "M:1:", "expected a space between the digest and the file name");
}
END_TEST

START_TEST(sums_empty_manifest_is_valid)
{
    ms_ds_manifest m;
    ms_err e = {0};
    ck_assert_int_eq(parse("", &m, &e), MS_OK);
    ck_assert_uint_eq(m.n, 0);
    ck_assert_str_eq(m.algo, "");
    ms_ds_manifest_free(&m);
    ck_assert_int_eq(parse("# only a comment\n\n", &m, &e), MS_OK);
    ck_assert_uint_eq(m.n, 0);
    ms_ds_manifest_free(&m);
}
END_TEST

START_TEST(normalize_paths)
{
    char p1[] = "./a//b/./c/", p2[] = ".", p3[] = "/abs", p4[] = "a/..", p5[] = "..a/b..";
    ck_assert_ptr_null(ms_ds_normalize_path(p1));
    ck_assert_str_eq(p1, "a/b/c");
    ck_assert_ptr_nonnull(ms_ds_normalize_path(p2));
    ck_assert_ptr_nonnull(ms_ds_normalize_path(p3));
    ck_assert_ptr_nonnull(ms_ds_normalize_path(p4));
    ck_assert_ptr_null(ms_ds_normalize_path(p5)); /* only a whole ".." component is refused */
    ck_assert_str_eq(p5, "..a/b..");
}
END_TEST

/* ---- writing and round trips ---------------------------------------------------------------- */

/* A tree with awkward names: spaces, newline, CR, backslash, non-UTF-8 bytes, an empty file. */
static void make_awkward_tree(char *dir, size_t n)
{
    ms_test_tmpdir(dir, n);
    put_str(dir, "plain.txt", "abc");
    put_str(dir, "with space.txt", "abc");
    put_str(dir, "new\nline", "line");
    put_str(dir, "back\\slash", "bs");
    put_str(dir, "car\rriage", "cr");
    put_str(dir, "bad\xff\xfe-utf8", "latin");
    put_str(dir, "caf\xc3\xa9", "utf8");
    put_file(dir, "empty", "", 0);
    sub_dir(dir, "sub");
    sub_dir(dir, "sub/deeper");
    put_str(dir, "sub/deeper/x.bin", "deep");
}

START_TEST(json_round_trip)
{
    char dir[256];
    make_awkward_tree(dir, sizeof dir);
    ms_ds_manifest m, back;
    build(dir, "sha256", 3, &m);
    ck_assert_uint_eq(m.n, 9);
    const ms_ds_entry *em = find_entry(&m, "empty");
    ck_assert_ptr_nonnull(em);
    ck_assert_str_eq(em->digest, SHA_EMPTY);
    ck_assert_int_eq(em->size, 0);
    ck_assert_str_eq(find_entry(&m, "plain.txt")->digest, SHA_ABC);
    ck_assert_int_eq(find_entry(&m, "plain.txt")->size, 3);

    char *json = write_to_string(&m, 1);
    ck_assert_ptr_nonnull(strstr(json, "\"format\": \"mlsubmit-dataset-manifest\""));
    ck_assert_ptr_nonnull(strstr(json, "\"path_hex\": \"626164fffe2d75746638\"")); /* bad\xff\xfe-utf8 */
    ck_assert_ptr_nonnull(strstr(json, "\"path\": \"new\\nline\""));
    ms_err e = {0};
    ck_assert_msg(ms_ds_manifest_parse(json, strlen(json), "J", &back, &e) == MS_OK, "%s", e.msg);
    ck_assert_int_eq(back.format, MS_DS_FMT_JSON);
    ck_assert_str_eq(back.algo, "sha256");
    ck_assert_uint_eq(back.n, m.n);
    for (size_t i = 0; i < m.n; i++) {
        ck_assert_str_eq(back.entries[i].path, m.entries[i].path);
        ck_assert_str_eq(back.entries[i].digest, m.entries[i].digest);
        ck_assert_int_eq(back.entries[i].size, m.entries[i].size);
    }
    /* the coreutils form round-trips the same names (escaped lines for \, LF, CR) */
    char *sums = write_to_string(&m, 0);
    ck_assert_ptr_nonnull(strstr(sums, "\\38a9c1e721584da284b90ceea4ed7eb8db15ac4ea86c2c75ec925d5f8799fcf0  new\\nline\n"));
    ms_ds_manifest sb;
    ck_assert_msg(ms_ds_manifest_parse(sums, strlen(sums), "S", &sb, &e) == MS_OK, "%s", e.msg);
    ck_assert_uint_eq(sb.n, m.n);
    for (size_t i = 0; i < m.n; i++) {
        ck_assert_str_eq(sb.entries[i].path, m.entries[i].path);
        ck_assert_str_eq(sb.entries[i].digest, m.entries[i].digest);
    }
    /* and both verify the tree */
    ms_ds_result r;
    verify(&back, dir, 0, &r);
    ck_assert_msg(ms_ds_result_ok(&r), "%zu findings", r.n);
    ck_assert_uint_eq(r.ok, 9);
    ms_ds_result_free(&r);
    verify(&sb, dir, 0, &r);
    ck_assert(ms_ds_result_ok(&r));
    ck_assert_uint_eq(r.ok, 9);
    ms_ds_result_free(&r);
    free(json);
    free(sums);
    ms_ds_manifest_free(&m);
    ms_ds_manifest_free(&back);
    ms_ds_manifest_free(&sb);
    rm_tree(dir);
}
END_TEST

START_TEST(json_malformed_names_the_field)
{
    struct {
        const char *text, *want;
    } cases[] = {
        {"{\"format\": \"other\", \"version\": 1}", "J: format: expected \"mlsubmit-dataset-manifest\""},
        {"{\"format\": \"mlsubmit-dataset-manifest\", \"version\": 2, \"algorithm\": \"sha256\", \"files\": []}",
         "J: version: expected 1"},
        {"{\"format\": \"mlsubmit-dataset-manifest\", \"version\": 1, \"algorithm\": \"crc\", \"files\": []}",
         "J: algorithm"},
        {"{\"format\": \"mlsubmit-dataset-manifest\", \"version\": 1, \"algorithm\": \"md5\", \"files\": "
         "[{\"path\": \"a\", \"size\": 1, \"digest\": \"" MD5_ABC "\"}, {\"path\": \"b\", \"size\": 1, \"digest\": \"abc\"}]}",
         "J: files[1].digest: expected 32 hex digits"},
        {"{\"format\": \"mlsubmit-dataset-manifest\", \"version\": 1, \"algorithm\": \"md5\", \"files\": "
         "[{\"path\": \"a\", \"size\": -1, \"digest\": \"" MD5_ABC "\"}]}",
         "J: files[0].size"},
        {"{\"format\": \"mlsubmit-dataset-manifest\", \"version\": 1, \"algorithm\": \"md5\", \"files\": "
         "[{\"path\": \"../a\", \"size\": 1, \"digest\": \"" MD5_ABC "\"}]}",
         "J: files[0].path: the path contains a '..'"},
        {"{\"format\": \"mlsubmit-dataset-manifest\", \"version\": 1, \"algorithm\": \"md5\", \"files\": "
         "[{\"path\": \"a\", \"size\": 1, \"digest\": \"" MD5_ABC "\"}, {\"path_hex\": \"61\", \"size\": 1, \"digest\": \"" MD5_ABC "\"}]}",
         "J: files[1]: 'a' is already listed at files[0]"},
        {"{\"format\": \"mlsubmit-dataset-manifest\", \"version\": 1, \"algorithm\": \"md5\", \"files\": "
         "[{\"path_hex\": \"6100\", \"size\": 1, \"digest\": \"" MD5_ABC "\"}]}",
         "J: files[0].path_hex: the name contains a NUL"},
        {"{\"format\": \"mlsubmit-dataset-manifest\",\n \"version\": 1,,}", "J:2:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_ds_manifest m;
        ms_err e = {0};
        ck_assert_int_eq(ms_ds_manifest_parse(cases[i].text, strlen(cases[i].text), "J", &m, &e), MS_EINPUT);
        ck_assert_msg(ms_starts_with(e.msg, cases[i].want), "case %zu: '%s' should start with '%s'", i,
                      e.msg, cases[i].want);
    }
}
END_TEST

/* ---- verification --------------------------------------------------------------------------- */

START_TEST(verify_reports_flipped_missing_extra_by_name)
{
    char dir[256];
    make_awkward_tree(dir, sizeof dir);
    ms_ds_manifest m;
    build(dir, "sha256", 2, &m);
    ms_ds_result r;
    verify(&m, dir, 0, &r);
    ck_assert(ms_ds_result_ok(&r));
    ms_ds_result_free(&r);

    put_str(dir, "sub/deeper/x.bin", "deeP");  /* a flipped byte, same size */
    char path[512];
    snprintf(path, sizeof path, "%s/new\nline", dir);
    ck_assert_int_eq(unlink(path), 0);      /* a missing file */
    put_str(dir, "sub/intruder", "x");      /* an extra file */
    verify(&m, dir, 0, &r);
    ck_assert(!ms_ds_result_ok(&r));
    ck_assert_uint_eq(r.changed, 1);
    ck_assert_uint_eq(r.missing, 1);
    ck_assert_uint_eq(r.extra, 1);
    ck_assert_uint_eq(r.errors, 0);
    ck_assert_uint_eq(r.ok, 7);
    const ms_ds_finding *c = find_finding(&r, MS_DS_CHANGED, "sub/deeper/x.bin");
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(c->expected, find_entry(&m, "sub/deeper/x.bin")->digest);
    char want[MS_HASH_HEX_MAX];
    ms_err e = {0};
    ck_assert_int_eq(ms_hash_mem("sha256", "deeP", 4, want, &e), MS_OK);
    ck_assert_str_eq(c->found, want);
    ck_assert_ptr_nonnull(find_finding(&r, MS_DS_MISSING, "new\nline"));
    ck_assert_ptr_nonnull(find_finding(&r, MS_DS_EXTRA, "sub/intruder"));
    /* grouped by status in enum order */
    ck_assert_int_eq(r.items[0].status, MS_DS_MISSING);
    ck_assert_int_eq(r.items[1].status, MS_DS_CHANGED);
    ck_assert_int_eq(r.items[2].status, MS_DS_EXTRA);
    ms_ds_result_free(&r);

    /* extras can be ignored; the other failures remain */
    verify(&m, dir, 1, &r);
    ck_assert_uint_eq(r.extra, 0);
    ck_assert_ptr_null(find_finding(&r, MS_DS_EXTRA, "sub/intruder"));
    ck_assert_uint_eq(r.changed, 1);
    ck_assert(!ms_ds_result_ok(&r));
    ms_ds_result_free(&r);
    ms_ds_manifest_free(&m);
    rm_tree(dir);
}
END_TEST

START_TEST(verify_size_mismatch_without_hashing)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    put_str(dir, "a", "abc");
    put_str(dir, "b", "abc");
    ms_ds_manifest m;
    build(dir, "sha256", 1, &m);
    put_str(dir, "a", "abcd");
    ms_ds_result r;
    verify(&m, dir, 0, &r);
    ck_assert_uint_eq(r.changed, 1);
    const ms_ds_finding *c = find_finding(&r, MS_DS_CHANGED, "a");
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(c->expected_size, 3);
    ck_assert_int_eq(c->found_size, 4);
    ck_assert_str_eq(c->expected, ""); /* decided on the size: not hashed */
    ck_assert_uint_eq(r.files_hashed, 1);
    ck_assert_uint_eq(r.bytes_hashed, 3);
    ms_ds_result_free(&r);
    ms_ds_manifest_free(&m);
    rm_tree(dir);
}
END_TEST

START_TEST(verify_coreutils_manifest_with_relative_prefixes)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    put_str(dir, "abc", "abc");
    put_file(dir, "empty", "", 0);
    ms_ds_manifest m;
    ms_err e = {0};
    ck_assert_int_eq(parse(SHA_ABC " *./abc\n" SHA_EMPTY "  empty\n", &m, &e), MS_OK);
    ms_ds_result r;
    verify(&m, dir, 0, &r);
    ck_assert(ms_ds_result_ok(&r));
    ck_assert_uint_eq(r.ok, 2);
    ms_ds_result_free(&r);
    ms_ds_manifest_free(&m);
    /* md5 manifests verify with md5 */
    ck_assert_int_eq(parse(MD5_ABC "  abc\n", &m, &e), MS_OK);
    verify(&m, dir, 1, &r);
    ck_assert(ms_ds_result_ok(&r));
    ms_ds_result_free(&r);
    ms_ds_manifest_free(&m);
    rm_tree(dir);
}
END_TEST

START_TEST(symlinks_are_never_followed)
{
    char dir[256], outside[256], path[600], target[600];
    ms_test_tmpdir(dir, sizeof dir);
    ms_test_tmpdir(outside, sizeof outside);
    put_str(outside, "secret", "abc");
    put_str(dir, "real", "abc");
    sub_dir(dir, "d");
    put_str(dir, "d/inner", "abc");
    snprintf(path, sizeof path, "%s/out-link", dir);
    snprintf(target, sizeof target, "%s/secret", outside);
    ck_assert_int_eq(symlink(target, path), 0);
    snprintf(path, sizeof path, "%s/out-dir", dir);
    ck_assert_int_eq(symlink(outside, path), 0);
    snprintf(path, sizeof path, "%s/loop", dir);
    ck_assert_int_eq(symlink(".", path), 0);
    snprintf(path, sizeof path, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0644), 0);

    ms_ds_tree t;
    ms_err e = {0};
    ck_assert_int_eq(ms_ds_walk(dir, &t, &e), MS_OK);
    ck_assert_uint_eq(t.nfiles, 2);
    ck_assert_str_eq(t.files[0].path, "d/inner");
    ck_assert_str_eq(t.files[1].path, "real");
    ck_assert_uint_eq(t.nskipped, 4); /* fifo, loop, out-dir, out-link */
    ck_assert_str_eq(t.skipped[0].path, "fifo");
    ck_assert_int_eq(t.skipped[0].kind, MS_DS_SKIP_SPECIAL);
    ck_assert_int_eq(t.skipped[1].kind, MS_DS_SKIP_SYMLINK);
    ck_assert_int_eq(t.skipped[3].kind, MS_DS_SKIP_SYMLINK);
    ms_ds_tree_free(&t);

    /* a manifest (say, from sha256sum) that lists paths through symlinks: errors, not read */
    ms_ds_manifest m;
    ck_assert_int_eq(parse(SHA_ABC "  real\n" SHA_ABC "  out-link\n" SHA_ABC "  out-dir/secret\n"
                           SHA_ABC "  loop/real\n" SHA_ABC "  fifo\n" SHA_ABC "  d\n",
                           &m, &e),
                     MS_OK);
    ms_ds_result r;
    verify(&m, dir, 0, &r);
    ck_assert_uint_eq(r.ok, 1);
    ck_assert_uint_eq(r.errors, 5);
    const ms_ds_finding *f = find_finding(&r, MS_DS_ERROR, "out-link");
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(f->reason, "symbolic link (not followed)");
    f = find_finding(&r, MS_DS_ERROR, "out-dir/secret");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(strstr(f->reason, "through the symbolic link out-dir"));
    ck_assert_ptr_nonnull(find_finding(&r, MS_DS_ERROR, "loop/real"));
    f = find_finding(&r, MS_DS_ERROR, "fifo");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(strstr(f->reason, "FIFO"));
    f = find_finding(&r, MS_DS_ERROR, "d");
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(f->reason, "is a directory");
    ck_assert_uint_eq(r.extra, 1); /* d/inner */
    ck_assert_uint_eq(r.skipped, 2); /* the unlisted symlinks out-dir and loop: notes */
    ck_assert_ptr_nonnull(find_finding(&r, MS_DS_SKIPPED, "out-dir"));
    ck_assert_ptr_nonnull(find_finding(&r, MS_DS_SKIPPED, "loop"));
    ck_assert_ptr_null(find_finding(&r, MS_DS_SKIPPED, "fifo")); /* listed: an error instead */
    ms_ds_result_free(&r);
    ms_ds_manifest_free(&m);
    rm_tree(dir);
    rm_tree(outside);
}
END_TEST

START_TEST(parallel_digests_match_single_file_hashing)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    /* sizes around the read block and a few larger ones, for every algorithm */
    static unsigned char data[3 * 256 * 1024 + 17];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 2654435761u >> 13);
    size_t sizes[] = {0, 1, 63, 64, 65, 4096, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, sizeof data};
    char name[64];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        snprintf(name, sizeof name, "f%02zu", i);
        put_file(dir, name, data, sizes[i]);
    }
    const char *algos[] = {"sha256", "sha1", "md5"};
    for (size_t a = 0; a < 3; a++) {
        ms_ds_manifest m;
        build(dir, algos[a], 4, &m);
        ck_assert_uint_eq(m.n, sizeof sizes / sizeof sizes[0]);
        for (size_t i = 0; i < m.n; i++) {
            char path[512], want[MS_HASH_HEX_MAX];
            snprintf(path, sizeof path, "%s/%s", dir, m.entries[i].path);
            ms_err e = {0};
            ck_assert_int_eq(ms_hash_file(algos[a], path, want, NULL, &e), MS_OK);
            ck_assert_str_eq(m.entries[i].digest, want);
            ck_assert_int_eq(m.entries[i].size, (int64_t)sizes[i]);
        }
        ms_ds_manifest_free(&m);
    }
    rm_tree(dir);
}
END_TEST

/* The walk and the hashing overlap (small files queued in batches as they are found, files over
 * 1 MiB after the walk, largest first): every file gets its own digest, in path order, with
 * more files than a batch, in several directories, and sizes on both sides of the 1 MiB line */
START_TEST(streamed_hashing_matches_single_file_hashing)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    static unsigned char data[(1u << 20) + 2];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 2654435761u >> 11);
    char name[64];
    size_t nfiles = 0;
    for (int d = 0; d < 3; d++) {
        snprintf(name, sizeof name, "d%d", d);
        sub_dir(dir, name);
        for (int i = 0; i < 70; i++, nfiles++) {
            snprintf(name, sizeof name, "d%d/f%03d", d, i);
            put_file(dir, name, data + i, (size_t)(i * 37 + d));
        }
    }
    size_t big[] = {(1u << 20) - 1, 1u << 20, (1u << 20) + 1};
    for (size_t i = 0; i < 3; i++, nfiles++) {
        snprintf(name, sizeof name, "big%zu", i);
        put_file(dir, name, data, big[i]);
    }
    for (int jobs = 1; jobs <= 3; jobs++) {
        ms_ds_manifest m;
        build(dir, "sha256", jobs, &m);
        ck_assert_uint_eq(m.n, nfiles);
        for (size_t i = 0; i < m.n; i++) {
            char path[512], want[MS_HASH_HEX_MAX];
            unsigned long long bytes = 0;
            snprintf(path, sizeof path, "%s/%s", dir, m.entries[i].path);
            ms_err e = {0};
            ck_assert_int_eq(ms_hash_file("sha256", path, want, &bytes, &e), MS_OK);
            ck_assert_str_eq(m.entries[i].digest, want);
            ck_assert_int_eq(m.entries[i].size, (int64_t)bytes);
            if (i)
                ck_assert_int_lt(strcmp(m.entries[i - 1].path, m.entries[i].path), 0);
        }
        ms_ds_manifest_free(&m);
    }
    rm_tree(dir);
}
END_TEST

/* A manifest's walk leaves the stat of a regular file to the worker that hashes it (files over
 * 1 MiB are then put back and hashed after the others): the tree still ends with every file's
 * size, device and inode, and the total, as a stat of each shows */
START_TEST(manifest_tree_has_each_files_size_and_identity)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    static unsigned char data[(2u << 20) + 3];
    memset(data, 'x', sizeof data);
    sub_dir(dir, "sub");
    size_t sizes[] = {0, 5, 42000, (1u << 20) + 1, sizeof data, 1u << 20};
    const char *names[] = {"a", "sub/b", "sub/c", "big1", "sub/big2", "edge"};
    uint64_t total = 0;
    for (size_t i = 0; i < 6; i++) {
        put_file(dir, names[i], data, sizes[i]);
        total += sizes[i];
    }
    for (int jobs = 1; jobs <= 2; jobs++) {
        ms_ds_hash_opts ho = {.jobs = jobs};
        ms_ds_tree t;
        ms_ds_manifest m;
        ms_err e = {0};
        ck_assert_int_eq(ms_ds_build(dir, "sha256", &ho, 0, 0, &t, &m, &e), MS_OK);
        ck_assert_uint_eq(t.nfiles, 6);
        ck_assert_uint_eq(m.n, 6);
        ck_assert_uint_eq(t.total_bytes, total);
        for (size_t i = 0; i < t.nfiles; i++) {
            char path[512];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, t.files[i].path);
            ck_assert_int_eq(lstat(path, &st), 0);
            ck_assert_uint_eq(t.files[i].size, (uint64_t)st.st_size);
            ck_assert_uint_eq(t.files[i].dev, (uint64_t)st.st_dev);
            ck_assert_uint_eq(t.files[i].ino, (uint64_t)st.st_ino);
            ck_assert_str_eq(m.entries[i].path, t.files[i].path);
            ck_assert_int_eq(m.entries[i].size, (int64_t)st.st_size);
        }
        ms_ds_tree_free(&t);
        ms_ds_manifest_free(&m);
    }
    rm_tree(dir);
}
END_TEST

START_TEST(manifest_file_inside_the_tree_is_excluded)
{
    char dir[256], mpath[512];
    ms_test_tmpdir(dir, sizeof dir);
    put_str(dir, "a", "abc");
    snprintf(mpath, sizeof mpath, "%s/MANIFEST.sha256", dir);
    put_str(dir, "MANIFEST.sha256", SHA_ABC "  a\n");
    struct stat st;
    ck_assert_int_eq(stat(mpath, &st), 0);
    ms_ds_manifest m;
    ms_err e = {0};
    ck_assert_int_eq(ms_ds_manifest_load(mpath, &m, &e), MS_OK);
    ms_ds_result r;
    verify(&m, dir, 0, &r);
    ck_assert_uint_eq(r.extra, 1); /* without the exclusion the manifest is an extra file */
    ms_ds_result_free(&r);
    ms_ds_verify_opts vo = {.hash = {.jobs = 1}, .exclude_dev = st.st_dev, .exclude_ino = st.st_ino};
    ck_assert_int_eq(ms_ds_verify(&m, dir, &vo, &r, &e), MS_OK);
    ck_assert(ms_ds_result_ok(&r));
    ms_ds_result_free(&r);
    ms_ds_manifest_free(&m);

    /* building with the output excluded leaves it out */
    ms_ds_tree t;
    ms_ds_hash_opts ho = {.jobs = 1};
    ck_assert_int_eq(ms_ds_build(dir, "sha256", &ho, st.st_dev, st.st_ino, &t, &m, &e), MS_OK);
    ck_assert_uint_eq(m.n, 1);
    ck_assert_str_eq(m.entries[0].path, "a");
    ms_ds_tree_free(&t);
    ms_ds_manifest_free(&m);
    rm_tree(dir);
}
END_TEST

/* Runs ms_ds_build in a child process; as root the child first becomes nobody, since root
 * reads files whatever their mode. Returns the status and copies the message. */
static int build_unprivileged(const char *dir, char *msg, size_t msgsz)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(100);
        ms_ds_tree t;
        ms_ds_manifest m;
        ms_err e = {0};
        ms_ds_hash_opts ho = {.jobs = 2};
        int rc = ms_ds_build(dir, "sha256", &ho, 0, 0, &t, &m, &e);
        if (write(fds[1], e.msg, strlen(e.msg)) < 0)
            _exit(101);
        ms_ds_tree_free(&t);
        ms_ds_manifest_free(&m);
        _exit(rc);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < msgsz && (r = read(fds[0], msg + n, msgsz - 1 - n)) > 0)
        n += (size_t)r;
    msg[n] = '\0';
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(unreadable_files_fail_the_build)
{
    char dir[256], path[512], msg[2048];
    ms_test_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    put_str(dir, "a", "abc");
    put_str(dir, "locked", "abc");
    snprintf(path, sizeof path, "%s/locked", dir);
    ck_assert_int_eq(chmod(path, 0), 0);
    int rc = build_unprivileged(dir, msg, sizeof msg);
    ck_assert_msg(rc != 100, "cannot switch to user nobody");
    ck_assert_int_eq(rc, MS_EINPUT);
    ck_assert_msg(strstr(msg, "locked: cannot open: Permission denied"), "%s", msg);
    ck_assert_msg(strstr(msg, "no manifest written"), "%s", msg);
    /* an unreadable directory too */
    ck_assert_int_eq(chmod(path, 0644), 0);
    sub_dir(dir, "closed");
    put_str(dir, "closed/x", "abc");
    snprintf(path, sizeof path, "%s/closed", dir);
    ck_assert_int_eq(chmod(path, 0), 0);
    rc = build_unprivileged(dir, msg, sizeof msg);
    ck_assert_int_eq(rc, MS_EINPUT);
    ck_assert_msg(strstr(msg, "closed: cannot open directory: Permission denied"), "%s", msg);
    ck_assert_int_eq(chmod(path, 0755), 0);
    rm_tree(dir);
}
END_TEST

START_TEST(missing_root_is_an_input_error)
{
    ms_ds_manifest m;
    ms_err e = {0};
    ck_assert_int_eq(parse(SHA_ABC "  a\n", &m, &e), MS_OK);
    ms_ds_result r;
    ms_ds_verify_opts vo = {.hash = {.jobs = 1}};
    ck_assert_int_eq(ms_ds_verify(&m, "/nonexistent/mlsubmit-dataset", &vo, &r, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/mlsubmit-dataset"));
    ms_ds_manifest_free(&m);
    ck_assert_int_eq(ms_ds_manifest_load("/nonexistent/M.sha256", &m, &e), MS_EINPUT);
}
END_TEST

START_TEST(display_names_escape_unprintable_bytes)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ms_ds_fput_name("a\nb\\c\td\x01" "caf\xc3\xa9\xff" "\xed\xa0\x80", f);
    fclose(f);
    ck_assert_str_eq(text, "a\\nb\\\\c\\td\\x01caf\xc3\xa9\\xff\\xed\\xa0\\x80");
    free(text);
}
END_TEST

START_TEST(result_json_lists_findings)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    put_str(dir, "a", "abc");
    put_str(dir, "extra\xff", "x");
    ms_ds_manifest m;
    ms_err e = {0};
    ck_assert_int_eq(parse(SHA_ABC "  a\n" SHA_ABC "  gone\n", &m, &e), MS_OK);
    ms_ds_result r;
    verify(&m, dir, 0, &r);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(ms_ds_write_result_json(&r, "M", dir, m.algo, f, &e), MS_OK);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "\"ok\": false"));
    ck_assert_ptr_nonnull(strstr(text, "\"path\": \"gone\""));
    ck_assert_ptr_nonnull(strstr(text, "\"line\": 2"));
    ck_assert_ptr_nonnull(strstr(text, "\"path_hex\": \"6578747261ff\""));
    free(text);
    ms_ds_result_free(&r);
    ms_ds_manifest_free(&m);
    rm_tree(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dataset");
    TCase *tc = tcase_create("dataset");
    tcase_add_test(tc, sums_text_binary_and_tags);
    tcase_add_test(tc, sums_md5_sha1_and_bsd_tags);
    tcase_add_test(tc, sums_escaped_names);
    tcase_add_test(tc, sums_malformed_lines_name_the_line);
    tcase_add_test(tc, sums_empty_manifest_is_valid);
    tcase_add_test(tc, normalize_paths);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, json_malformed_names_the_field);
    tcase_add_test(tc, verify_reports_flipped_missing_extra_by_name);
    tcase_add_test(tc, verify_size_mismatch_without_hashing);
    tcase_add_test(tc, verify_coreutils_manifest_with_relative_prefixes);
    tcase_add_test(tc, symlinks_are_never_followed);
    tcase_add_test(tc, parallel_digests_match_single_file_hashing);
    tcase_add_test(tc, streamed_hashing_matches_single_file_hashing);
    tcase_add_test(tc, manifest_tree_has_each_files_size_and_identity);
    tcase_add_test(tc, manifest_file_inside_the_tree_is_excluded);
    tcase_add_test(tc, unreadable_files_fail_the_build);
    tcase_add_test(tc, missing_root_is_an_input_error);
    tcase_add_test(tc, display_names_escape_unprintable_bytes);
    tcase_add_test(tc, result_json_lists_findings);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
