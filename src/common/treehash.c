/* Dataset manifests: reading the coreutils and JSON forms, writing them, path normalisation and
 * the display escaping of file names. */
#include "common/treehash.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/pytext.h"
#include "common/treehash_int.h"

/* ---- names for display -------------------------------------------------------------------- */

int ms_ds_escape_name(ms_buf *b, const char *name, size_t len)
{
    const unsigned char *s = (const unsigned char *)name;
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        int rc;
        if (c == '\\')
            rc = ms_buf_puts(b, "\\\\");
        else if (c == '\n')
            rc = ms_buf_puts(b, "\\n");
        else if (c == '\r')
            rc = ms_buf_puts(b, "\\r");
        else if (c == '\t')
            rc = ms_buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            rc = ms_buf_printf(b, "\\x%02x", c);
        else {
            size_t k = ms_utf8_seq(s + i, len - i);
            if (k == 0) {
                rc = ms_buf_printf(b, "\\x%02x", c);
            } else {
                rc = ms_buf_append(b, s + i, k);
                i += k;
                if (rc)
                    return -1;
                continue;
            }
        }
        if (rc)
            return -1;
        i++;
    }
    return ms_buf_append(b, "", 0); /* NUL-terminated even when empty */
}

void ms_ds_fput_name(const char *path, FILE *out)
{
    ms_buf b = MS_BUF_INIT;
    if (ms_ds_escape_name(&b, path, strlen(path)) == 0 && b.data)
        fputs(b.data, out);
    else if (!b.data)
        fputs(path, out); /* nothing to escape was possible: out of memory; show it raw */
    ms_buf_free(&b);
}

/* A short display excerpt of a manifest line for error messages. */
static void excerpt(const char *s, size_t len, char *out, size_t outsz)
{
    ms_buf b = MS_BUF_INIT;
    size_t n = len > 60 ? 60 : len;
    if (ms_ds_escape_name(&b, s, n) == 0 && b.data)
        snprintf(out, outsz, "%s%s", b.data, n < len ? "..." : "");
    else
        snprintf(out, outsz, "?");
    ms_buf_free(&b);
}

/* ---- manifest container ------------------------------------------------------------------- */

void ms_ds_manifest_free(ms_ds_manifest *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->entries[i].path);
    free(m->entries);
    memset(m, 0, sizeof *m);
}

/* Takes ownership of path. */
static int add_entry(ms_ds_manifest *m, char *path, int64_t size, const char *hex, size_t hexlen,
                     size_t line, ms_err *e)
{
    if (MS_GROW(m->entries, m->cap, m->n + 1, 32)) {
        free(path);
        return ms_err_oom(e);
    }
    ms_ds_entry *en = &m->entries[m->n];
    memset(en, 0, sizeof *en);
    en->path = path;
    en->size = size;
    en->line = line;
    en->index = m->n;
    for (size_t i = 0; i < hexlen && i < MS_DS_HEX_MAX - 1; i++) {
        char c = hex[i];
        en->digest[i] = (c >= 'A' && c <= 'F') ? (char)(c - 'A' + 'a') : c;
    }
    m->n++;
    return MS_OK;
}

static int cmp_entry_path(const void *a, const void *b)
{
    const ms_ds_entry *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorts by path and rejects a path listed twice. */
static int sort_and_check_dups(ms_ds_manifest *m, const char *name, ms_err *e)
{
    if (m->n > 1)
        qsort(m->entries, m->n, sizeof *m->entries, cmp_entry_path);
    for (size_t i = 1; i < m->n; i++) {
        const ms_ds_entry *a = &m->entries[i - 1], *b = &m->entries[i];
        if (strcmp(a->path, b->path))
            continue;
        char shown[200];
        excerpt(a->path, strlen(a->path), shown, sizeof shown);
        if (m->format == MS_DS_FMT_SUMS)
            return ms_err_set(e, MS_EINPUT, "%s:%zu: '%s' is already listed on line %zu", name,
                              b->line, shown, a->line);
        return ms_err_set(e, MS_EINPUT, "%s: files[%zu]: '%s' is already listed at files[%zu]", name,
                          b->index, shown, a->index);
    }
    return MS_OK;
}

const char *ms_ds_normalize_path(char *path)
{
    if (!path[0])
        return "is empty";
    if (path[0] == '/')
        return "is absolute (manifest paths are relative to the dataset root)";
    char *w = path;
    const char *r = path;
    while (*r) {
        const char *s = r;
        while (*r && *r != '/')
            r++;
        size_t n = (size_t)(r - s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return "contains a '..' component (manifest paths must stay inside the dataset root)";
        if (n && !(n == 1 && s[0] == '.')) {
            if (w != path)
                *w++ = '/';
            memmove(w, s, n);
            w += n;
        }
        if (*r == '/')
            r++;
    }
    *w = '\0';
    if (w == path)
        return "names no file";
    return NULL;
}

static const char *algo_for_hexlen(size_t n)
{
    switch (n) {
    case 32:
        return "md5";
    case 40:
        return "sha1";
    case 64:
        return "sha256";
    default:
        return NULL;
    }
}

static size_t hexlen_for_algo(const char *algo)
{
    if (!strcmp(algo, "md5"))
        return 32;
    if (!strcmp(algo, "sha1"))
        return 40;
    if (!strcmp(algo, "sha256"))
        return 64;
    return 0;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* ---- coreutils form ----------------------------------------------------------------------- */

/* The BSD tag names sha256sum --tag, md5sum --tag, sha1sum --tag (and OpenSSL's dgst) write. */
static const struct {
    const char *tag;
    const char *algo;
} bsd_tags[] = {
    {"SHA256", "sha256"}, {"SHA2-256", "sha256"}, {"SHA1", "sha1"}, {"MD5", "md5"},
};

#define SUMS_SHAPE                                                                                 \
    "expected '<hex digest>  <file name>' (sha256sum, md5sum or sha1sum output) or "              \
    "'SHA256 (<file name>) = <hex digest>'"

/* GNU coreutils' escaped form: \\ -> \, \n -> LF, \r -> CR. Returns malloc'd name or NULL with
 * *bad set (bad escape) or not set (out of memory). */
static char *unescape_name(const char *s, size_t len, int escaped, const char **bad)
{
    *bad = NULL;
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (escaped && c == '\\') {
            if (i + 1 == len) {
                *bad = "file name ends with a lone '\\' (escaped names use \\\\, \\n and \\r)";
                free(out);
                return NULL;
            }
            char d = s[++i];
            if (d == '\\')
                c = '\\';
            else if (d == 'n')
                c = '\n';
            else if (d == 'r')
                c = '\r';
            else {
                *bad = "invalid escape in file name (escaped names use only \\\\, \\n and \\r)";
                free(out);
                return NULL;
            }
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return out;
}

static int line_error(ms_err *e, const char *name, size_t line_no, const char *line, size_t len,
                      const char *what)
{
    char ex[300];
    excerpt(line, len, ex, sizeof ex);
    return ms_err_set(e, MS_EINPUT, "%s:%zu: %s; found \"%s\"", name, line_no, what, ex);
}

static int parse_sums_line(ms_ds_manifest *m, const char *name, size_t line_no, const char *s,
                           size_t len, size_t *algo_line, ms_err *e)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    int escaped = 0;
    if (i < len && s[i] == '\\') {
        escaped = 1;
        i++;
    }
    const char *algo = NULL;
    const char *hex = NULL, *fname = NULL;
    size_t hexlen = 0, fnamelen = 0;
    for (size_t t = 0; t < sizeof bsd_tags / sizeof bsd_tags[0]; t++) {
        size_t tl = strlen(bsd_tags[t].tag);
        size_t j = i + tl;
        if (len - i < tl || memcmp(s + i, bsd_tags[t].tag, tl))
            continue;
        if (j < len && s[j] == ' ')
            j++;
        if (j >= len || s[j] != '(')
            continue;
        /* BSD tag form: the name runs to the last ')' */
        size_t open = j + 1, close = len;
        while (close > open && s[close - 1] != ')')
            close--;
        if (close == open)
            return line_error(e, name, line_no, s, len,
                              "BSD-style line without the ')' that ends the file name");
        close--;
        size_t k = close + 1;
        while (k < len && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (k >= len || s[k] != '=')
            return line_error(e, name, line_no, s, len, "expected '= <hex digest>' after '(<file name>)'");
        k++;
        while (k < len && (s[k] == ' ' || s[k] == '\t'))
            k++;
        hex = s + k;
        hexlen = len - k;
        fname = s + open;
        fnamelen = close - open;
        algo = bsd_tags[t].algo;
        for (size_t q = 0; q < hexlen; q++)
            if (!is_hex(hex[q]))
                return line_error(e, name, line_no, s, len, "the digest must be hex digits only");
        if (hexlen != hexlen_for_algo(algo)) {
            char what[160];
            snprintf(what, sizeof what, "a %s digest has %zu hex digits, this one has %zu",
                     bsd_tags[t].tag, hexlen_for_algo(algo), hexlen);
            return line_error(e, name, line_no, s, len, what);
        }
        break;
    }
    if (!algo) {
        size_t j = i;
        while (j < len && is_hex(s[j]))
            j++;
        hex = s + i;
        hexlen = j - i;
        if (hexlen == 0)
            return line_error(e, name, line_no, s, len, SUMS_SHAPE);
        algo = algo_for_hexlen(hexlen);
        if (!algo) {
            if (j < len && s[j] != ' ' && s[j] != '\t')
                return line_error(e, name, line_no, s, len, SUMS_SHAPE);
            char what[160];
            snprintf(what, sizeof what,
                     "the digest has %zu hex digits; expected 32 (md5), 40 (sha1) or 64 (sha256)",
                     hexlen);
            return line_error(e, name, line_no, s, len, what);
        }
        if (j >= len || (s[j] != ' ' && s[j] != '\t'))
            return line_error(e, name, line_no, s, len,
                              j >= len ? "missing file name after the digest"
                                       : "expected a space between the digest and the file name");
        j++;
        /* the mode marker: ' ' (text) or '*' (binary); coreutils also accepts a single space */
        if (len - j > 1 && (s[j] == ' ' || s[j] == '*'))
            j++;
        fname = s + j;
        fnamelen = len - j;
    }
    if (fnamelen == 0)
        return line_error(e, name, line_no, s, len, "missing file name after the digest");
    if (memchr(fname, '\0', fnamelen))
        return line_error(e, name, line_no, s, len, "the file name contains a NUL byte");
    if (!m->algo[0]) {
        snprintf(m->algo, sizeof m->algo, "%s", algo);
        *algo_line = line_no;
    } else if (strcmp(m->algo, algo)) {
        char what[200];
        snprintf(what, sizeof what,
                 "this is a %s digest but line %zu has a %s digest (one algorithm per manifest)",
                 algo, *algo_line, m->algo);
        return line_error(e, name, line_no, s, len, what);
    }
    const char *bad;
    char *path = unescape_name(fname, fnamelen, escaped, &bad);
    if (!path)
        return bad ? line_error(e, name, line_no, s, len, bad) : ms_err_oom(e);
    const char *why = ms_ds_normalize_path(path);
    if (why) {
        char what[200];
        snprintf(what, sizeof what, "the file name %s", why);
        free(path);
        return line_error(e, name, line_no, s, len, what);
    }
    return add_entry(m, path, -1, hex, hexlen, line_no, e);
}

static int parse_sums(const char *text, size_t len, const char *name, ms_ds_manifest *m, ms_err *e)
{
    size_t line_no = 0, algo_line = 0;
    for (size_t pos = 0; pos < len;) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - s) : len - pos;
        pos += l + (nl ? 1 : 0);
        line_no++;
        if (l && s[l - 1] == '\r')
            l--;
        size_t k = 0;
        while (k < l && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (k == l || s[0] == '#')
            continue;
        int rc = parse_sums_line(m, name, line_no, s, l, &algo_line, e);
        if (rc)
            return rc;
    }
    return MS_OK;
}

/* ---- JSON form ---------------------------------------------------------------------------- */

static int hexval(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static int parse_json_entry(ms_ds_manifest *m, const char *name, size_t idx, json_t *f, ms_err *e)
{
    if (!json_is_object(f))
        return ms_err_set(e, MS_EINPUT, "%s: files[%zu]: expected an object {\"path\", \"size\", \"digest\"}",
                          name, idx);
    json_t *jp = json_object_get(f, "path"), *jh = json_object_get(f, "path_hex");
    json_t *js = json_object_get(f, "size"), *jd = json_object_get(f, "digest");
    if ((jp != NULL) == (jh != NULL))
        return ms_err_set(e, MS_EINPUT, "%s: files[%zu]: expected exactly one of \"path\" and \"path_hex\"",
                          name, idx);
    if (!json_is_integer(js) || json_integer_value(js) < 0)
        return ms_err_set(e, MS_EINPUT, "%s: files[%zu].size: expected a non-negative integer (bytes)",
                          name, idx);
    size_t want = hexlen_for_algo(m->algo);
    const char *d = json_string_value(jd);
    size_t dl = d ? json_string_length(jd) : 0;
    int ok = d && dl == want;
    for (size_t q = 0; ok && q < dl; q++)
        ok = is_hex(d[q]);
    if (!ok)
        return ms_err_set(e, MS_EINPUT, "%s: files[%zu].digest: expected %zu hex digits (%s)", name,
                          idx, want, m->algo);
    char *path;
    if (jp) {
        if (!json_is_string(jp))
            return ms_err_set(e, MS_EINPUT, "%s: files[%zu].path: expected a string", name, idx);
        /* Jansson rejects "\u0000" unless asked, so the string has no NUL */
        path = strdup(json_string_value(jp));
        if (!path)
            return ms_err_oom(e);
    } else {
        const char *h = json_string_value(jh);
        size_t hl = h ? json_string_length(jh) : 0;
        ok = h && hl && hl % 2 == 0;
        for (size_t q = 0; ok && q < hl; q++)
            ok = is_hex(h[q]);
        if (!ok)
            return ms_err_set(e, MS_EINPUT,
                              "%s: files[%zu].path_hex: expected the name's bytes as an even number of hex digits",
                              name, idx);
        path = malloc(hl / 2 + 1);
        if (!path)
            return ms_err_oom(e);
        for (size_t q = 0; q < hl / 2; q++)
            path[q] = (char)(hexval(h[2 * q]) << 4 | hexval(h[2 * q + 1]));
        path[hl / 2] = '\0';
        if (strlen(path) != hl / 2) {
            free(path);
            return ms_err_set(e, MS_EINPUT, "%s: files[%zu].path_hex: the name contains a NUL byte",
                              name, idx);
        }
    }
    const char *why = ms_ds_normalize_path(path);
    if (why) {
        free(path);
        return ms_err_set(e, MS_EINPUT, "%s: files[%zu].%s: the path %s", name, idx,
                          jp ? "path" : "path_hex", why);
    }
    return add_entry(m, path, (int64_t)json_integer_value(js), d, dl, 0, e);
}

static int parse_json(const char *text, size_t len, const char *name, ms_ds_manifest *m, ms_err *e)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return ms_err_set(e, MS_EINPUT, "%s:%d:%d: invalid JSON: %s", name, je.line, je.column, je.text);
    int rc = MS_OK;
    const char *fmt = json_string_value(json_object_get(root, "format"));
    json_t *ver = json_object_get(root, "version");
    const char *algo = json_string_value(json_object_get(root, "algorithm"));
    json_t *files = json_object_get(root, "files");
    if (!json_is_object(root))
        rc = ms_err_set(e, MS_EINPUT, "%s: expected a JSON object (a dataset manifest)", name);
    else if (!fmt || strcmp(fmt, MS_DS_JSON_FORMAT))
        rc = ms_err_set(e, MS_EINPUT, "%s: format: expected \"%s\"", name, MS_DS_JSON_FORMAT);
    else if (!json_is_integer(ver) || json_integer_value(ver) != MS_DS_JSON_VERSION)
        rc = ms_err_set(e, MS_EINPUT, "%s: version: expected %d (this mlsubmit reads version %d)",
                        name, MS_DS_JSON_VERSION, MS_DS_JSON_VERSION);
    else if (!algo || !hexlen_for_algo(algo))
        rc = ms_err_set(e, MS_EINPUT, "%s: algorithm: expected \"sha256\", \"sha1\" or \"md5\"", name);
    else if (!json_is_array(files))
        rc = ms_err_set(e, MS_EINPUT, "%s: files: expected an array of {\"path\", \"size\", \"digest\"}",
                        name);
    if (rc == MS_OK) {
        snprintf(m->algo, sizeof m->algo, "%s", algo);
        for (size_t i = 0; rc == MS_OK && i < json_array_size(files); i++)
            rc = parse_json_entry(m, name, i, json_array_get(files, i), e);
    }
    json_decref(root);
    return rc;
}

/* ---- entry points ------------------------------------------------------------------------- */

int ms_ds_manifest_parse(const char *text, size_t len, const char *name, ms_ds_manifest *m,
                         ms_err *e)
{
    memset(m, 0, sizeof *m);
    size_t k = 0;
    while (k < len && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r'))
        k++;
    m->format = (k < len && text[k] == '{') ? MS_DS_FMT_JSON : MS_DS_FMT_SUMS;
    int rc = m->format == MS_DS_FMT_JSON ? parse_json(text, len, name, m, e)
                                         : parse_sums(text, len, name, m, e);
    if (rc == MS_OK)
        rc = sort_and_check_dups(m, name, e);
    if (rc != MS_OK) {
        ms_ds_format f = m->format;
        ms_ds_manifest_free(m);
        m->format = f;
    }
    return rc;
}

static int parse_manifest(const char *text, size_t len, const char *name, void *out, ms_err *e)
{
    return ms_ds_manifest_parse(text, len, name, out, e);
}

int ms_ds_manifest_load(const char *path, ms_ds_manifest *m, ms_err *e)
{
    memset(m, 0, sizeof *m);
    return ms_parse_file(path, parse_manifest, m, e);
}

/* ---- writers ------------------------------------------------------------------------------ */

static int write_failed(FILE *out, ms_err *e)
{
    if (ferror(out))
        return ms_err_set(e, MS_ERUNTIME, "write error while writing the manifest");
    return MS_OK;
}

int ms_ds_write_sums(const ms_ds_manifest *m, FILE *out, ms_err *e)
{
    for (size_t i = 0; i < m->n; i++) {
        const char *p = m->entries[i].path;
        int esc = strpbrk(p, "\\\n\r") != NULL;
        if (esc)
            fputc('\\', out);
        fputs(m->entries[i].digest, out);
        fputs("  ", out);
        if (!esc) {
            fputs(p, out);
        } else {
            for (; *p; p++) {
                if (*p == '\\')
                    fputs("\\\\", out);
                else if (*p == '\n')
                    fputs("\\n", out);
                else if (*p == '\r')
                    fputs("\\r", out);
                else
                    fputc(*p, out);
            }
        }
        fputc('\n', out);
        if (ferror(out))
            break;
    }
    return write_failed(out, e);
}

int ms_ds_json_set_path(json_t *obj, const char *path)
{
    json_t *s = json_string(path);
    if (s)
        return json_object_set_new(obj, "path", s);
    size_t n = strlen(path);
    char *hex = malloc(2 * n + 1);
    if (!hex)
        return -1;
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = digits[(unsigned char)path[i] >> 4];
        hex[2 * i + 1] = digits[(unsigned char)path[i] & 15];
    }
    hex[2 * n] = '\0';
    int rc = json_object_set_new(obj, "path_hex", json_string(hex));
    free(hex);
    return rc;
}

int ms_ds_write_json(const ms_ds_manifest *m, FILE *out, ms_err *e)
{
    json_t *root = json_object(), *files = json_array();
    int bad = !root || !files;
    if (!bad)
        bad = json_object_set_new(root, "format", json_string(MS_DS_JSON_FORMAT)) ||
              json_object_set_new(root, "version", json_integer(MS_DS_JSON_VERSION)) ||
              json_object_set_new(root, "algorithm", json_string(m->algo)) ||
              json_object_set(root, "files", files);
    for (size_t i = 0; !bad && i < m->n; i++) {
        const ms_ds_entry *en = &m->entries[i];
        if (en->size < 0) {
            json_decref(files);
            json_decref(root);
            return ms_err_set(e, MS_EINPUT, "%s: the manifest entry has no file size", en->path);
        }
        json_t *f = json_object();
        if (!f || ms_ds_json_set_path(f, en->path) ||
            json_object_set_new(f, "size", json_integer((json_int_t)en->size)) ||
            json_object_set_new(f, "digest", json_string(en->digest))) {
            json_decref(f);
            bad = 1;
        } else if (json_array_append_new(files, f)) { /* the array took f and released it */
            bad = 1;
        }
    }
    json_decref(files);
    if (bad) {
        json_decref(root);
        return ms_err_oom(e);
    }
    int rc = json_dumpf(root, out, JSON_INDENT(2));
    json_decref(root);
    if (rc != 0 || fputc('\n', out) == EOF)
        return ms_err_set(e, MS_ERUNTIME, "write error while writing the manifest");
    return write_failed(out, e);
}
