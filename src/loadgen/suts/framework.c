/* The reference-SUT framework: spec parsing ("name:k=v,..."), option helpers, the counting QSL
 * used by SUTs without a dataset, and a timer thread for sleep-based SUTs. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/progress.h"
#include "common/strutil.h"
#include "loadgen/suts/sut.h"

extern const lg_sut_type *const lg_sut_types[];

int64_t lg_sut_now_ns(void)
{
    return ms_now_ns();
}

static lg_sut_opt *find_opt(lg_sut_opts *o, const char *key)
{
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->v[i].key, key)) {
            o->v[i].used = 1;
            return &o->v[i];
        }
    return NULL;
}

int lg_sut_opt_duration(lg_sut_opts *o, const char *key, int64_t *ns, ms_err *e)
{
    lg_sut_opt *op = find_opt(o, key);
    if (!op)
        return 0;
    if (ms_parse_duration_ns(op->value, 0, ns) != 0) {
        ms_err_set(e, MS_EUSAGE, "--sut %s: option '%s=%s' is not a duration (expected e.g. 50us, 1ms, 0.5s)",
                   o->sut_name, key, op->value);
        return -1;
    }
    return 1;
}

/* Splits "A..B" (or a single "A", then hi = lo) and parses both ends with parse(). */
static int parse_range(const char *value, int (*parse)(const char *, void *), void *lo, void *hi,
                       size_t size)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", value);
    char *dots = strstr(buf, "..");
    if (!dots) {
        if (parse(buf, lo) != 0)
            return -1;
        memcpy(hi, lo, size);
        return 0;
    }
    *dots = '\0';
    return parse(buf, lo) != 0 || parse(dots + 2, hi) != 0 ? -1 : 0;
}

static int parse_dur(const char *s, void *out)
{
    return ms_parse_duration_ns(s, 0, out);
}

static int parse_u64(const char *s, void *out)
{
    return ms_parse_u64(s, out);
}

int lg_sut_opt_duration_range(lg_sut_opts *o, const char *key, int64_t *lo, int64_t *hi, ms_err *e)
{
    lg_sut_opt *op = find_opt(o, key);
    if (!op)
        return 0;
    if (parse_range(op->value, parse_dur, lo, hi, sizeof *lo) != 0 || *lo > *hi) {
        ms_err_set(e, MS_EUSAGE,
                   "--sut %s: option '%s=%s' is not a duration range (expected e.g. 1ms..3ms with low <= high)",
                   o->sut_name, key, op->value);
        return -1;
    }
    return 1;
}

int lg_sut_opt_u64(lg_sut_opts *o, const char *key, uint64_t min, uint64_t max, uint64_t *v, ms_err *e)
{
    lg_sut_opt *op = find_opt(o, key);
    if (!op)
        return 0;
    uint64_t x;
    if (ms_parse_u64(op->value, &x) != 0 || x < min || x > max) {
        ms_err_set(e, MS_EUSAGE, "--sut %s: option '%s=%s' must be an integer in [%llu, %llu]",
                   o->sut_name, key, op->value, (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    *v = x;
    return 1;
}

int lg_sut_opt_u64_range(lg_sut_opts *o, const char *key, uint64_t *lo, uint64_t *hi, ms_err *e)
{
    lg_sut_opt *op = find_opt(o, key);
    if (!op)
        return 0;
    if (parse_range(op->value, parse_u64, lo, hi, sizeof *lo) != 0 || *lo > *hi) {
        ms_err_set(e, MS_EUSAGE, "--sut %s: option '%s=%s' is not a range (expected e.g. 32..256 with low <= high)",
                   o->sut_name, key, op->value);
        return -1;
    }
    return 1;
}

int lg_sut_opt_double(lg_sut_opts *o, const char *key, double *v, ms_err *e)
{
    lg_sut_opt *op = find_opt(o, key);
    if (!op)
        return 0;
    if (ms_parse_double(op->value, v) != 0) {
        ms_err_set(e, MS_EUSAGE, "--sut %s: option '%s=%s' is not a number", o->sut_name, key, op->value);
        return -1;
    }
    return 1;
}

int lg_sut_opt_flag(lg_sut_opts *o, const char *key)
{
    lg_sut_opt *op = find_opt(o, key);
    return op && op->value[0] == '\0';
}

const char *lg_sut_opt_str(lg_sut_opts *o, const char *key)
{
    lg_sut_opt *op = find_opt(o, key);
    return op ? op->value : NULL;
}

int lg_sut_opts_check_unused(const lg_sut_opts *o, ms_err *e)
{
    for (size_t i = 0; i < o->n; i++)
        if (!o->v[i].used)
            return ms_err_set(e, MS_EUSAGE, "--sut %s: unknown option '%s' (see 'mlsubmit loadgen run --help')",
                              o->sut_name, o->v[i].key);
    return MS_OK;
}

static void opts_free(lg_sut_opts *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free(o->v[i].key);
        free(o->v[i].value);
    }
    free(o->v);
}

static int opts_parse(const char *text, lg_sut_opts *o, ms_err *e)
{
    if (!text || !*text)
        return MS_OK;
    char *copy = strdup(text);
    if (!copy)
        return ms_err_oom(e);
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (eq)
            *eq = '\0';
        if (!*tok) {
            free(copy);
            return ms_err_set(e, MS_EUSAGE, "--sut %s: empty option name in '%s'", o->sut_name, text);
        }
        for (size_t i = 0; i < o->n; i++)
            if (!strcmp(o->v[i].key, tok)) {
                ms_err_set(e, MS_EUSAGE, "--sut %s: option '%s' given twice", o->sut_name, tok);
                free(copy);
                return MS_EUSAGE;
            }
        lg_sut_opt *nv = realloc(o->v, (o->n + 1) * sizeof *nv);
        if (!nv) {
            free(copy);
            return ms_err_oom(e);
        }
        o->v = nv;
        o->v[o->n].key = strdup(tok);
        o->v[o->n].value = strdup(eq ? eq + 1 : "");
        o->v[o->n].used = 0;
        if (!o->v[o->n].key || !o->v[o->n].value) {
            free(o->v[o->n].key);
            free(o->v[o->n].value);
            free(copy);
            return ms_err_oom(e);
        }
        o->n++;
    }
    free(copy);
    return MS_OK;
}

/* ---- counting QSL ---------------------------------------------------------------------------- */

static const char *counting_qsl_name(void *ctx)
{
    return ((lg_sut_instance *)ctx)->qsl_name;
}

static int counting_qsl_io(void *ctx, const lg_sample_index *idx, size_t n)
{
    (void)ctx;
    (void)idx;
    (void)n;
    return 0;
}

/* ---- create / destroy ------------------------------------------------------------------------ */

lg_sut_instance *lg_sut_create(const char *spec, const lg_sut_env *env, ms_err *e)
{
    char name[64];
    const char *colon = strchr(spec, ':');
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (nl == 0 || nl >= sizeof name) {
        ms_err_set(e, MS_EUSAGE, "--sut '%s': expected NAME[:option=value,...]", spec);
        return NULL;
    }
    memcpy(name, spec, nl);
    name[nl] = '\0';
    const lg_sut_type *type = NULL;
    for (size_t i = 0; lg_sut_types[i]; i++) {
        /* ids use '_' where names use '-' (cheat_cache -> cheat-cache) */
        char id[64];
        snprintf(id, sizeof id, "%s", lg_sut_types[i]->name);
        for (char *p = id; *p; p++)
            if (*p == '_')
                *p = '-';
        if (!strcmp(id, name) || !strcmp(lg_sut_types[i]->name, name))
            type = lg_sut_types[i];
    }
    if (!type) {
        ms_buf b = MS_BUF_INIT;
        for (size_t i = 0; lg_sut_types[i]; i++)
            ms_buf_printf(&b, "%s%s", i ? ", " : "", lg_sut_types[i]->name);
        ms_err_set(e, MS_EUSAGE, "--sut: unknown SUT '%s' (available: %s)", name, b.data ? b.data : "none");
        ms_buf_free(&b);
        return NULL;
    }
    lg_sut_opts opts = {name, NULL, 0};
    if (opts_parse(colon ? colon + 1 : "", &opts, e) != MS_OK) {
        opts_free(&opts);
        return NULL;
    }
    lg_sut_instance *si = calloc(1, sizeof *si);
    if (!si) {
        opts_free(&opts);
        ms_err_oom(e);
        return NULL;
    }
    int rc = type->create(si, &opts, env, e);
    if (rc == MS_OK)
        rc = lg_sut_opts_check_unused(&opts, e);
    opts_free(&opts);
    if (rc != MS_OK) {
        lg_sut_destroy(si);
        return NULL;
    }
    if (!si->has_qsl) {
        if (!env || env->total_sample_count == 0) {
            ms_err_set(e, MS_EUSAGE, "--sut %s needs --total-samples N (its QSL has no dataset of its own)", name);
            lg_sut_destroy(si);
            return NULL;
        }
        snprintf(si->qsl_name, sizeof si->qsl_name, "QSL");
        si->qsl.ctx = si;
        si->qsl.name = counting_qsl_name;
        si->qsl.total_sample_count = env->total_sample_count;
        si->qsl.performance_sample_count =
            env->performance_sample_count ? env->performance_sample_count : env->total_sample_count;
        si->qsl.load_samples = counting_qsl_io;
        si->qsl.unload_samples = counting_qsl_io;
        si->has_qsl = 1;
    }
    return si;
}

void lg_sut_destroy(lg_sut_instance *si)
{
    if (!si)
        return;
    if (si->destroy)
        si->destroy(si->priv);
    free(si);
}

void lg_sut_instance_on_fatal(lg_sut_instance *si, void (*fn)(void *ctx, const char *msg), void *ctx)
{
    si->fatal = fn;
    si->fatal_ctx = ctx;
}

void lg_sut_flush_none(void *ctx)
{
    (void)ctx;
}

int lg_sut_fatal(lg_sut_instance *si, const char *msg)
{
    if (!si->fatal)
        return -1;
    si->fatal(si->fatal_ctx, msg);
    return 0;
}

const lg_sut *lg_sut_instance_sut(lg_sut_instance *si)
{
    return &si->sut;
}

const lg_qsl *lg_sut_instance_qsl(lg_sut_instance *si)
{
    return &si->qsl;
}

void lg_sut_list(FILE *out)
{
    for (size_t i = 0; lg_sut_types[i]; i++) {
        char id[64];
        snprintf(id, sizeof id, "%s", lg_sut_types[i]->name);
        for (char *p = id; *p; p++)
            if (*p == '_')
                *p = '-';
        fprintf(out, "  %-12s %s\n", id, lg_sut_types[i]->summary);
        if (lg_sut_types[i]->options_help && *lg_sut_types[i]->options_help)
            fprintf(out, "%s", lg_sut_types[i]->options_help);
    }
}

/* ---- timer thread ------------------------------------------------------------------------------ */

typedef struct timer_ev {
    int64_t when;
    lg_test *test;
    lg_response_id id;
    uint32_t index;
    int first_token;
    int64_t n_tokens;
} timer_ev;

struct lg_sut_timer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    timer_ev *heap;
    size_t n, cap;
    int stop;
};

static void heap_push(lg_sut_timer *t, timer_ev ev)
{
    size_t i = t->n++;
    t->heap[i] = ev;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (t->heap[p].when <= t->heap[i].when)
            break;
        timer_ev tmp = t->heap[p];
        t->heap[p] = t->heap[i];
        t->heap[i] = tmp;
        i = p;
    }
}

static timer_ev heap_pop(lg_sut_timer *t)
{
    timer_ev top = t->heap[0];
    t->heap[0] = t->heap[--t->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < t->n && t->heap[l].when < t->heap[m].when)
            m = l;
        if (r < t->n && t->heap[r].when < t->heap[m].when)
            m = r;
        if (m == i)
            break;
        timer_ev tmp = t->heap[m];
        t->heap[m] = t->heap[i];
        t->heap[i] = tmp;
        i = m;
    }
    return top;
}

static void *timer_main(void *arg)
{
    lg_sut_timer *t = arg;
    enum { BATCH = 256 };
    timer_ev due[BATCH];
    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        if (t->n == 0) {
            pthread_cond_wait(&t->cv, &t->mu);
            continue;
        }
        int64_t now = lg_sut_now_ns();
        if (t->heap[0].when > now) {
            int64_t w = t->heap[0].when;
            struct timespec ts = {w / 1000000000, w % 1000000000};
            pthread_cond_timedwait(&t->cv, &t->mu, &ts);
            continue;
        }
        size_t nd = 0;
        while (t->n && t->heap[0].when <= now && nd < BATCH)
            due[nd++] = heap_pop(t);
        pthread_mutex_unlock(&t->mu);
        for (size_t i = 0; i < nd; i++) {
            uint32_t payload = due[i].index; /* little-endian on the supported targets */
            lg_response r = {due[i].id, (uintptr_t)&payload, sizeof payload, due[i].n_tokens};
            if (due[i].first_token)
                lg_first_token_complete(due[i].test, &r, 1);
            else
                lg_query_samples_complete(due[i].test, &r, 1);
        }
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

lg_sut_timer *lg_sut_timer_new(ms_err *e)
{
    lg_sut_timer *t = calloc(1, sizeof *t);
    if (!t) {
        ms_err_oom(e);
        return NULL;
    }
    pthread_mutex_init(&t->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&t->thread, NULL, timer_main, t) != 0) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        free(t);
        ms_err_set(e, MS_ERUNTIME, "cannot start the SUT timer thread");
        return NULL;
    }
    return t;
}

int lg_sut_timer_add(lg_sut_timer *t, lg_test *test, lg_response_id id, lg_sample_index index,
                     int64_t first_token_ns, int64_t deadline_ns, int64_t n_tokens)
{
    pthread_mutex_lock(&t->mu);
    size_t need = t->n + 2;
    if (MS_GROW(t->heap, t->cap, need, 1024)) {
        pthread_mutex_unlock(&t->mu);
        return -1;
    }
    int wake = t->n == 0 || deadline_ns < t->heap[0].when ||
               (first_token_ns > 0 && first_token_ns < t->heap[0].when);
    if (first_token_ns > 0)
        heap_push(t, (timer_ev){first_token_ns, test, id, (uint32_t)index, 1, n_tokens});
    heap_push(t, (timer_ev){deadline_ns, test, id, (uint32_t)index, 0, n_tokens});
    if (wake)
        pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return 0;
}

void lg_sut_timer_free(lg_sut_timer *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = 1;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t->heap);
    free(t);
}
