/* The digits reference benchmark: see digits.h for the dataset, split, model and formats. */
#include "loadgen/digits.h"

#include "common/lazy_archive.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/acclog.h"
#include "common/buf.h"
#include "rules/rules.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "loadgen/rng.h"

#define MAX_CSV_BYTES (64u << 20)   /* the real file is 260 kB uncompressed */

/* ---- dataset -------------------------------------------------------------------------------- */

void digits_dataset_free(digits_dataset *ds)
{
    if (!ds)
        return;
    free(ds->pixels);
    free(ds->labels);
    ds->pixels = NULL;
    ds->labels = NULL;
    ds->n = 0;
}

/* Parses one unsigned decimal field at *p (up to a ',' or line end); returns -1 if it is not
 * a plain integer. */
static long parse_field(const char **p, const char *end)
{
    const char *s = *p;
    long v = 0;
    int digits = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        if (v < 1000000)
            v = v * 10 + (*s - '0');
        s++;
        digits++;
    }
    *p = s;
    return digits ? v : -1;
}

static void field_text(const char *s, const char *end, char *out, size_t n)
{
    size_t k = 0;
    while (s < end && *s != ',' && *s != '\n' && *s != '\r' && k + 1 < n)
        out[k++] = *s++;
    out[k] = '\0';
}

int digits_parse_csv(const char *text, size_t len, const char *name, digits_dataset *ds, ms_err *e)
{
    memset(ds, 0, sizeof *ds);
    size_t cap = 0;
    const char *p = text, *end = text + len;
    size_t line = 0;
    while (p < end) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *lend = eol ? eol : end;
        if (lend > p && lend[-1] == '\r')
            lend--;
        if (lend == p) {
            /* an empty line is only allowed as the very end of the file */
            const char *next = eol ? eol + 1 : end;
            if (next < end) {
                digits_dataset_free(ds);
                return ms_err_set(e, MS_EINPUT, "%s:%zu: empty line (expected 65 comma-separated values)",
                                  name, line);
            }
            break;
        }
        if (ds->n == cap) {
            size_t ncap = cap ? cap * 2 : 2048;
            uint8_t(*np)[DIGITS_PIXELS] = realloc(ds->pixels, ncap * sizeof *np);
            if (!np) {
                digits_dataset_free(ds);
                return ms_err_oom(e);
            }
            ds->pixels = np;
            uint8_t *nl = realloc(ds->labels, ncap);
            if (!nl) {
                digits_dataset_free(ds);
                return ms_err_oom(e);
            }
            ds->labels = nl;
            cap = ncap;
        }
        const char *q = p;
        for (int f = 0; f < DIGITS_PIXELS + 1; f++) {
            const char *fs = q;
            long maxv = f < DIGITS_PIXELS ? 16 : 9;
            long v = parse_field(&q, lend);
            int sep_ok = f < DIGITS_PIXELS ? (q < lend && *q == ',') : (q == lend);
            const char *what = NULL;
            if (v >= 0 && v <= maxv && sep_ok) {
                if (f < DIGITS_PIXELS) {
                    ds->pixels[ds->n][f] = (uint8_t)v;
                    q++; /* the comma */
                } else {
                    ds->labels[ds->n] = (uint8_t)v;
                }
                continue;
            }
            if (v >= 0 && v <= maxv && f < DIGITS_PIXELS && q >= lend)
                what = "too few values";
            else if (v >= 0 && v <= maxv && f == DIGITS_PIXELS && *q == ',')
                what = "too many values";
            char got[32];
            field_text(fs, lend, got, sizeof got);
            digits_dataset_free(ds);
            if (what)
                return ms_err_set(e, MS_EINPUT,
                                  "%s:%zu: %s: expected 65 comma-separated values (64 pixels and a label)",
                                  name, line, what);
            if (fs >= lend)
                return ms_err_set(e, MS_EINPUT,
                                  "%s:%zu: %d values, expected 65 (64 pixels and a label)", name, line, f);
            return ms_err_set(e, MS_EINPUT, "%s:%zu: field %d (%s): expected an integer 0..%ld, got '%s'",
                              name, line, f + 1, f < DIGITS_PIXELS ? "pixel" : "label", maxv, got);
        }
        ds->n++;
        p = eol ? eol + 1 : end;
    }
    if (ds->n == 0) {
        digits_dataset_free(ds);
        return ms_err_set(e, MS_EINPUT, "%s: no rows", name);
    }
    return MS_OK;
}

int digits_load_csv(const char *path, digits_dataset *ds, ms_err *e)
{
    memset(ds, 0, sizeof *ds);
    int lrc = ms_lazy_archive_load("the digits dataset (a .csv.gz)", e);
    if (lrc != MS_OK)
        return lrc;
    struct archive *a = archive_read_new();
    if (!a)
        return ms_err_oom(e);
    archive_read_support_filter_gzip(a);
    archive_read_support_format_raw(a);
    ms_buf b = MS_BUF_INIT;
    int rc = MS_OK;
    struct archive_entry *ent;
    if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
        rc = ms_err_set(e, MS_EINPUT, "%s: cannot open: %s", path, archive_error_string(a));
        goto out;
    }
    if (archive_read_next_header(a, &ent) != ARCHIVE_OK) {
        rc = ms_err_set(e, MS_EINPUT, "%s: cannot read: %s", path, archive_error_string(a));
        goto out;
    }
    for (;;) {
        if (ms_buf_reserve(&b, 65536) != 0) {
            rc = ms_err_oom(e);
            goto out;
        }
        la_ssize_t r = archive_read_data(a, b.data + b.len, 65536);
        if (r < 0) {
            rc = ms_err_set(e, MS_EINPUT, "%s: cannot decompress: %s", path, archive_error_string(a));
            goto out;
        }
        if (r == 0)
            break;
        b.len += (size_t)r;
        if (b.len > MAX_CSV_BYTES) {
            rc = ms_err_set(e, MS_EINPUT, "%s: more than %u bytes once decompressed; not the digits CSV",
                            path, MAX_CSV_BYTES);
            goto out;
        }
    }
    rc = digits_parse_csv(b.data ? b.data : "", b.len, path, ds, e);
out:
    archive_read_free(a);
    ms_buf_free(&b);
    return rc;
}

char *digits_find_dir(const char *given, ms_err *e)
{
    return ru_dataset_dir(given, "digits", DIGITS_CSV_NAME, e);
}

int digits_load_dir(const char *dir, digits_dataset *ds, ms_err *e)
{
    memset(ds, 0, sizeof *ds);
    char *path = ms_path_join(dir, DIGITS_CSV_NAME);
    if (!path)
        return ms_err_oom(e);
    char hex[MS_HASH_HEX_MAX];
    int rc;
    if (!ms_is_regular_file(path)) {
        rc = ms_err_set(e, MS_EINPUT, "%s: missing (run 'make data' to fetch the digits dataset)", path);
    } else if ((rc = ms_hash_file("sha256", path, hex, NULL, e)) != MS_OK) {
        /* error set */
    } else if (strcmp(hex, DIGITS_CSV_SHA256) != 0) {
        rc = ms_err_set(e, MS_EINPUT, "%s: SHA-256 %s does not match the manifest (%s); "
                        "re-fetch it with 'make data'", path, hex, DIGITS_CSV_SHA256);
    } else {
        rc = digits_load_csv(path, ds, e);
        if (rc == MS_OK && ds->n != DIGITS_ROWS) {
            rc = ms_err_set(e, MS_EINPUT, "%s: %zu rows, expected %d", path, ds->n, DIGITS_ROWS);
            digits_dataset_free(ds);
        }
    }
    free(path);
    return rc;
}

/* ---- split ---------------------------------------------------------------------------------- */

digits_split digits_split_of_row(size_t row)
{
    size_t m = row % 10;
    if (m <= 5)
        return DIGITS_SPLIT_TRAIN;
    if (m == 6)
        return DIGITS_SPLIT_CALIB;
    return DIGITS_SPLIT_VAL;
}

const char *digits_split_name(digits_split s)
{
    switch (s) {
    case DIGITS_SPLIT_TRAIN: return "training";
    case DIGITS_SPLIT_CALIB: return "calibration";
    case DIGITS_SPLIT_VAL: return "validation";
    }
    return "?";
}

size_t digits_split_rows(size_t n, digits_split s, size_t *rows)
{
    size_t k = 0;
    for (size_t r = 0; r < n; r++)
        if (digits_split_of_row(r) == s) {
            if (rows)
                rows[k] = r;
            k++;
        }
    return k;
}

/* ---- deterministic exp ---------------------------------------------------------------------- */

double digits_exp(double x)
{
    if (x != x)
        return x;
    if (x < -708.0)
        return 0.0;
    if (x > 709.0)
        return HUGE_VAL;
    /* x = k ln2 + r, |r| <= ln2/2; ln2 split in a high part with trailing zero bits (exact k*hi)
     * and a low part. */
    static const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10,
                        inv_ln2 = 1.44269504088896338700e+00;
    double kd = floor(x * inv_ln2 + 0.5);
    double r = (x - kd * ln2_hi) - kd * ln2_lo;
    /* Taylor series to degree 13: |r| <= 0.347, truncation error < 0.347^14/14! < 6e-18 */
    double p = 1.0 / 6227020800.0;
    static const double c[] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
                               1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,     1.0 / 120.0,
                               1.0 / 24.0,        1.0 / 6.0,        0.5,             1.0,
                               1.0};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        p = p * r + c[i];
    return ldexp(p, (int)kd);
}

/* ---- training ------------------------------------------------------------------------------- */

void digits_train_params_default(digits_train_params *p)
{
    p->seed = DIGITS_TRAIN_SEED;
    p->epochs = 60;
    p->batch = 16;
    p->learning_rate = 0.05;
    p->momentum = 0.9;
    p->weight_decay = 1e-4;
}

typedef struct train_state {
    double w1[DIGITS_PIXELS][DIGITS_HIDDEN], b1[DIGITS_HIDDEN];
    double w2[DIGITS_HIDDEN][DIGITS_CLASSES], b2[DIGITS_CLASSES];
} train_state;

static void forward_double(const train_state *m, const double x[DIGITS_PIXELS], double z1[DIGITS_HIDDEN],
                           double h[DIGITS_HIDDEN], double z2[DIGITS_CLASSES])
{
    for (int j = 0; j < DIGITS_HIDDEN; j++)
        z1[j] = m->b1[j];
    for (int i = 0; i < DIGITS_PIXELS; i++)
        for (int j = 0; j < DIGITS_HIDDEN; j++)
            z1[j] += m->w1[i][j] * x[i];
    for (int j = 0; j < DIGITS_HIDDEN; j++)
        h[j] = z1[j] > 0.0 ? z1[j] : 0.0;
    for (int k = 0; k < DIGITS_CLASSES; k++)
        z2[k] = m->b2[k];
    for (int j = 0; j < DIGITS_HIDDEN; j++)
        for (int k = 0; k < DIGITS_CLASSES; k++)
            z2[k] += m->w2[j][k] * h[j];
}

int digits_train(const digits_dataset *ds, const digits_train_params *p, digits_fp32 *out, ms_err *e)
{
    size_t ntrain = digits_split_rows(ds->n, DIGITS_SPLIT_TRAIN, NULL);
    if (ntrain == 0)
        return ms_err_set(e, MS_EINPUT, "digits: the training split is empty (%zu rows)", ds->n);
    if (p->epochs == 0 || p->batch == 0)
        return ms_err_set(e, MS_EUSAGE, "digits: epochs and batch must be positive");
    size_t *rows = malloc(ntrain * sizeof *rows);
    train_state *m = calloc(1, sizeof *m), *v = calloc(1, sizeof *v), *g = calloc(1, sizeof *g);
    lg_mt19937 *rng = malloc(sizeof *rng);
    if (!rows || !m || !v || !g || !rng) {
        free(rows), free(m), free(v), free(g), free(rng);
        return ms_err_oom(e);
    }
    digits_split_rows(ds->n, DIGITS_SPLIT_TRAIN, rows);
    lg_mt_seed(rng, p->seed);

    /* Glorot-uniform initialisation, biases zero. */
    double a1 = sqrt(6.0 / (DIGITS_PIXELS + DIGITS_HIDDEN)), a2 = sqrt(6.0 / (DIGITS_HIDDEN + DIGITS_CLASSES));
    for (int i = 0; i < DIGITS_PIXELS; i++)
        for (int j = 0; j < DIGITS_HIDDEN; j++)
            m->w1[i][j] = lg_uniform_real(rng, -a1, a1);
    for (int j = 0; j < DIGITS_HIDDEN; j++)
        for (int k = 0; k < DIGITS_CLASSES; k++)
            m->w2[j][k] = lg_uniform_real(rng, -a2, a2);

    double x[DIGITS_PIXELS], z1[DIGITS_HIDDEN], h[DIGITS_HIDDEN], z2[DIGITS_CLASSES], d1[DIGITS_HIDDEN],
        d2[DIGITS_CLASSES];
    for (unsigned ep = 0; ep < p->epochs; ep++) {
        lg_shuffle_size(rows, ntrain, rng);
        for (size_t start = 0; start < ntrain; start += p->batch) {
            size_t bend = start + p->batch < ntrain ? start + p->batch : ntrain;
            memset(g, 0, sizeof *g);
            for (size_t s = start; s < bend; s++) {
                size_t r = rows[s];
                for (int i = 0; i < DIGITS_PIXELS; i++)
                    x[i] = ds->pixels[r][i] / 16.0;
                forward_double(m, x, z1, h, z2);
                double mx = z2[0];
                for (int k = 1; k < DIGITS_CLASSES; k++)
                    mx = z2[k] > mx ? z2[k] : mx;
                double sum = 0.0;
                for (int k = 0; k < DIGITS_CLASSES; k++) {
                    d2[k] = digits_exp(z2[k] - mx);
                    sum += d2[k];
                }
                for (int k = 0; k < DIGITS_CLASSES; k++)
                    d2[k] = d2[k] / sum - (k == ds->labels[r] ? 1.0 : 0.0);
                for (int j = 0; j < DIGITS_HIDDEN; j++) {
                    double acc = 0.0;
                    for (int k = 0; k < DIGITS_CLASSES; k++) {
                        g->w2[j][k] += h[j] * d2[k];
                        acc += m->w2[j][k] * d2[k];
                    }
                    d1[j] = z1[j] > 0.0 ? acc : 0.0;
                }
                for (int k = 0; k < DIGITS_CLASSES; k++)
                    g->b2[k] += d2[k];
                for (int i = 0; i < DIGITS_PIXELS; i++)
                    for (int j = 0; j < DIGITS_HIDDEN; j++)
                        g->w1[i][j] += x[i] * d1[j];
                for (int j = 0; j < DIGITS_HIDDEN; j++)
                    g->b1[j] += d1[j];
            }
            double inv = 1.0 / (double)(bend - start), lr = p->learning_rate, mu = p->momentum,
                   wd = p->weight_decay;
#define STEP(W, V, G, decay)                                                 \
    do {                                                                     \
        V = mu * V - lr * (G * inv + (decay) * W);                           \
        W += V;                                                              \
    } while (0)
            for (int i = 0; i < DIGITS_PIXELS; i++)
                for (int j = 0; j < DIGITS_HIDDEN; j++)
                    STEP(m->w1[i][j], v->w1[i][j], g->w1[i][j], wd);
            for (int j = 0; j < DIGITS_HIDDEN; j++) {
                STEP(m->b1[j], v->b1[j], g->b1[j], 0.0);
                for (int k = 0; k < DIGITS_CLASSES; k++)
                    STEP(m->w2[j][k], v->w2[j][k], g->w2[j][k], wd);
            }
            for (int k = 0; k < DIGITS_CLASSES; k++)
                STEP(m->b2[k], v->b2[k], g->b2[k], 0.0);
#undef STEP
        }
    }
    for (int i = 0; i < DIGITS_PIXELS; i++)
        for (int j = 0; j < DIGITS_HIDDEN; j++)
            out->w1[i][j] = (float)m->w1[i][j];
    for (int j = 0; j < DIGITS_HIDDEN; j++) {
        out->b1[j] = (float)m->b1[j];
        for (int k = 0; k < DIGITS_CLASSES; k++)
            out->w2[j][k] = (float)m->w2[j][k];
    }
    for (int k = 0; k < DIGITS_CLASSES; k++)
        out->b2[k] = (float)m->b2[k];
    free(rows), free(m), free(v), free(g), free(rng);
    return MS_OK;
}

/* ---- model file ----------------------------------------------------------------------------- */

#define MODEL_MAGIC "MLSDIGW1"
#define MODEL_VERSION 1u
#define MODEL_FLOATS                                                                     \
    (DIGITS_PIXELS * DIGITS_HIDDEN + DIGITS_HIDDEN + DIGITS_HIDDEN * DIGITS_CLASSES + \
     DIGITS_CLASSES)
#define MODEL_HEADER (8 + 4 * 4)
#define MODEL_BYTES (MODEL_HEADER + 4 * MODEL_FLOATS + 32)

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16),
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned char *put_floats(unsigned char *p, const float *f, size_t n)
{
    for (size_t i = 0; i < n; i++, p += 4) {
        uint32_t u;
        memcpy(&u, &f[i], 4);
        put_u32(p, u);
    }
    return p;
}

static const unsigned char *get_floats(const unsigned char *p, float *f, size_t n)
{
    for (size_t i = 0; i < n; i++, p += 4) {
        uint32_t u = get_u32(p);
        memcpy(&f[i], &u, 4);
    }
    return p;
}

static int sha256_raw(const unsigned char *data, size_t len, unsigned char out[32], ms_err *e)
{
    char hex[MS_HASH_HEX_MAX];
    int rc = ms_hash_mem("sha256", data, len, hex, e);
    if (rc != MS_OK)
        return rc;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
    return MS_OK;
}

int digits_fp32_serialize(const digits_fp32 *m, unsigned char **out, size_t *len, ms_err *e)
{
    unsigned char *b = malloc(MODEL_BYTES);
    if (!b)
        return ms_err_oom(e);
    memcpy(b, MODEL_MAGIC, 8);
    put_u32(b + 8, MODEL_VERSION);
    put_u32(b + 12, DIGITS_PIXELS);
    put_u32(b + 16, DIGITS_HIDDEN);
    put_u32(b + 20, DIGITS_CLASSES);
    unsigned char *p = b + MODEL_HEADER;
    p = put_floats(p, &m->w1[0][0], DIGITS_PIXELS * DIGITS_HIDDEN);
    p = put_floats(p, m->b1, DIGITS_HIDDEN);
    p = put_floats(p, &m->w2[0][0], DIGITS_HIDDEN * DIGITS_CLASSES);
    p = put_floats(p, m->b2, DIGITS_CLASSES);
    int rc = sha256_raw(b, (size_t)(p - b), p, e);
    if (rc != MS_OK) {
        free(b);
        return rc;
    }
    *out = b;
    *len = MODEL_BYTES;
    return MS_OK;
}

int digits_fp32_save(const char *path, const digits_fp32 *m, ms_err *e)
{
    unsigned char *b;
    size_t n;
    int rc = digits_fp32_serialize(m, &b, &n, e);
    if (rc != MS_OK)
        return rc;
    rc = ms_write_file_atomic(path, b, n, e);
    free(b);
    return rc;
}

int digits_fp32_load(const char *path, digits_fp32 *m, ms_err *e)
{
    char *data;
    size_t len;
    if (!ms_path_exists(path))
        return ms_err_set(e, MS_EINPUT, "%s: missing (train it with 'make data' or 'mlsubmit digits train')",
                          path);
    int rc = ms_read_file(path, 1u << 20, &data, &len, e);
    if (rc != MS_OK)
        return rc;
    const unsigned char *b = (const unsigned char *)data;
    unsigned char digest[32];
    if (len < 8 || memcmp(b, MODEL_MAGIC, 8) != 0) {
        rc = ms_err_set(e, MS_EINPUT, "%s: not a digits model file (bad magic)", path);
    } else if (len != MODEL_BYTES || get_u32(b + 8) != MODEL_VERSION || get_u32(b + 12) != DIGITS_PIXELS ||
               get_u32(b + 16) != DIGITS_HIDDEN || get_u32(b + 20) != DIGITS_CLASSES) {
        rc = ms_err_set(e, MS_EINPUT,
                        "%s: model version %u with %u-%u-%u units (%zu bytes); this build expects version %u "
                        "with %d-%d-%d (%d bytes): retrain it with 'make data'",
                        path, len >= 24 ? get_u32(b + 8) : 0, len >= 24 ? get_u32(b + 12) : 0,
                        len >= 24 ? get_u32(b + 16) : 0, len >= 24 ? get_u32(b + 20) : 0, len,
                        MODEL_VERSION, DIGITS_PIXELS, DIGITS_HIDDEN, DIGITS_CLASSES, MODEL_BYTES);
    } else if ((rc = sha256_raw(b, MODEL_BYTES - 32, digest, e)) != MS_OK) {
        /* error set */
    } else if (memcmp(digest, b + MODEL_BYTES - 32, 32) != 0) {
        rc = ms_err_set(e, MS_EINPUT, "%s: checksum mismatch (corrupted model file)", path);
    } else {
        const unsigned char *p = b + MODEL_HEADER;
        p = get_floats(p, &m->w1[0][0], DIGITS_PIXELS * DIGITS_HIDDEN);
        p = get_floats(p, m->b1, DIGITS_HIDDEN);
        p = get_floats(p, &m->w2[0][0], DIGITS_HIDDEN * DIGITS_CLASSES);
        get_floats(p, m->b2, DIGITS_CLASSES);
    }
    free(data);
    return rc;
}

/* ---- FP32 inference ------------------------------------------------------------------------- */

void digits_logits_fp32(const digits_fp32 *m, const uint8_t px[DIGITS_PIXELS], float out[DIGITS_CLASSES])
{
    float h[DIGITS_HIDDEN];
    memcpy(h, m->b1, sizeof h);
    for (int i = 0; i < DIGITS_PIXELS; i++) {
        float x = (float)px[i] * 0.0625f; /* exact */
        for (int j = 0; j < DIGITS_HIDDEN; j++)
            h[j] += m->w1[i][j] * x;
    }
    for (int j = 0; j < DIGITS_HIDDEN; j++)
        h[j] = h[j] > 0.0f ? h[j] : 0.0f;
    memcpy(out, m->b2, sizeof m->b2);
    for (int j = 0; j < DIGITS_HIDDEN; j++)
        for (int k = 0; k < DIGITS_CLASSES; k++)
            out[k] += m->w2[j][k] * h[j];
}

int digits_predict_fp32(const digits_fp32 *m, const uint8_t px[DIGITS_PIXELS])
{
    float o[DIGITS_CLASSES];
    digits_logits_fp32(m, px, o);
    int best = 0;
    for (int k = 1; k < DIGITS_CLASSES; k++)
        if (o[k] > o[best])
            best = k;
    return best;
}

/* ---- INT8 ----------------------------------------------------------------------------------- */

static int8_t quant8(double v, double scale)
{
    double q = round(v / scale);
    return (int8_t)(q > 127.0 ? 127.0 : q < -127.0 ? -127.0 : q);
}

static int32_t quant32(double v, double scale)
{
    double q = round(v / scale);
    return (int32_t)(q > 2147483647.0 ? 2147483647.0 : q < -2147483647.0 ? -2147483647.0 : q);
}

int digits_quantize(const digits_fp32 *m, const digits_dataset *ds, digits_int8 *q, ms_err *e)
{
    memset(q, 0, sizeof *q);
    size_t ncal = digits_split_rows(ds->n, DIGITS_SPLIT_CALIB, NULL);
    if (ncal == 0)
        return ms_err_set(e, MS_EINPUT, "digits: the calibration split is empty (%zu rows)", ds->n);
    size_t *rows = malloc(ncal * sizeof *rows);
    if (!rows)
        return ms_err_oom(e);
    digits_split_rows(ds->n, DIGITS_SPLIT_CALIB, rows);

    /* Activation range of the hidden layer on the calibration split (FP32 model). */
    double hmax = 0.0;
    for (size_t c = 0; c < ncal; c++) {
        const uint8_t *px = ds->pixels[rows[c]];
        for (int j = 0; j < DIGITS_HIDDEN; j++) {
            float h = m->b1[j];
            for (int i = 0; i < DIGITS_PIXELS; i++)
                h += m->w1[i][j] * ((float)px[i] * 0.0625f);
            if (h > hmax)
                hmax = h;
        }
    }
    free(rows);
    if (!(hmax > 0.0))
        return ms_err_set(e, MS_EINPUT, "digits: the hidden layer is never active on the calibration split");
    const double sx = 1.0 / 16.0;
    double sh = hmax / 255.0;
    q->h_scale = (float)sh;

    for (int j = 0; j < DIGITS_HIDDEN; j++) {
        double wmax = 0.0;
        for (int i = 0; i < DIGITS_PIXELS; i++)
            wmax = fabs(m->w1[i][j]) > wmax ? fabs(m->w1[i][j]) : wmax;
        double sw = wmax > 0.0 ? wmax / 127.0 : 1.0;
        q->w1_scale[j] = (float)sw;
        for (int i = 0; i < DIGITS_PIXELS; i++) {
            q->w1[j][i] = quant8(m->w1[i][j], sw);
            q->w1x[j][i] = q->w1[j][i];
        }
        q->b1[j] = quant32(m->b1[j], sw * sx);
        /* requantisation multiplier M = sw * sx / sh = f * 2^ex, f in [0.5, 1) */
        int ex;
        double f = frexp(sw * sx / sh, &ex);
        int64_t mult = (int64_t)llround(f * 2147483648.0);
        if (mult == 2147483648LL) {
            mult /= 2;
            ex++;
        }
        int shift = 31 - ex;
        if (shift < 1 || shift > 62)
            return ms_err_set(e, MS_EINPUT, "digits: hidden unit %d has a requantisation scale out of range", j);
        q->mult[j] = (int32_t)mult;
        q->shift[j] = shift;
    }
    double w2max = 0.0;
    for (int j = 0; j < DIGITS_HIDDEN; j++)
        for (int k = 0; k < DIGITS_CLASSES; k++)
            w2max = fabs(m->w2[j][k]) > w2max ? fabs(m->w2[j][k]) : w2max;
    double sw2 = w2max > 0.0 ? w2max / 127.0 : 1.0;
    q->w2_scale = (float)sw2;
    for (int k = 0; k < DIGITS_CLASSES; k++) {
        for (int j = 0; j < DIGITS_HIDDEN; j++) {
            q->w2[k][j] = quant8(m->w2[j][k], sw2);
            q->w2x[k][j] = q->w2[k][j];
        }
        q->b2[k] = quant32(m->b2[k], sw2 * sh);
    }
    return MS_OK;
}

int digits_predict_int8(const digits_int8 *q, const uint8_t px[DIGITS_PIXELS])
{
    int16_t x[DIGITS_PIXELS], h[DIGITS_HIDDEN];
    for (int i = 0; i < DIGITS_PIXELS; i++)
        x[i] = px[i];
    for (int j = 0; j < DIGITS_HIDDEN; j++) {
        int32_t acc = 0;
        for (int i = 0; i < DIGITS_PIXELS; i++)
            acc += (int32_t)q->w1x[j][i] * x[i];
        acc += q->b1[j];
        int64_t v = 0;
        if (acc > 0) {
            v = ((int64_t)acc * q->mult[j] + ((int64_t)1 << (q->shift[j] - 1))) >> q->shift[j];
            v = v > 255 ? 255 : v;
        }
        h[j] = (int16_t)v;
    }
    int best = 0;
    int32_t bestv = 0;
    for (int k = 0; k < DIGITS_CLASSES; k++) {
        int32_t acc = 0;
        for (int j = 0; j < DIGITS_HIDDEN; j++)
            acc += (int32_t)q->w2x[k][j] * h[j];
        acc += q->b2[k];
        if (k == 0 || acc > bestv) {
            best = k;
            bestv = acc;
        }
    }
    return best;
}

/* ---- accuracy ------------------------------------------------------------------------------- */

static int pred_fp32(const void *m, const uint8_t *px)
{
    return digits_predict_fp32(m, px);
}

static int pred_int8(const void *m, const uint8_t *px)
{
    return digits_predict_int8(m, px);
}

static double split_accuracy(int (*pred)(const void *, const uint8_t *), const void *m, const digits_dataset *ds,
                             digits_split s, size_t *good, size_t *total)
{
    size_t g = 0, t = 0;
    for (size_t r = 0; r < ds->n; r++)
        if (digits_split_of_row(r) == s) {
            t++;
            g += pred(m, ds->pixels[r]) == ds->labels[r];
        }
    if (good)
        *good = g;
    if (total)
        *total = t;
    return t ? (double)g / (double)t : 0.0;
}

double digits_accuracy_fp32(const digits_fp32 *m, const digits_dataset *ds, digits_split s, size_t *good,
                            size_t *total)
{
    return split_accuracy(pred_fp32, m, ds, s, good, total);
}

double digits_accuracy_int8(const digits_int8 *q, const digits_dataset *ds, digits_split s, size_t *good,
                            size_t *total)
{
    return split_accuracy(pred_int8, q, ds, s, good, total);
}

void digits_encode_response(int cls, unsigned char out[DIGITS_RESPONSE_SIZE])
{
    put_u32(out, (uint32_t)(int32_t)cls);
}

int64_t digits_decode_response(const unsigned char *data, size_t size)
{
    if (size != DIGITS_RESPONSE_SIZE)
        return -1;
    return (int32_t)get_u32(data);
}

/* ---- scoring an accuracy log ---------------------------------------------------------------- */

int digits_score_log(const char *log_path, const digits_dataset *ds, digits_score *out, ms_err *e)
{
    memset(out, 0, sizeof *out);
    size_t nval = digits_split_rows(ds->n, DIGITS_SPLIT_VAL, NULL);
    size_t *rows = malloc((nval ? nval : 1) * sizeof *rows);
    unsigned char *seen = calloc(nval ? nval : 1, 1);
    if (!rows || !seen) {
        free(rows);
        free(seen);
        return ms_err_oom(e);
    }
    digits_split_rows(ds->n, DIGITS_SPLIT_VAL, rows);
    out->dataset = nval;
    int rc = MS_OK;
    ms_acclog *r = ms_acclog_open(log_path, 0, e);
    if (!r) {
        rc = e ? e->code : MS_EINPUT;
        goto done;
    }
    ms_acc_entry ent;
    int k;
    while ((k = ms_acclog_next(r, &ent, e)) == 1) {
        out->entries++;
        if (ent.qsl_idx >= nval) {
            rc = ms_err_set(e, MS_EINPUT, "%s:%zu: entry %zu: qsl_idx %llu is outside the digits QSL (%zu samples)",
                            log_path, ent.line, ent.index, (unsigned long long)ent.qsl_idx, nval);
            goto done;
        }
        if (ent.data_len != DIGITS_RESPONSE_SIZE) {
            rc = ms_err_set(e, MS_EINPUT,
                            "%s:%zu: entry %zu (qsl_idx %llu): response is %zu bytes; a digits response is %d "
                            "(the predicted class as a little-endian int32)",
                            log_path, ent.line, ent.index, (unsigned long long)ent.qsl_idx, ent.data_len,
                            DIGITS_RESPONSE_SIZE);
            goto done;
        }
        if (seen[ent.qsl_idx]) {
            out->duplicates++;
            continue;
        }
        seen[ent.qsl_idx] = 1;
        out->total++;
        int64_t cls = digits_decode_response(ent.data, ent.data_len);
        out->good += cls == ds->labels[rows[ent.qsl_idx]];
    }
    if (k < 0)
        rc = e ? e->code : MS_EINPUT;
done:
    ms_acclog_close(r);
    free(rows);
    free(seen);
    return rc;
}

/* ---- rules ---------------------------------------------------------------------------------- */

int digits_rules_load(const char *path, digits_rules *r, ms_err *e)
{
    memset(r, 0, sizeof *r);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return ms_err_set(e, MS_EINPUT, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    int rc = MS_OK;
    json_t *acc = json_object_get(root, "accuracy"), *dsj = json_object_get(root, "dataset");
    json_t *g = json_object_get(acc, "fp32_reference_good"), *t = json_object_get(acc, "fp32_reference_total"),
           *f = json_object_get(acc, "target_fraction"), *sha = json_object_get(dsj, "sha256");
    if (!json_is_integer(g) || !json_is_integer(t) || json_integer_value(g) < 0 || json_integer_value(t) <= 0 ||
        json_integer_value(g) > json_integer_value(t)) {
        rc = ms_err_set(e, MS_EINPUT,
                        "%s: accuracy.fp32_reference_good / fp32_reference_total must be integers with "
                        "0 <= good <= total, total > 0",
                        path);
    } else if (!json_is_number(f) || !(json_number_value(f) > 0.0 && json_number_value(f) <= 1.0)) {
        rc = ms_err_set(e, MS_EINPUT, "%s: accuracy.target_fraction must be a number in (0, 1]", path);
    } else if (!json_is_string(sha) || strlen(json_string_value(sha)) != 64) {
        rc = ms_err_set(e, MS_EINPUT, "%s: dataset.sha256 must be 64 hex digits", path);
    } else {
        r->ref_good = (size_t)json_integer_value(g);
        r->ref_total = (size_t)json_integer_value(t);
        r->target_fraction = json_number_value(f);
        memcpy(r->sha256, json_string_value(sha), 65);
    }
    json_decref(root);
    return rc;
}

double digits_rules_target(const digits_rules *r)
{
    return r->target_fraction * (double)r->ref_good / (double)r->ref_total;
}

int digits_rules_meets(const digits_rules *r, size_t good, size_t total)
{
    if (total == 0)
        return 0;
    /* good/total >= f * ref_good/ref_total, cross-multiplied (all products exact in double) */
    return (double)good * (double)r->ref_total >= r->target_fraction * (double)r->ref_good * (double)total;
}
