/* Streaming mlperf_log_accuracy.json reader (see acclog.h).
 *
 * Hand-written rather than Jansson: Jansson only parses whole documents into memory, and these
 * logs reach several GB. The grammar is full JSON (RFC 8259) for everything the reader meets;
 * the unit tests cross-check it against Jansson on many layouts. */
#include "common/acclog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define BLOCK (1u << 20)
#define MAX_DEPTH 64

enum { ST_START, ST_FIRST, ST_NEXT, ST_DONE, ST_ERROR };

struct ms_acclog {
    FILE *fp;
    int own_fp;
    const unsigned char *buf; /* current block */
    unsigned char *block;     /* storage for file reads */
    size_t pos, len;
    int eof;
    char *name;
    unsigned flags;
    size_t line, col;
    uint64_t off;
    int state;
    size_t count;
    ms_buf str;   /* decoded string scratch */
    ms_buf data, hex, tok;
    ms_err err;   /* sticky error */
};

/* ---- character input ------------------------------------------------------------------------ */

static int refill(ms_acclog *r)
{
    if (r->eof || !r->fp)
        return 0;
    size_t n = fread(r->block, 1, BLOCK, r->fp);
    if (n == 0) {
        if (ferror(r->fp))
            return -1;
        r->eof = 1;
        return 0;
    }
    r->buf = r->block;
    r->pos = 0;
    r->len = n;
    return 1;
}

/* Next byte, or -1 at end of input, -2 on a read error. */
static inline int peekc(ms_acclog *r)
{
    if (r->pos == r->len) {
        int k = refill(r);
        if (k <= 0)
            return k < 0 ? -2 : -1;
    }
    return r->buf[r->pos];
}

static inline void advance(ms_acclog *r)
{
    if (r->buf[r->pos] == '\n') {
        r->line++;
        r->col = 1;
    } else {
        r->col++;
    }
    r->pos++;
    r->off++;
}

static int fail(ms_acclog *r, ms_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(ms_acclog *r, ms_err *e, int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ms_err_set(&r->err, code, "%s:%zu:%zu: %s", r->name, r->line, r->col, msg);
    if (e)
        *e = r->err;
    r->state = ST_ERROR;
    return -1;
}

static int fail_eof(ms_acclog *r, ms_err *e, int c, const char *where)
{
    if (c == -2)
        return fail(r, e, MS_ERUNTIME, "read error: %s", strerror(errno));
    return fail(r, e, MS_EINPUT, "unexpected end of file %s (truncated log?)", where);
}

static void describe(int c, char *out, size_t n)
{
    if (c < 0)
        snprintf(out, n, "end of file");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(out, n, "'%c'", c);
    else
        snprintf(out, n, "byte 0x%02X", (unsigned)c);
}

static int skip_ws(ms_acclog *r)
{
    for (;;) {
        int c = peekc(r);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            advance(r);
        else
            return c;
    }
}

static int expect_char(ms_acclog *r, ms_err *e, int want, const char *ctx)
{
    int c = skip_ws(r);
    if (c == want) {
        advance(r);
        return 0;
    }
    if (c < 0)
        return fail_eof(r, e, c, ctx);
    char d[32];
    describe(c, d, sizeof d);
    return fail(r, e, MS_EINPUT, "expected '%c' %s, got %s", want, ctx, d);
}

/* ---- strings -------------------------------------------------------------------------------- */

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int put_utf8(ms_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)),
        n = 3;
    } else {
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    return ms_buf_append(b, u, n);
}

static int read_u4(ms_acclog *r, ms_err *e, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int c = peekc(r);
        if (c < 0)
            return fail_eof(r, e, c, "inside a \\u escape");
        int h = hexval(c);
        if (h < 0)
            return fail(r, e, MS_EINPUT, "invalid \\u escape (expected 4 hex digits)");
        v = v * 16 + (uint32_t)h;
        advance(r);
    }
    *out = v;
    return 0;
}

/* Parses a JSON string (the opening quote is next) into out (decoded, NUL-terminated). If out is
 * NULL the string is only validated. */
static int read_string(ms_acclog *r, ms_err *e, ms_buf *out)
{
    if (out)
        ms_buf_reset(out);
    advance(r); /* opening quote */
    for (;;) {
        if (r->pos == r->len) {
            int k = refill(r);
            if (k <= 0)
                return fail_eof(r, e, k < 0 ? -2 : -1, "inside a string");
        }
        /* fast path: copy the run of plain characters in this block */
        const unsigned char *s = r->buf + r->pos, *end = r->buf + r->len, *p = s;
        while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p != '\n')
            p++;
        if (p > s) {
            if (out && ms_buf_append(out, s, (size_t)(p - s)) != 0)
                return fail(r, e, MS_ERUNTIME, "out of memory");
            size_t n = (size_t)(p - s);
            r->pos += n;
            r->col += n;
            r->off += n;
            continue;
        }
        int c = *p;
        if (c == '"') {
            advance(r);
            if (out && !out->data && ms_buf_reserve(out, 1) != 0)
                return fail(r, e, MS_ERUNTIME, "out of memory");
            return 0;
        }
        if (c < 0x20)
            return fail(r, e, MS_EINPUT, "unescaped control character 0x%02X inside a string", (unsigned)c);
        /* backslash escape */
        advance(r);
        c = peekc(r);
        if (c < 0)
            return fail_eof(r, e, c, "inside a string escape");
        advance(r);
        char ch;
        switch (c) {
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (read_u4(r, e, &cp))
                return -1;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (peekc(r) != '\\')
                    return fail(r, e, MS_EINPUT, "unpaired UTF-16 surrogate in a \\u escape");
                advance(r);
                if (peekc(r) != 'u')
                    return fail(r, e, MS_EINPUT, "unpaired UTF-16 surrogate in a \\u escape");
                advance(r);
                if (read_u4(r, e, &lo))
                    return -1;
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return fail(r, e, MS_EINPUT, "unpaired UTF-16 surrogate in a \\u escape");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(r, e, MS_EINPUT, "unpaired UTF-16 surrogate in a \\u escape");
            }
            if (out && put_utf8(out, cp) != 0)
                return fail(r, e, MS_ERUNTIME, "out of memory");
            continue;
        }
        default: {
            char d[32];
            describe(c, d, sizeof d);
            return fail(r, e, MS_EINPUT, "invalid escape \\%s in a string", d + (d[0] == '\''));
        }
        }
        if (out && ms_buf_putc(out, ch) != 0)
            return fail(r, e, MS_ERUNTIME, "out of memory");
    }
}

/* Reads a hex string value straight into bytes (and the hex text if keep). */
static int read_hex_string(ms_acclog *r, ms_err *e, const char *key, ms_buf *bytes, ms_buf *keep)
{
    size_t line = r->line, col = r->col;
    if (read_string(r, e, &r->str))
        return -1;
    const unsigned char *s = (const unsigned char *)r->str.data;
    size_t n = r->str.len;
    if (n % 2) {
        r->line = line, r->col = col;
        return fail(r, e, MS_EINPUT, "\"%s\": odd number of hex digits (%zu)", key, n);
    }
    ms_buf_reset(bytes);
    if (ms_buf_reserve(bytes, n / 2 + 1) != 0)
        return fail(r, e, MS_ERUNTIME, "out of memory");
    unsigned char *o = (unsigned char *)bytes->data;
    for (size_t i = 0; i < n; i += 2) {
        int hi = hexval(s[i]), lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0) {
            char d[32];
            describe(hi < 0 ? s[i] : s[i + 1], d, sizeof d);
            r->line = line, r->col = col;
            return fail(r, e, MS_EINPUT, "\"%s\": invalid hex digit %s at position %zu", key, d,
                        hi < 0 ? i : i + 1);
        }
        o[i / 2] = (unsigned char)(hi << 4 | lo);
    }
    bytes->len = n / 2;
    if (keep) {
        ms_buf_reset(keep);
        if (ms_buf_append(keep, s, n) != 0 || ms_buf_reserve(keep, 1) != 0)
            return fail(r, e, MS_ERUNTIME, "out of memory");
        keep->data[keep->len] = '\0';
    }
    return 0;
}

/* ---- numbers and other values --------------------------------------------------------------- */

/* Parses a JSON number. If it is an integer without fraction or exponent that fits, *is_int = 1
 * and *v holds it. */
static int read_number(ms_acclog *r, ms_err *e, int *is_int, int64_t *v, int *negative)
{
    int c = peekc(r), neg = 0, ok = 1;
    uint64_t acc = 0;
    if (c == '-') {
        neg = 1;
        advance(r);
        c = peekc(r);
    }
    if (c < '0' || c > '9')
        return fail(r, e, MS_EINPUT, "invalid number (expected a digit)");
    if (c == '0') {
        advance(r);
        c = peekc(r);
        if (c >= '0' && c <= '9')
            return fail(r, e, MS_EINPUT, "invalid number (leading zero)");
    } else {
        while (c >= '0' && c <= '9') {
            if (acc > (UINT64_MAX - 9) / 10)
                ok = 0;
            else
                acc = acc * 10 + (uint64_t)(c - '0');
            advance(r);
            c = peekc(r);
        }
    }
    int frac = 0;
    if (c == '.') {
        frac = 1;
        advance(r);
        c = peekc(r);
        if (c < '0' || c > '9')
            return fail(r, e, MS_EINPUT, "invalid number (expected a digit after '.')");
        while (c >= '0' && c <= '9') {
            advance(r);
            c = peekc(r);
        }
    }
    if (c == 'e' || c == 'E') {
        frac = 1;
        advance(r);
        c = peekc(r);
        if (c == '+' || c == '-') {
            advance(r);
            c = peekc(r);
        }
        if (c < '0' || c > '9')
            return fail(r, e, MS_EINPUT, "invalid number (expected a digit in the exponent)");
        while (c >= '0' && c <= '9') {
            advance(r);
            c = peekc(r);
        }
    }
    *negative = neg;
    *is_int = !frac && ok && acc <= (uint64_t)INT64_MAX;
    *v = neg ? -(int64_t)acc : (int64_t)acc;
    return 0;
}

static int read_literal(ms_acclog *r, ms_err *e, const char *word)
{
    for (const char *w = word; *w; w++) {
        int c = peekc(r);
        if (c != *w) {
            if (c < 0)
                return fail_eof(r, e, c, "inside a literal");
            return fail(r, e, MS_EINPUT, "invalid literal (expected '%s')", word);
        }
        advance(r);
    }
    return 0;
}

static int skip_value(ms_acclog *r, ms_err *e, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(r, e, MS_EINPUT, "values nested deeper than %d levels", MAX_DEPTH);
    int c = skip_ws(r);
    if (c < 0)
        return fail_eof(r, e, c, "where a value was expected");
    if (c == '"')
        return read_string(r, e, NULL);
    if (c == 't')
        return read_literal(r, e, "true");
    if (c == 'f')
        return read_literal(r, e, "false");
    if (c == 'n')
        return read_literal(r, e, "null");
    if (c == '-' || (c >= '0' && c <= '9')) {
        int is_int, neg;
        int64_t v;
        return read_number(r, e, &is_int, &v, &neg);
    }
    if (c == '[' || c == '{') {
        int close = c == '[' ? ']' : '}';
        advance(r);
        c = skip_ws(r);
        if (c == close) {
            advance(r);
            return 0;
        }
        for (;;) {
            if (close == '}') {
                c = skip_ws(r);
                if (c != '"') {
                    if (c < 0)
                        return fail_eof(r, e, c, "inside an object");
                    return fail(r, e, MS_EINPUT, "expected a string key inside an object");
                }
                if (read_string(r, e, NULL) || expect_char(r, e, ':', "after an object key"))
                    return -1;
            }
            if (skip_value(r, e, depth + 1))
                return -1;
            c = skip_ws(r);
            if (c == ',') {
                advance(r);
                continue;
            }
            if (c == close) {
                advance(r);
                return 0;
            }
            if (c < 0)
                return fail_eof(r, e, c, close == ']' ? "inside an array" : "inside an object");
            char d[32];
            describe(c, d, sizeof d);
            return fail(r, e, MS_EINPUT, "expected ',' or '%c', got %s", close, d);
        }
    }
    char d[32];
    describe(c, d, sizeof d);
    return fail(r, e, MS_EINPUT, "expected a JSON value, got %s", d);
}

/* ---- entries -------------------------------------------------------------------------------- */

enum { K_SEQ = 1, K_QSL = 2, K_DATA = 4, K_TDATA = 8, K_TCOUNT = 16 };

static int read_int_field(ms_acclog *r, ms_err *e, const char *key, int allow_negative, int64_t *v)
{
    int c = skip_ws(r);
    if (c < 0)
        return fail_eof(r, e, c, "where a value was expected");
    if (c != '-' && (c < '0' || c > '9')) {
        char d[32];
        describe(c, d, sizeof d);
        return fail(r, e, MS_EINPUT, "\"%s\": expected an integer, got %s", key, d);
    }
    size_t line = r->line, col = r->col;
    int is_int, neg;
    if (read_number(r, e, &is_int, v, &neg))
        return -1;
    if (!is_int || (neg && !allow_negative)) {
        r->line = line, r->col = col;
        return fail(r, e, MS_EINPUT, "\"%s\": expected a%s integer", key,
                    allow_negative ? "n" : " non-negative");
    }
    return 0;
}

static int read_entry(ms_acclog *r, ms_acc_entry *ent, ms_err *e)
{
    memset(ent, 0, sizeof *ent);
    ent->index = r->count;
    ent->line = r->line;
    ent->offset = r->off;
    advance(r); /* '{' */
    unsigned seen = 0;
    int c = skip_ws(r);
    if (c == '}') {
        advance(r);
        return fail(r, e, MS_EINPUT, "entry %zu (line %zu) is empty: \"seq_id\", \"qsl_idx\" and \"data\" are required",
                    ent->index, ent->line);
    }
    for (;;) {
        c = skip_ws(r);
        if (c != '"') {
            if (c < 0)
                return fail_eof(r, e, c, "inside an entry");
            char d[32];
            describe(c, d, sizeof d);
            return fail(r, e, MS_EINPUT, "expected a key in entry %zu, got %s", ent->index, d);
        }
        if (read_string(r, e, &r->str) || expect_char(r, e, ':', "after a key"))
            return -1;
        const char *key = r->str.data;
        unsigned bit = !strcmp(key, "seq_id")        ? K_SEQ
                       : !strcmp(key, "qsl_idx")     ? K_QSL
                       : !strcmp(key, "data")        ? K_DATA
                       : !strcmp(key, "token_data")  ? K_TDATA
                       : !strcmp(key, "token_count") ? K_TCOUNT
                                                     : 0;
        if (bit && (seen & bit))
            return fail(r, e, MS_EINPUT, "duplicate key \"%s\" in entry %zu", key, ent->index);
        seen |= bit;
        int64_t v;
        switch (bit) {
        case K_SEQ:
            if (read_int_field(r, e, "seq_id", 0, &v))
                return -1;
            ent->seq_id = (uint64_t)v;
            break;
        case K_QSL:
            if (read_int_field(r, e, "qsl_idx", 0, &v))
                return -1;
            ent->qsl_idx = (uint64_t)v;
            break;
        case K_TCOUNT:
            if (read_int_field(r, e, "token_count", 1, &v))
                return -1;
            ent->token_count = v;
            ent->has_token_count = 1;
            break;
        case K_DATA:
        case K_TDATA: {
            const char *k = bit == K_DATA ? "data" : "token_data";
            c = skip_ws(r);
            if (c != '"') {
                if (c < 0)
                    return fail_eof(r, e, c, "where a value was expected");
                char d[32];
                describe(c, d, sizeof d);
                return fail(r, e, MS_EINPUT, "\"%s\": expected a hex string, got %s", k, d);
            }
            if (bit == K_DATA) {
                if (read_hex_string(r, e, k, &r->data, (r->flags & MS_ACCLOG_KEEP_HEX) ? &r->hex : NULL))
                    return -1;
            } else {
                if (read_hex_string(r, e, k, &r->tok, NULL))
                    return -1;
                ent->has_token_data = 1;
            }
            break;
        }
        default:
            if (skip_value(r, e, 1))
                return -1;
        }
        c = skip_ws(r);
        if (c == ',') {
            advance(r);
            continue;
        }
        if (c == '}') {
            advance(r);
            break;
        }
        if (c < 0)
            return fail_eof(r, e, c, "inside an entry");
        char d[32];
        describe(c, d, sizeof d);
        return fail(r, e, MS_EINPUT, "expected ',' or '}' in entry %zu, got %s", ent->index, d);
    }
    const char *missing = !(seen & K_SEQ) ? "seq_id" : !(seen & K_QSL) ? "qsl_idx" : !(seen & K_DATA) ? "data" : NULL;
    if (missing) {
        r->line = ent->line;
        return fail(r, e, MS_EINPUT, "entry %zu (line %zu) has no \"%s\"", ent->index, ent->line, missing);
    }
    static const unsigned char empty[1] = {0};
    ent->data = r->data.data ? (const unsigned char *)r->data.data : empty;
    ent->data_len = r->data.len;
    if (r->flags & MS_ACCLOG_KEEP_HEX) {
        ent->data_hex = r->hex.data ? r->hex.data : "";
        ent->data_hex_len = r->hex.len;
    }
    if (ent->has_token_data) {
        ent->token_data = r->tok.data ? (const unsigned char *)r->tok.data : empty;
        ent->token_data_len = r->tok.len;
    }
    r->count++;
    return 1;
}

int ms_acclog_next(ms_acclog *r, ms_acc_entry *ent, ms_err *e)
{
    int c;
    switch (r->state) {
    case ST_DONE:
        return 0;
    case ST_ERROR:
        if (e)
            *e = r->err;
        return -1;
    case ST_START:
        c = skip_ws(r);
        if (c == 0xEF) /* UTF-8 byte order mark */
            return fail(r, e, MS_EINPUT, "starts with a byte order mark; expected '['");
        if (c != '[') {
            if (c < 0)
                return c == -2 ? fail_eof(r, e, c, "") : fail(r, e, MS_EINPUT, "empty file; expected a JSON array");
            char d[32];
            describe(c, d, sizeof d);
            return fail(r, e, MS_EINPUT, "expected '[' (a JSON array of accuracy entries), got %s", d);
        }
        advance(r);
        r->state = ST_FIRST;
        /* fall through */
    case ST_FIRST:
    case ST_NEXT:
        c = skip_ws(r);
        if (r->state == ST_NEXT) {
            if (c == ',') {
                advance(r);
                c = skip_ws(r);
                if (c == ']')
                    return fail(r, e, MS_EINPUT, "trailing comma before ']' after entry %zu", r->count - 1);
            } else if (c != ']') {
                if (c < 0)
                    return fail_eof(r, e, c, "after an entry (the closing ']' is missing)");
                char d[32];
                describe(c, d, sizeof d);
                return fail(r, e, MS_EINPUT, "expected ',' or ']' after entry %zu, got %s", r->count - 1, d);
            }
        }
        if (c == ']') {
            advance(r);
            c = skip_ws(r);
            if (c != -1) {
                if (c == -2)
                    return fail_eof(r, e, c, "");
                char d[32];
                describe(c, d, sizeof d);
                return fail(r, e, MS_EINPUT, "unexpected %s after the closing ']'", d);
            }
            r->state = ST_DONE;
            return 0;
        }
        if (c != '{') {
            if (c < 0)
                return fail_eof(r, e, c, "where an entry was expected (the closing ']' is missing)");
            char d[32];
            describe(c, d, sizeof d);
            return fail(r, e, MS_EINPUT, "expected an entry object '{', got %s", d);
        }
        r->state = ST_NEXT;
        return read_entry(r, ent, e);
    }
    return -1;
}

/* ---- open / close --------------------------------------------------------------------------- */

static ms_acclog *new_reader(const char *name, unsigned flags, ms_err *e)
{
    ms_acclog *r = calloc(1, sizeof *r);
    if (!r || !(r->name = strdup(name))) {
        free(r);
        ms_err_oom(e);
        return NULL;
    }
    r->flags = flags;
    r->line = 1;
    r->col = 1;
    r->state = ST_START;
    return r;
}

ms_acclog *ms_acclog_open_stream(FILE *fp, const char *name, unsigned flags, ms_err *e)
{
    ms_acclog *r = new_reader(name, flags, e);
    if (!r)
        return NULL;
    r->fp = fp;
    r->block = malloc(BLOCK);
    if (!r->block) {
        ms_acclog_close(r);
        ms_err_oom(e);
        return NULL;
    }
    return r;
}

ms_acclog *ms_acclog_open(const char *path, unsigned flags, ms_err *e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open", path);
        return NULL;
    }
    ms_acclog *r = ms_acclog_open_stream(fp, path, flags, e);
    if (!r) {
        fclose(fp);
        return NULL;
    }
    r->own_fp = 1;
    return r;
}

ms_acclog *ms_acclog_open_mem(const void *data, size_t len, const char *name, unsigned flags, ms_err *e)
{
    ms_acclog *r = new_reader(name, flags, e);
    if (!r)
        return NULL;
    r->buf = data;
    r->len = len;
    r->eof = 1;
    return r;
}

size_t ms_acclog_count(const ms_acclog *r)
{
    return r->count;
}

void ms_acclog_close(ms_acclog *r)
{
    if (!r)
        return;
    if (r->own_fp && r->fp)
        fclose(r->fp);
    free(r->block);
    free(r->name);
    ms_buf_free(&r->str);
    ms_buf_free(&r->data);
    ms_buf_free(&r->hex);
    ms_buf_free(&r->tok);
    free(r);
}
