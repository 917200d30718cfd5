/* Streaming reader for detail logs: reads the file in blocks, splits lines like Python's
 * text mode (\n, \r\n and \r), parses each :::MLLOG record with the shared parser
 * (ms_mllog_parse_line), and keeps only the first value of every key (values above
 * KEEP_VALUE_MAX bytes are recorded without their text: nothing the checker reads is that
 * large) and the texts of the first error records. Memory stays bounded by the longest line
 * (at most MAX_LINE bytes) whatever the size of the file. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checker/internal.h"
#include "common/fsutil.h"
#include "common/pyfmt.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

#define BLOCK (64 * 1024)
#define MAX_LINE (16u * 1024 * 1024)
#define KEEP_VALUE_MAX 4096
#define TEXT_BLOCK (16 * 1024) /* the size of a block of kept texts */
#define MAX_ERROR_TEXTS 20
#define ERROR_TEXT_MAX 2048

/* ck_dlog_line_stop (internal.h): one pass for the line end, the carriage return and the
 * ASCII test, 64 bytes per step (AVX-512BW, AVX2 or SSE2 as the level allows). */
#ifdef HAVE_AVX2_PATH
/* The 64-byte blocks of ck_dlog_line_stop with AVX2 (two 32-byte compares per kind); returns where
 * the generic code goes on (a block holding the stop, or the tail) with *h set when a high
 * byte was passed. */
__attribute__((target("avx2"))) static const char *line_stop_avx2(const char *p, const char *end,
                                                                   int *h)
{
    const __m256i nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r');
    while (end - p >= 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
        __m256i sa = _mm256_or_si256(_mm256_cmpeq_epi8(a, nl), _mm256_cmpeq_epi8(a, cr));
        __m256i sb = _mm256_or_si256(_mm256_cmpeq_epi8(b, nl), _mm256_cmpeq_epi8(b, cr));
        if (!_mm256_testz_si256(_mm256_or_si256(sa, sb), _mm256_or_si256(sa, sb)))
            return p; /* the block with the stop: the generic code finds it */
        if (_mm256_movemask_epi8(_mm256_or_si256(a, b)))
            *h = 1;
        p += 64;
    }
    return p;
}

/* With AVX-512BW: 64 bytes a load, the compares straight into bit masks, the high bytes of the
 * blocks passed or'ed into one register (tested once at the stop), and the tail of fewer than
 * 64 bytes with a masked load (which touches no byte past end); the whole job. */
__attribute__((target("avx512bw"))) static const char *line_stop_avx512(const char *p,
                                                                       const char *end,
                                                                       int *high)
{
    const __m512i nl = _mm512_set1_epi8('\n'), cr = _mm512_set1_epi8('\r');
    __m512i passed = _mm512_setzero_si512(), v;
    uint64_t stop, valid = ~(uint64_t)0;
    for (;;) {
        size_t left = (size_t)(end - p);
        if (left >= 64) {
            v = _mm512_loadu_si512((const void *)p);
        } else {
            valid = ((uint64_t)1 << left) - 1u;
            v = _mm512_maskz_loadu_epi8(valid, (const void *)p);
        }
        stop = (_mm512_cmpeq_epi8_mask(v, nl) | _mm512_cmpeq_epi8_mask(v, cr)) & valid;
        if (stop || left <= 64)
            break;
        passed = _mm512_or_si512(passed, v);
        p += 64;
    }
    /* high bytes in the blocks passed, and in this one before the stop (all of it if none) */
    uint64_t before = stop ? (stop & -stop) - 1u : ~(uint64_t)0;
    if (_mm512_movepi8_mask(passed) || (_mm512_movepi8_mask(v) & before))
        *high = 1;
    return stop ? p + __builtin_ctzll(stop) : end;
}
#endif

const char *ck_dlog_line_stop(const char *p, const char *end, int *high, int simd)
{
    int h = 0;
#ifdef HAVE_AVX2_PATH
    if (simd >= MS_SIMD_AVX512 && end > p)
        return line_stop_avx512(p, end, high);
    if (end - p >= 128 && simd >= MS_SIMD_AVX2)
        p = line_stop_avx2(p, end, &h);
#endif
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    while (simd >= MS_SIMD_SSE2 && end - p >= 64) {
        uint64_t stop = 0, hi = 0;
#pragma GCC unroll 4
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
            stop |= (uint64_t)(unsigned)_mm_movemask_epi8(
                        _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)))
                    << (16 * k);
            hi |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << (16 * k);
        }
        if (stop) {
            unsigned at = (unsigned)__builtin_ctzll(stop);
            /* high bytes before the stop only */
            if (hi & ((at == 0) ? 0 : (~(uint64_t)0 >> (64 - at))))
                h = 1;
            *high |= h;
            return p + at;
        }
        if (hi)
            h = 1;
        p += 64;
    }
    while (simd >= MS_SIMD_SSE2 && end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned stop = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)));
        unsigned hi = (unsigned)_mm_movemask_epi8(v);
        if (stop) {
            unsigned at = (unsigned)__builtin_ctz(stop);
            if (hi & ((1u << at) - 1u))
                h = 1;
            *high |= h;
            return p + at;
        }
        if (hi)
            h = 1;
        p += 16;
    }
#endif
    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n' || c == '\r')
            break;
        if (c >= 0x80)
            h = 1;
    }
    *high |= h;
    return p;
}

static uint64_t key_hash(const char *k, size_t n)
{
    return ms_hash_bytes(k, n); /* every record's key is hashed: 8 bytes a step */
}

/* The slot of key k (n bytes) in the hash index: the one holding it, or the empty one where it
 * goes. Keys are compared as decoded bytes (a key lexeme without '\\' is its own text). */
static size_t *find_slot(const ck_dlog *d, const char *k, size_t n)
{
    size_t mask = d->nslot - 1, i = (size_t)key_hash(k, n) & mask;
    for (;; i = (i + 1) & mask) {
        size_t *s = &d->slot[i];
        if (!*s)
            return s;
        const ck_dval *v = &d->v[*s - 1];
        if (v->key_len == n && !memcmp(v->key, k, n))
            return s;
    }
}

static int grow_index(ck_dlog *d)
{
    size_t ns = d->nslot ? d->nslot * 2 : 256;
    size_t *slot = calloc(ns, sizeof *slot);
    if (!slot)
        return -1;
    free(d->slot);
    d->slot = slot;
    d->nslot = ns;
    for (size_t i = 0; i < d->n; i++)
        *find_slot(d, d->v[i].key, d->v[i].key_len) = i + 1;
    return 0;
}

/* n bytes kept until ck_dlog_free (from the newest text block, or a new one), NULL when out of
 * memory */
static char *keep_text(ck_dlog *d, const char *text, size_t n)
{
    ck_dblock *b = d->texts;
    if (!b || b->cap - b->used < n + 1) {
        size_t cap = n + 1 > TEXT_BLOCK ? n + 1 : TEXT_BLOCK;
        if (!(b = malloc(sizeof *b + cap)))
            return NULL;
        b->prev = d->texts;
        b->cap = cap;
        b->used = 0;
        d->texts = b;
    }
    char *t = b->data + b->used;
    memcpy(t, text, n);
    t[n] = '\0';
    b->used += n + 1;
    return t;
}

/* Records the value of a record whose key lexeme is key[0..key_len) (NULL: no "key", read as
 * "") unless the key was seen before: the first occurrence wins. */
static int add_value(ck_dlog *d, const ms_mllog_rec *rec, const char *key, size_t key_len)
{
    char *dec = NULL;
    const char *k = "";
    size_t kn = 0;
    /* the same key as the previous record (old LoadGens log runs of one key): already kept */
    if (key && d->last && key_len >= 2) {
        const ck_dval *lv = &d->v[d->last - 1];
        /* a lexeme with an escape decodes to something shorter, so one byte for byte the
         * previous key when that key holds no backslash holds none itself */
        if (lv->key_len == key_len - 2 && !lv->key_bslash && !memcmp(lv->key, key + 1, key_len - 2))
            return 0;
    }
    if (key) {
        if (memchr(key, '\\', key_len)) {
            dec = ms_json_decode_string(key, key_len, &kn);
            if (!dec)
                return -1;
            k = dec;
        } else {
            k = key + 1;
            kn = key_len - 2;
        }
    }
    if ((d->n + 1) * 2 > d->nslot && grow_index(d)) {
        free(dec);
        return -1;
    }
    size_t *slot = find_slot(d, k, kn);
    if (*slot) {
        d->last = *slot;
        free(dec);
        return 0;  /* first occurrence wins */
    }
    if (MS_GROW(d->v, d->cap, d->n + 1, 128)) {
        free(dec);
        return -1;
    }
    ck_dval *v = &d->v[d->n];
    memset(v, 0, sizeof *v);
    v->key = keep_text(d, k, kn);
    free(dec);
    if (!v->key)
        return -1;
    v->key_len = kn;
    v->key_bslash = memchr(v->key, '\\', kn) != NULL;
    v->kind = rec->kind;
    v->raw_len = rec->raw_len;
    v->line = rec->line_no;
    if (rec->raw_len <= KEEP_VALUE_MAX && !(v->raw = keep_text(d, rec->raw, rec->raw_len)))
        return -1;
    *slot = ++d->n;
    d->last = d->n;
    return 0;
}

static int add_error_text(ck_dlog *d, const ms_mllog_rec *rec)
{
    d->n_error_recs++;
    if (d->nerror_texts >= MAX_ERROR_TEXTS)
        return 0;
    if (!d->errors) {
        d->errors = calloc(MAX_ERROR_TEXTS, sizeof *d->errors);
        if (!d->errors)
            return -1;
    }
    ms_buf b = MS_BUF_INIT;
    size_t n = rec->raw_len > ERROR_TEXT_MAX ? ERROR_TEXT_MAX : rec->raw_len;
    int rc = rec->kind == MS_JV_STRING && n == rec->raw_len
                 ? ms_py_str_lexeme(&b, rec->kind, rec->raw, rec->raw_len)
                 : ms_buf_append(&b, rec->raw, n);
    if (rc || (!b.data && ms_buf_puts(&b, ""))) {
        ms_buf_free(&b);
        return -1;
    }
    d->errors[d->nerror_texts++] = ms_buf_steal(&b);
    return 0;
}

/* Lines longer than this have their value validated ahead */
#define PREVALUE_MIN 1024

/* ---- values seen before ------------------------------------------------------------------
 * The long values of a LoadGen's detail logs repeat from one log to the next: loadgen_file_sha1
 * (the digests of the LoadGen's sources, the same in every run of one build) and
 * loaded_qsl_set (the same set for every performance run of a model with the same seed and
 * sample count). Each worker thread keeps the last few long array or object values it
 * validated (ASCII, no line break: a line's bytes), by key; a record whose value starts with
 * the same bytes, followed by the ',' that ends it, has that value (a container ends at its
 * own closing bracket) and it is not scanned again. Justified thread state: the memo of the
 * thread between ck_dlog_memo_begin and ck_dlog_memo_end (ck_parallel's workers); none
 * elsewhere. */
#define VMEMO_SLOTS 8
#define VMEMO_MIN 1024           /* values at least this long are remembered */
#define VMEMO_MAX (1u << 20)     /* and at most this long */
#define VMEMO_KEY 64

typedef struct vslot {
    char key[VMEMO_KEY];
    size_t key_len;
    char *val;
    size_t len, cap;             /* len 0: empty */
    int kind;
    unsigned long used;          /* the clock when last stored or hit */
} vslot;

typedef struct vmemo {
    vslot s[VMEMO_SLOTS];
    unsigned long clock;
} vmemo;

static _Thread_local int tl_vmemo_on;
static _Thread_local vmemo *tl_vmemo;

void ck_dlog_memo_begin(void)
{
    tl_vmemo_on = 1;
}

void ck_dlog_memo_end(void)
{
    if (tl_vmemo)
        for (int i = 0; i < VMEMO_SLOTS; i++)
            free(tl_vmemo->s[i].val);
    free(tl_vmemo);
    tl_vmemo = NULL;
    tl_vmemo_on = 0;
}

/* The slot holding a value of key that starts the bytes [v, end) followed by the ',' that ends
 * it (a key may have several values remembered: an old LoadGen logs loaded_qsl_set once per
 * load, with the performance set in every run and other sets besides) */
static vslot *vmemo_find(vmemo *m, const char *key, size_t key_len, const char *v, const char *end)
{
    for (int i = 0; i < VMEMO_SLOTS; i++) {
        vslot *sl = &m->s[i];
        if (sl->len && sl->key_len == key_len && (size_t)(end - v) > sl->len && v[sl->len] == ',' &&
            !memcmp(sl->key, key, key_len) && !memcmp(v, sl->val, sl->len))
            return sl;
    }
    return NULL;
}

/* Remembers the validated value v (n bytes, a line's ASCII bytes) of key: best effort */
static void vmemo_store(const char *key, size_t key_len, const char *v, size_t n, int kind)
{
    if (!tl_vmemo_on || n < VMEMO_MIN || n > VMEMO_MAX || key_len > VMEMO_KEY)
        return;
    if (!tl_vmemo && !(tl_vmemo = calloc(1, sizeof *tl_vmemo)))
        return;
    vmemo *m = tl_vmemo;
    /* the least recently used slot (an empty one has used 0): values of the same key or of
     * other keys alike */
    vslot *sl = &m->s[0];
    for (int i = 1; i < VMEMO_SLOTS; i++)
        if (m->s[i].used < sl->used)
            sl = &m->s[i];
    if (n > sl->cap) {
        char *nv = realloc(sl->val, n);
        if (!nv) {
            sl->len = 0;
            return;
        }
        sl->val = nv;
        sl->cap = n;
    }
    memcpy(sl->val, v, n);
    memcpy(sl->key, key, key_len);
    sl->key_len = key_len;
    sl->len = n;
    sl->kind = kind;
    sl->used = ++m->clock;
}

/* The record at line (bytes up to end, past the line's end too): when its value is a long integer
 * list or object of plain strings, validates it (or its leading members) ahead and sets the hint
 * for the record's scan; returns where the line-end search starts (line itself otherwise).
 * *from_memo: the value was one seen before (vmemo). */
static const char *prevalue(const char *line, const char *end, ms_mllog_memo *memo, int simd,
                            int *from_memo)
{
    const char *key;
    size_t key_len;
    *from_memo = 0;
    const char *vs = ms_mllog_value_start(line, end, &key, &key_len);
    if (!vs || (*vs != '[' && *vs != '{'))
        return line;
    int kind;
    const char *resume = NULL, *q;
    vslot *sl = tl_vmemo ? vmemo_find(tl_vmemo, key, key_len, vs, end) : NULL;
    if (sl) {
        sl->used = ++tl_vmemo->clock;
        *from_memo = 1;
        kind = sl->kind;
        q = vs + sl->len;
    } else if (!(q = ms_mllog_prevalue(vs, end, simd, &kind, &resume))) {
        return line;
    }
    memo->hint_vs = vs;
    memo->hint_ve = resume ? NULL : q;
    memo->hint_resume = resume;
    memo->hint_kind = kind;
    return q;
}

/* remember: the line is a long ASCII line whose value was not one seen before (vmemo_store) */
static int handle_line(ck_dlog *d, const char *line, size_t len, size_t line_no,
                       ms_mllog_memo *memo, int simd, int remember)
{
    ms_mllog_rec rec;
    const char *key;
    size_t key_len;
    char msg[200];
    int r = ms_mllog_scan_line_simd(line, len, &rec, &key, &key_len, memo, simd, msg, sizeof msg);
    if (remember && r > 0 && key && key_len >= 2 && !memchr(key, '\\', key_len) &&
        (rec.kind == MS_JV_ARRAY || rec.kind == MS_JV_OBJECT))
        vmemo_store(key + 1, key_len - 2, rec.raw, rec.raw_len, rec.kind);
    if (line_no == 1)
        d->first_line_is_record = r != 0;
    if (r < 0) {
        if (!d->nbad++) {
            d->first_bad_line = line_no;
            snprintf(d->bad_msg, sizeof d->bad_msg, "%s", msg);
        }
        return 0;
    }
    if (r == 0)
        return 0;
    rec.line_no = line_no;
    if (rec.is_error && add_error_text(d, &rec))
        return -1;
    return add_value(d, &rec, key, key_len);
}

/* The whole regular file of fd in *out (NUL-terminated, *n bytes) when it has fewer than
 * MAX_LINE and at most keep_max bytes and does not grow while read: then no line can be over
 * long, and the lines are the same as streamed. Otherwise *out stays NULL and fd is rewound
 * (the caller streams it). 0, or an error code (a read error, out of memory; e set). */
static int read_whole(int fd, const char *path, size_t keep_max, char **out, size_t *n, ms_err *e)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (unsigned long long)st.st_size >= MAX_LINE ||
        (unsigned long long)st.st_size > keep_max)
        return MS_OK;
    size_t want = (size_t)st.st_size + 1, got = 0; /* one byte more: whether it grew */
    char *buf = malloc(want + 1);
    if (!buf)
        return ms_err_oom(e);
    while (got < want) {
        size_t r;
        int rc = ms_read_some(fd, buf + got, want - got, &r, path, e);
        if (rc) {
            free(buf);
            return rc;
        }
        if (r == 0)
            break;
        got += r;
    }
    if (got == want) {
        free(buf);
        return lseek(fd, 0, SEEK_SET) == 0 ? MS_OK
                                            : ms_err_errno(e, MS_EINPUT, errno, "%s: read error", path);
    }
    buf[got] = '\0';
    *out = buf;
    *n = got;
    return MS_OK;
}

int ck_dlog_load(ck_dlog *d, const char *path, ms_err *e)
{
    return ck_dlog_load_keep(d, path, 0, NULL, NULL, e);
}

int ck_dlog_load_keep(ck_dlog *d, const char *path, size_t keep_max, char **kept, size_t *kept_len,
                      ms_err *e)
{
    memset(d, 0, sizeof *d);
    if (kept) {
        *kept = NULL;
        *kept_len = 0;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open", path);
    size_t cap = BLOCK, len = 0;
    char *buf = NULL;
    int eof = 0, whole = 0;
    if (kept) {
        int rc = read_whole(fd, path, keep_max, &buf, &len, e);
        if (rc) {
            close(fd);
            return rc;
        }
        if (buf) {
            whole = 1;
            cap = len + 1;
            eof = 1;
        }
    }
    if (!buf && !(buf = malloc(cap))) {
        close(fd);
        return ms_err_oom(e);
    }
    size_t line_no = 0;
    ms_mllog_memo memo;
    memset(&memo, 0, sizeof memo);
    int simd = ms_simd_level();
    int skipping = 0, skip_is_record = 0, pending_cr = 0;
    while (!eof || len) {
        if (!eof && len < cap) {
            ssize_t r = read(fd, buf + len, cap - len);
            if (r < 0) {
                if (errno == EINTR)
                    continue;
                int er = errno;
                free(buf);
                close(fd);
                ck_dlog_free(d);
                return ms_err_errno(e, MS_EINPUT, er, "%s: read error", path);
            }
            if (r == 0)
                eof = 1;
            len += (size_t)r;
        }
        /* process the complete lines in buf[0..len) */
        size_t start = 0;
        for (;;) {
            if (pending_cr && start < len) {
                /* a \r ended the previous line; a directly following \n belongs to it */
                if (buf[start] == '\n')
                    start++;
                pending_cr = 0;
            }
            /* the end of the line (\n or \r) and whether it holds non-ASCII bytes; a long value
             * validated ahead (ms_mllog_prevalue: no line break, no such byte) is not looked
             * at twice: the search for the line end starts after it */
            int high = 0, from_memo = 0, long_line = 0;
            memo.hint_vs = NULL;
            const char *lim = len - start > PREVALUE_MIN ? buf + start + PREVALUE_MIN : buf + len;
            const char *stop = ck_dlog_line_stop(buf + start, lim, &high, simd);
            if (stop == lim && lim < buf + len) {
                /* a long line: on after its value when that was validated ahead */
                const char *from = skipping ? lim
                                            : prevalue(buf + start, buf + len, &memo, simd, &from_memo);
                stop = ck_dlog_line_stop(from > lim ? from : lim, buf + len, &high, simd);
                long_line = 1;
            }
            size_t i = (size_t)(stop - buf);
            if (i == len && !eof)
                break;
            if (i == len && start == len)
                break;
            size_t ll = i - start;
            const char *line = buf + start;
            if (skipping) {
                /* tail of an over-long line */
                skipping = 0;
                line_no++;
                if (skip_is_record && !d->nbad++) {
                    d->first_bad_line = line_no;
                    snprintf(d->bad_msg, sizeof d->bad_msg, "record longer than %u bytes",
                             MAX_LINE);
                }
            } else {
                line_no++;
                if (high && !d->bad_utf8) {
                    size_t off;
                    if (!ms_utf8_valid(line, ll, &off)) {
                        d->bad_utf8 = 1;
                        d->bad_utf8_line = line_no;
                    }
                }
                if (handle_line(d, line, ll, line_no, &memo, simd,
                                long_line && !high && !from_memo)) {
                    free(buf);
                    close(fd);
                    ck_dlog_free(d);
                    return ms_err_oom(e);
                }
            }
            if (i < len) {
                if (buf[i] == '\r') {
                    if (i + 1 < len) {
                        if (buf[i + 1] == '\n')
                            i++;
                    } else {
                        pending_cr = 1;
                    }
                }
                start = i + 1;
            } else {
                start = len;
            }
        }
        if (start > 0) {
            memmove(buf, buf + start, len - start);
            len -= start;
        } else if (len == cap && !eof) {
            /* a line longer than the buffer */
            if (cap >= MAX_LINE || skipping) {
                /* give up on this line: remember whether it was a record, drop its bytes */
                if (!skipping) {
                    skip_is_record = len >= 8 && !memcmp(buf, ":::MLLOG", 8);
                    skipping = 1;
                }
                len = 0;
            } else {
                size_t nc = cap * 2 > MAX_LINE ? MAX_LINE : cap * 2;
                char *nb = realloc(buf, nc);
                if (!nb) {
                    free(buf);
                    close(fd);
                    ck_dlog_free(d);
                    return ms_err_oom(e);
                }
                buf = nb;
                cap = nc;
            }
        }
        if (eof && len == 0)
            break;
    }
    if (skipping) {
        line_no++;
        if (skip_is_record && !d->nbad++) {
            d->first_bad_line = line_no;
            snprintf(d->bad_msg, sizeof d->bad_msg, "record longer than %u bytes", MAX_LINE);
        }
    }
    if (whole) {
        /* the lines were read in place (only the empty tail was moved): the file's bytes */
        *kept = buf;
        *kept_len = cap - 1;
    } else {
        free(buf);
    }
    close(fd);
    return MS_OK;
}

void ck_dlog_free(ck_dlog *d)
{
    for (ck_dblock *b = d->texts, *prev; b; b = prev) {
        prev = b->prev;
        free(b);
    }
    free(d->v);
    free(d->slot);
    for (size_t i = 0; i < d->nerror_texts; i++)
        free(d->errors[i]);
    free(d->errors);
    memset(d, 0, sizeof *d);
}

const ck_dval *ck_dlog_get(const ck_dlog *d, const char *key)
{
    if (!d->nslot)
        return NULL;
    size_t s = *find_slot(d, key, strlen(key));
    return s ? &d->v[s - 1] : NULL;
}

static ms_mllog_rec as_rec(const ck_dval *v)
{
    ms_mllog_rec r;
    memset(&r, 0, sizeof r);
    r.kind = v->kind;
    r.raw = v->raw;
    r.raw_len = v->raw_len;
    return r;
}

int ck_dlog_u64(const ck_dlog *d, const char *key, uint64_t *out)
{
    const ck_dval *v = ck_dlog_get(d, key);
    if (!v || !v->raw)
        return -1;
    ms_mllog_rec r = as_rec(v);
    return ms_mllog_rec_u64(&r, out);
}

int ck_dlog_i64(const ck_dlog *d, const char *key, int64_t *out)
{
    const ck_dval *v = ck_dlog_get(d, key);
    if (!v || !v->raw)
        return -1;
    ms_mllog_rec r = as_rec(v);
    return ms_mllog_rec_i64(&r, out);
}

int ck_dlog_num(const ck_dlog *d, const char *key, double *out)
{
    const ck_dval *v = ck_dlog_get(d, key);
    if (!v || !v->raw)
        return -1;
    if (v->kind == MS_JV_INT || v->kind == MS_JV_BIGINT || v->kind == MS_JV_REAL) {
        const char *s = v->raw;
        if (!strcmp(s, "NaN"))
            *out = NAN;
        else if (!strcmp(s, "Infinity"))
            *out = INFINITY;
        else if (!strcmp(s, "-Infinity"))
            *out = -INFINITY;
        else
            *out = strtod(s, NULL);
        return 0;
    }
    if (v->kind == MS_JV_BOOL) {
        *out = v->raw[0] == 't';
        return 0;
    }
    if (v->kind == MS_JV_STRING) {
        /* float("123.4") works in Python */
        size_t n;
        char *s = ms_json_decode_string(v->raw, v->raw_len, &n);
        if (!s)
            return -1;
        int rc = ms_py_float_parse(s, n, out);
        free(s);
        return rc;
    }
    return -1;
}

int ck_dlog_truthy(const ck_dlog *d, const char *key)
{
    const ck_dval *v = ck_dlog_get(d, key);
    if (!v)
        return 0;
    if (!v->raw)
        return 1;  /* a large value is non-empty */
    switch (v->kind) {
    case MS_JV_NULL:
        return 0;
    case MS_JV_BOOL:
        return v->raw[0] == 't';
    case MS_JV_INT:
    case MS_JV_BIGINT:
    case MS_JV_REAL: {
        if (!strcmp(v->raw, "NaN"))
            return 1;
        return strtod(v->raw, NULL) != 0.0;
    }
    case MS_JV_STRING:
        return v->raw_len > 2;
    case MS_JV_ARRAY:
    case MS_JV_OBJECT: {
        const char *p = v->raw + 1;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        return *p != ']' && *p != '}';
    }
    }
    return 0;
}

char *ck_dlog_str(const ck_dlog *d, const char *key)
{
    const ck_dval *v = ck_dlog_get(d, key);
    if (!v || !v->raw || v->kind != MS_JV_STRING)
        return NULL;
    return ms_json_decode_string(v->raw, v->raw_len, NULL);
}

char *ck_dlog_text(const ck_dlog *d, const char *key)
{
    const ck_dval *v = ck_dlog_get(d, key);
    ms_buf b = MS_BUF_INIT;
    int rc = !v ? ms_buf_puts(&b, "None")
             : !v->raw ? ms_buf_puts(&b, "<large value>")
                       : ms_py_str_lexeme(&b, v->kind, v->raw, v->raw_len);
    if (rc || (!b.data && ms_buf_puts(&b, ""))) {
        ms_buf_free(&b);
        return NULL;
    }
    return ms_buf_steal(&b);
}
