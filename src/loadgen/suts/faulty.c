/* --sut faulty:mode=...: a deliberately broken SUT for testing the LoadGen's fault handling.
 *   mode=never      never answers (use --timeout)
 *   mode=twice      completes every sample twice
 *   mode=unknown    also completes an id the LoadGen never issued
 *   mode=drop       never answers every Nth sample (every=N, default 10)
 *   mode=threads    answers each query from its own short-lived thread
 *   mode=crash      answers normally, then crashes the process (SIGSEGV) at the Nth sample
 * Not for measurements. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen/suts/sut.h"

enum fmode { F_NEVER, F_TWICE, F_UNKNOWN, F_DROP, F_THREADS, F_CRASH };

typedef struct faulty_sut {
    enum fmode mode;
    uint64_t every;
    uint64_t seen;
} faulty_sut;

static const char *faulty_name(void *ctx)
{
    (void)ctx;
    return "mlsubmit faulty SUT";
}

typedef struct job {
    lg_test *test;
    lg_query_sample *s;
    size_t n;
} job;

static void answer(lg_test *test, const lg_query_sample *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t payload = (uint32_t)s[i].index;
        lg_response r = {s[i].id, (uintptr_t)&payload, sizeof payload, 0};
        lg_query_samples_complete(test, &r, 1);
    }
}

static void *job_main(void *arg)
{
    job *j = arg;
    answer(j->test, j->s, j->n);
    free(j->s);
    free(j);
    return NULL;
}

static void faulty_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    faulty_sut *f = ctx;
    switch (f->mode) {
    case F_NEVER:
        return;
    case F_TWICE:
        answer(test, s, n);
        answer(test, s, n);
        return;
    case F_UNKNOWN: {
        answer(test, s, n);
        lg_query_sample bogus = {s[0].id + ((lg_response_id)1 << 40), s[0].index};
        answer(test, &bogus, 1);
        return;
    }
    case F_DROP:
        for (size_t i = 0; i < n; i++)
            if (++f->seen % f->every != 0)
                answer(test, &s[i], 1);
        return;
    case F_CRASH:
        for (size_t i = 0; i < n; i++) {
            if (++f->seen == f->every)
                raise(SIGSEGV);
            answer(test, &s[i], 1);
        }
        return;
    case F_THREADS: {
        job *j = malloc(sizeof *j);
        lg_query_sample *copy = malloc(n * sizeof *copy);
        pthread_t th;
        pthread_attr_t at;
        if (!j || !copy) {
            free(j);
            free(copy);
            answer(test, s, n);
            return;
        }
        memcpy(copy, s, n * sizeof *copy);
        *j = (job){test, copy, n};
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&th, &at, job_main, j) != 0)
            job_main(j);
        pthread_attr_destroy(&at);
        return;
    }
    }
}

static int faulty_create(lg_sut_instance *si, lg_sut_opts *o, const lg_sut_env *env, ms_err *e)
{
    (void)env;
    const char *m = lg_sut_opt_str(o, "mode");
    static const char *const names[] = {"never", "twice", "unknown", "drop", "threads", "crash"};
    int mode = -1;
    for (int i = 0; m && i < 6; i++)
        if (!strcmp(m, names[i]))
            mode = i;
    if (mode < 0)
        return ms_err_set(e, MS_EUSAGE, "--sut faulty needs mode=never|twice|unknown|drop|threads|crash");
    uint64_t every = 10;
    if (lg_sut_opt_u64(o, "every", 1, UINT64_MAX, &every, e) < 0)
        return MS_EUSAGE;
    faulty_sut *f = calloc(1, sizeof *f);
    if (!f)
        return ms_err_oom(e);
    f->mode = (enum fmode)mode;
    f->every = every;
    si->priv = f;
    si->destroy = free;
    si->sut = (lg_sut){f, faulty_name, faulty_issue, lg_sut_flush_none};
    return MS_OK;
}

LG_SUT_DEFINE(faulty, "a broken SUT for testing fault handling (not for measurements)",
              "               mode=never|twice|unknown|drop|threads|crash  every=N (drop, crash: the Nth sample)\n",
              faulty_create)
