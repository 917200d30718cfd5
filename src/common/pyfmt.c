#include "common/pyfmt.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest decimal digits that round-trip: returns the digit string (no dot) in digits[] and
 * the decimal exponent decpt such that x = 0.d1d2... * 10^decpt. x finite and > 0. */
static void shortest_digits(double x, char *digits, int *decpt)
{
    char buf[64];
    int first = 1;
    if (x >= DBL_MIN) {
        /* A normal double: a decimal of at most 15 (DBL_DIG) significant digits that reads back
         * as x is what x rounds to at 15 digits (decimal -> double -> 15 digits is exact), so
         * the nearest 15-digit decimal, its trailing zeros dropped, is the shortest when it
         * reads back as x, and no decimal of 15 digits or fewer does otherwise: 16 and 17
         * digits are left (with their neighbours). One try instead of up to 15 (subnormals,
         * with fewer digits of precision, take every length). */
        snprintf(buf, sizeof buf, "%.*e", 14, x);
        if (strtod(buf, NULL) == x)
            goto digits_of_buf;
        first = 16;
    }
    for (int prec = first; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, x);
        int ok = strtod(buf, NULL) == x;
        if (!ok && prec > 1) {
            /* At a power-of-two boundary the nearest prec-digit decimal may miss while a
             * neighbour one unit away in the last digit round-trips (the rounding interval is
             * asymmetric there): try both neighbours before asking for another digit. */
            char *e = strchr(buf, 'e');
            int exp10 = atoi(e + 1);
            char d[24];
            int nd = 0;
            for (char *p = buf; p < e; p++)
                if (isdigit((unsigned char)*p))
                    d[nd++] = *p;
            for (int dir = -1; dir <= 1 && !ok; dir += 2) {
                char t[24];
                memcpy(t, d, (size_t)nd);
                int i = nd - 1, texp = exp10;
                if (dir > 0) {
                    while (i >= 0 && t[i] == '9')
                        t[i--] = '0';
                    if (i < 0) {
                        t[0] = '1';  /* 999 -> 1000: one digit longer, shift exponent */
                        texp++;
                    } else {
                        t[i]++;
                    }
                } else {
                    while (i >= 0 && t[i] == '0')
                        t[i--] = '9';
                    if (i < 0)
                        continue;
                    t[i]--;
                    if (t[0] == '0')
                        continue;  /* 1000 -> 0999: shorter, already tried at prec-1 */
                }
                char cand[48];
                snprintf(cand, sizeof cand, "%c.%.*se%d", t[0], nd - 1, t + 1, texp);
                if (strtod(cand, NULL) == x) {
                    snprintf(buf, sizeof buf, "%s", cand);
                    ok = 1;
                }
            }
        }
        if (ok)
            break;
    }
digits_of_buf:;
    /* buf is d[.ddd]e[+-]XX */
    char *e = strchr(buf, 'e');
    int exp10 = atoi(e + 1);
    int nd = 0;
    for (char *p = buf; p < e; p++)
        if (isdigit((unsigned char)*p))
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    *decpt = exp10 + 1;
}

void ms_py_float_repr(double x, char *out)
{
    if (isnan(x)) {
        strcpy(out, "nan");
        return;
    }
    if (isinf(x)) {
        strcpy(out, x < 0 ? "-inf" : "inf");
        return;
    }
    char *o = out;
    if (signbit(x)) {
        *o++ = '-';
        x = -x;
    }
    if (x == 0) {
        strcpy(o, "0.0");
        return;
    }
    char d[24];
    int decpt;
    shortest_digits(x, d, &decpt);
    int nd = (int)strlen(d);
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -decpt; i++)
                *o++ = '0';
            memcpy(o, d, (size_t)nd);
            o += nd;
        } else if (decpt >= nd) {
            memcpy(o, d, (size_t)nd);
            o += nd;
            for (int i = nd; i < decpt; i++)
                *o++ = '0';
            *o++ = '.';
            *o++ = '0';
        } else {
            memcpy(o, d, (size_t)decpt);
            o += decpt;
            *o++ = '.';
            memcpy(o, d + decpt, (size_t)(nd - decpt));
            o += nd - decpt;
        }
        *o = '\0';
    } else {
        *o++ = d[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)(nd - 1));
            o += nd - 1;
        }
        int e = decpt - 1;
        sprintf(o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
}

/* Decodes one UTF-8 sequence; returns its length (1 for an invalid byte, *cp = 0xFFFD + byte
 * marker via *bad). */
static size_t utf8_next(const unsigned char *s, size_t n, unsigned *cp, int *bad)
{
    *bad = 0;
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (c >= 0xF5)
        len = 0;
    if (!len || len > n) {
        *bad = 1;
        *cp = c;
        return 1;
    }
    unsigned v = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *bad = 1;
            *cp = c;
            return 1;
        }
        v = (v << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v < 0xE000)) {
        *bad = 1;
        *cp = c;
        return 1;
    }
    *cp = v;
    return len;
}

/* Python's str.isprintable(): false for control, format, private-use and separator characters
 * other than the ASCII space. Approximated with the ranges that matter in practice (no full
 * Unicode category table). */
static int py_printable(unsigned cp)
{
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0xA0) || cp == 0xAD)
        return 0;
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
        (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF)
        return 0;
    if ((cp >= 0xD800 && cp <= 0xF8FF) || (cp >= 0xFFF0 && cp <= 0xFFFB) || cp >= 0xF0000)
        return 0;
    return 1;
}

int ms_py_str_repr(ms_buf *b, const char *s, size_t n)
{
    int has_sq = memchr(s, '\'', n) != NULL, has_dq = memchr(s, '"', n) != NULL;
    char q = has_sq && !has_dq ? '"' : '\'';
    if (ms_buf_putc(b, q))
        return -1;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned cp;
        int bad;
        size_t l = utf8_next(p + i, n - i, &cp, &bad);
        int rc = 0;
        if (bad) {
            /* Python would hold a surrogate escape (\udcXX) for an undecodable byte */
            rc = ms_buf_printf(b, "\\udc%02x", cp);
        } else if (cp == (unsigned)q || cp == '\\') {
            rc = ms_buf_putc(b, '\\') || ms_buf_putc(b, (char)cp);
        } else if (cp == '\n') {
            rc = ms_buf_puts(b, "\\n");
        } else if (cp == '\r') {
            rc = ms_buf_puts(b, "\\r");
        } else if (cp == '\t') {
            rc = ms_buf_puts(b, "\\t");
        } else if (!py_printable(cp)) {
            if (cp < 0x100)
                rc = ms_buf_printf(b, "\\x%02x", cp);
            else if (cp < 0x10000)
                rc = ms_buf_printf(b, "\\u%04x", cp);
            else
                rc = ms_buf_printf(b, "\\U%08x", cp);
        } else {
            rc = ms_buf_append(b, p + i, l);
        }
        if (rc)
            return -1;
        i += l;
    }
    return ms_buf_putc(b, q);
}

static int py_repr_json(ms_buf *b, const json_t *v);

static int py_seq(ms_buf *b, const json_t *v)
{
    if (json_is_array(v)) {
        if (ms_buf_putc(b, '['))
            return -1;
        for (size_t i = 0; i < json_array_size(v); i++) {
            if ((i && ms_buf_puts(b, ", ")) || py_repr_json(b, json_array_get(v, i)))
                return -1;
        }
        return ms_buf_putc(b, ']');
    }
    if (ms_buf_putc(b, '{'))
        return -1;
    const char *k;
    json_t *val;
    int first = 1;
    json_object_foreach((json_t *)v, k, val) {
        if ((!first && ms_buf_puts(b, ", ")) || ms_py_str_repr(b, k, strlen(k)) ||
            ms_buf_puts(b, ": ") || py_repr_json(b, val))
            return -1;
        first = 0;
    }
    return ms_buf_putc(b, '}');
}

static int py_repr_json(ms_buf *b, const json_t *v)
{
    if (json_is_string(v))
        return ms_py_str_repr(b, json_string_value(v), json_string_length(v));
    return ms_py_str_json(b, v);
}

int ms_py_str_json(ms_buf *b, const json_t *v)
{
    char tmp[MS_PY_FLOAT_MAX];
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_STRING:
        return ms_buf_append(b, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        return ms_buf_printf(b, "%lld", (long long)json_integer_value(v));
    case JSON_REAL:
        ms_py_float_repr(json_real_value(v), tmp);
        return ms_buf_puts(b, tmp);
    case JSON_TRUE:
        return ms_buf_puts(b, "True");
    case JSON_FALSE:
        return ms_buf_puts(b, "False");
    case JSON_NULL:
        return ms_buf_puts(b, "None");
    case JSON_ARRAY:
    case JSON_OBJECT:
        return py_seq(b, v);
    }
    return -1;
}

int ms_py_str_lexeme(ms_buf *b, ms_jv_kind kind, const char *raw, size_t len)
{
    switch (kind) {
    case MS_JV_NULL:
        return ms_buf_puts(b, "None");
    case MS_JV_BOOL:
        return ms_buf_puts(b, len && raw[0] == 't' ? "True" : "False");
    case MS_JV_INT:
    case MS_JV_BIGINT: {
        /* Python prints ints without a leading '-' for -0 */
        if (len == 2 && raw[0] == '-' && raw[1] == '0')
            return ms_buf_putc(b, '0');
        return ms_buf_append(b, raw, len);
    }
    case MS_JV_REAL: {
        double d;
        char tmp[MS_PY_FLOAT_MAX];
        if (ms_py_float_parse(raw, len, &d) != 0) {
            if (len >= 3 && !memcmp(raw, "NaN", 3))
                d = NAN;
            else if (len >= 8 && !memcmp(raw, "Infinity", 8))
                d = INFINITY;
            else if (len >= 9 && !memcmp(raw, "-Infinity", 9))
                d = -INFINITY;
            else
                return ms_buf_append(b, raw, len);
        }
        ms_py_float_repr(d, tmp);
        return ms_buf_puts(b, tmp);
    }
    case MS_JV_STRING: {
        size_t n;
        char *s = ms_json_decode_string(raw, len, &n);
        if (!s)
            return -1;
        int rc = ms_buf_append(b, s, n);
        free(s);
        return rc;
    }
    case MS_JV_ARRAY:
    case MS_JV_OBJECT: {
        /* Python repr through Jansson (values beyond its range fall back to the raw text) */
        json_error_t je;
        json_t *v = json_loadb(raw, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        if (!v)
            return ms_buf_append(b, raw, len);
        int rc = ms_py_str_json(b, v);
        json_decref(v);
        return rc;
    }
    }
    return -1;
}

int ms_py_truthy(const json_t *v)
{
    if (!v)
        return 0;
    switch (json_typeof(v)) {
    case JSON_STRING:
        return json_string_length(v) > 0;
    case JSON_INTEGER:
        return json_integer_value(v) != 0;
    case JSON_REAL:
        return json_real_value(v) != 0.0;
    case JSON_TRUE:
        return 1;
    case JSON_FALSE:
    case JSON_NULL:
        return 0;
    case JSON_ARRAY:
        return json_array_size(v) > 0;
    case JSON_OBJECT:
        return json_object_size(v) > 0;
    }
    return 0;
}

static int py_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int ms_py_float_parse(const char *s, size_t n, double *out)
{
    while (n && py_space(*s)) {
        s++;
        n--;
    }
    while (n && py_space(s[n - 1]))
        n--;
    if (!n || n > 400)
        return -1;
    char buf[408];
    size_t m = 0;
    size_t i = 0;
    if (s[i] == '+' || s[i] == '-')
        buf[m++] = s[i++];
    /* inf / infinity / nan (case-insensitive) */
    size_t rest = n - i;
    if ((rest == 3 && !strncasecmp(s + i, "inf", 3)) ||
        (rest == 8 && !strncasecmp(s + i, "infinity", 8))) {
        *out = buf[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    if (rest == 3 && !strncasecmp(s + i, "nan", 3)) {
        *out = NAN;
        return 0;
    }
    int digits = 0, dot = 0, exp = 0, exp_digits = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            buf[m++] = c;
            if (exp)
                exp_digits++;
            else
                digits++;
        } else if (c == '_') {
            /* PEP 515: a single underscore between digits */
            if (i == 0 || i + 1 >= n || !isdigit((unsigned char)s[i - 1]) ||
                !isdigit((unsigned char)s[i + 1]))
                return -1;
        } else if (c == '.' && !dot && !exp) {
            dot = 1;
            buf[m++] = c;
        } else if ((c == 'e' || c == 'E') && !exp && digits) {
            exp = 1;
            buf[m++] = c;
            if (i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-'))
                buf[m++] = s[++i];
        } else {
            return -1;
        }
    }
    if (!digits || (exp && !exp_digits))
        return -1;
    buf[m] = '\0';
    *out = strtod(buf, NULL);
    return 0;
}
