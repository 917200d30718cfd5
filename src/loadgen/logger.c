#include "loadgen/logger.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/progress.h"
#include "common/strutil.h"

enum { F_SUMMARY, F_DETAIL, F_ACCURACY, F_TRACE, F_COUNT };

struct lg_logger {
    ms_afile f[F_COUNT];
    pthread_mutex_t mu;        /* detail + summary */
    pthread_mutex_t acc_mu;    /* accuracy log */
    int64_t origin_mono;
    double origin_wall_us;
    int pid;
    int trace;
    int copy_detail, copy_summary;
    void (*console)(void *ctx, const char *text, size_t len); /* lg_run_options.console */
    void *console_ctx;
    int token_mode, first_token_scenario;
    int text;                  /* text detail log of LoadGen 0.5/0.7 (lg_logger_set_text) */
    size_t n_errors, n_warnings;
    size_t n_acc_entries;
    char first_error[512];
    int io_error;
    int64_t last_flush;        /* detail/summary, under mu */
    int64_t last_acc_flush;    /* accuracy, under acc_mu */
    char *hexbuf;
    size_t hexcap;
};

void lg_fmt_g(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%g", v);
}

static void file_name(char *out, size_t n, const lg_log_settings *ls, const char *dt,
                      const char *kind, const char *ext)
{
    snprintf(out, n, "%s/%s%s%s%s%s.%s", ls->outdir ? ls->outdir : ".",
             ls->prefix ? ls->prefix : "mlperf_log_", ls->prefix_with_datetime ? dt : "",
             ls->prefix_with_datetime ? "_" : "", kind, ls->suffix ? ls->suffix : "", ext);
}

int lg_logger_open(lg_logger **out, const lg_log_settings *ls, const char *test_datetime,
                   int token_mode, int first_token_scenario, const lg_run_options *ro, ms_err *e)
{
    *out = NULL;
    lg_logger *L = calloc(1, sizeof *L);
    if (!L)
        return ms_err_oom(e);
    pthread_mutex_init(&L->mu, NULL);
    pthread_mutex_init(&L->acc_mu, NULL);
    static const char *const kinds[] = {"summary", "detail", "accuracy", "trace"};
    static const char *const exts[] = {"txt", "txt", "json", "json"};
    static const char *const what[] = {"summary file", "detailed log file", "accuracy log file",
                                       "trace file"};
    for (int i = 0; i < F_COUNT; i++) {
        char path[4096];
        file_name(path, sizeof path, ls, test_datetime, kinds[i], exts[i]);
        if (ms_afile_open(&L->f[i], path, e) != MS_OK) {
            ms_err_prefix(e, "LoadGen: Failed to open %s", what[i]);
            lg_logger_free(L);
            return MS_ERUNTIME;
        }
        setvbuf(L->f[i].fp, NULL, _IOFBF, 1 << 20);
        if (ro && ro->on_log_file)
            ro->on_log_file(ro->on_log_file_ctx, fileno(L->f[i].fp), L->f[i].path);
    }
    L->origin_mono = ms_now_ns();
    struct timeval tv;
    gettimeofday(&tv, NULL);
    L->origin_wall_us = (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
    L->pid = (int)getpid();
    L->trace = ls->enable_trace;
    L->console = ro ? ro->console : NULL;
    L->console_ctx = ro ? ro->console_ctx : NULL;
    L->copy_detail = ls->copy_detail_to_stdout && L->console;
    L->copy_summary = ls->copy_summary_to_stdout && L->console;
    L->token_mode = token_mode;
    L->first_token_scenario = first_token_scenario;
    fputs("[", L->f[F_ACCURACY].fp);
    if (L->trace)
        fputs("{\"traceEvents\":[\n", L->f[F_TRACE].fp);
    *out = L;
    return MS_OK;
}

int64_t lg_logger_now(const lg_logger *L)
{
    return ms_now_ns() - L->origin_mono;
}

int64_t lg_logger_origin_mono(const lg_logger *L)
{
    return L->origin_mono;
}

void lg_logger_set_text(lg_logger *L, int on)
{
    L->text = on;
}

static void detail_line(lg_logger *L, int64_t t, const char *key, const char *value, size_t vlen,
                        int is_error, int is_warning, int line)
{
    char head[512], tail[400];
    if (t < 0)
        t = 0;
    int hn, tn;
    if (L->text) {
        /* reference r0.5 logging.h, AsyncLog::LogDetail: "pid": P, "tid": T, "ts": Nns : then
         * ERROR / WARNING, then the message. The text log has no keys: a keyed entry is written
         * only when it is an error, a warning or a generic message (its message: the text the
         * reference's detail("...") wrote), or a text entry (key NULL, lg_detail_text) */
        if (key && !is_error && !is_warning && strcmp(key, "generic_message") != 0)
            return;
        hn = snprintf(head, sizeof head, "\"pid\": %d, \"tid\": %d, \"ts\": %" PRId64 "ns : %s",
                      L->pid, (int)gettid(), t, is_error ? "ERROR : " : is_warning ? "WARNING : " : "");
        if (key && vlen >= 2 && value[0] == '"' && value[vlen - 1] == '"') {
            value++;
            vlen -= 2;
        }
        tail[0] = '\n';
        tail[1] = '\0';
        tn = 1;
        goto write;
    }
    hn = snprintf(head, sizeof head, ":::MLLOG {\"key\": \"%s\", \"value\": ", key);
    tn = snprintf(tail, sizeof tail,
                      ", \"time_ms\": %" PRId64 ".%06" PRId64
                      ", \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", "
                      "\"metadata\": {\"is_error\": %s, \"is_warning\": %s, \"file\": "
                      "\"mlsubmit/loadgen\", \"line_no\": %d, \"pid\": %d, \"tid\": %d}}\n",
                      t / 1000000, t % 1000000, is_error ? "true" : "false",
                      is_warning ? "true" : "false", line, L->pid, (int)gettid());
write:
    pthread_mutex_lock(&L->mu);
    FILE *fp = L->f[F_DETAIL].fp;
    fwrite(head, 1, (size_t)hn, fp);
    fwrite(value, 1, vlen, fp);
    fwrite(tail, 1, (size_t)tn, fp);
    if (L->copy_detail) {
        L->console(L->console_ctx, head, (size_t)hn);
        L->console(L->console_ctx, value, vlen);
        L->console(L->console_ctx, tail, (size_t)tn);
    }
    if (is_error) {
        if (!L->n_errors) {
            size_t n = vlen < sizeof L->first_error ? vlen : sizeof L->first_error - 1;
            /* strip the quotes of a string value */
            if (n >= 2 && value[0] == '"') {
                memcpy(L->first_error, value + 1, n - 2);
                L->first_error[n - 2] = '\0';
            } else {
                memcpy(L->first_error, value, n);
                L->first_error[n] = '\0';
            }
        }
        L->n_errors++;
    }
    if (is_warning)
        L->n_warnings++;
    int64_t now = ms_now_ns();
    if (now - L->last_flush > 10000000) {
        fflush(fp);
        L->last_flush = now;
    }
    pthread_mutex_unlock(&L->mu);
}

static void detail_quoted(lg_logger *L, int64_t t, const char *key, const char *s, int err,
                          int warn, int line)
{
    size_t n = strlen(s);
    char small[512];
    char *buf = n + 3 <= sizeof small ? small : malloc(n + 3);
    if (!buf)
        return;
    buf[0] = '"';
    memcpy(buf + 1, s, n);
    buf[n + 1] = '"';
    detail_line(L, t, key, buf, n + 2, err, warn, line);
    if (buf != small)
        free(buf);
}

void lg_detail_str(lg_logger *L, int64_t t, const char *key, const char *value, int line)
{
    detail_quoted(L, t, key, value, 0, 0, line);
}

void lg_detail_i64(lg_logger *L, int64_t t, const char *key, int64_t value, int line)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%" PRId64, value);
    detail_line(L, t, key, b, (size_t)n, 0, 0, line);
}

void lg_detail_u64(lg_logger *L, int64_t t, const char *key, uint64_t value, int line)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%" PRIu64, value);
    detail_line(L, t, key, b, (size_t)n, 0, 0, line);
}

void lg_detail_double(lg_logger *L, int64_t t, const char *key, double value, int line)
{
    char b[64];
    lg_fmt_g(b, sizeof b, value);
    detail_line(L, t, key, b, strlen(b), 0, 0, line);
}

void lg_detail_bool(lg_logger *L, int64_t t, const char *key, int value, int line)
{
    detail_line(L, t, key, value ? "true" : "false", value ? 4 : 5, 0, 0, line);
}

void lg_detail_raw(lg_logger *L, int64_t t, const char *key, const char *json, size_t len, int line)
{
    detail_line(L, t, key, json, len, 0, 0, line);
}

void lg_detail_text(lg_logger *L, int64_t t, const char *msg, int is_error, int line)
{
    if (L->text)
        detail_line(L, t, NULL, msg, strlen(msg), is_error, 0, line);
}

int lg_logger_is_text(const lg_logger *L)
{
    return L->text;
}

void lg_detail_error(lg_logger *L, int64_t t, const char *key, const char *msg, int line)
{
    detail_quoted(L, t, key, msg, 1, 0, line);
}

void lg_detail_warning(lg_logger *L, int64_t t, const char *msg, int line)
{
    detail_quoted(L, t, "warning_generic_message", msg, 0, 1, line);
}

void lg_detail_flush(lg_logger *L)
{
    pthread_mutex_lock(&L->mu);
    fflush(L->f[F_DETAIL].fp);
    fflush(L->f[F_SUMMARY].fp);
    pthread_mutex_unlock(&L->mu);
    pthread_mutex_lock(&L->acc_mu);
    fflush(L->f[F_ACCURACY].fp);
    pthread_mutex_unlock(&L->acc_mu);
}

size_t lg_logger_errors(const lg_logger *L)
{
    return L->n_errors;
}

size_t lg_logger_warnings(const lg_logger *L)
{
    return L->n_warnings;
}

void lg_logger_first_error(lg_logger *L, char *buf, size_t n)
{
    pthread_mutex_lock(&L->mu);
    snprintf(buf, n, "%s", L->first_error);
    pthread_mutex_unlock(&L->mu);
}

void lg_summary_write(lg_logger *L, const char *text, size_t len)
{
    pthread_mutex_lock(&L->mu);
    fwrite(text, 1, len, L->f[F_SUMMARY].fp);
    if (L->copy_summary)
        L->console(L->console_ctx, text, len);
    pthread_mutex_unlock(&L->mu);
}

static int ensure_hex(lg_logger *L, size_t bytes)
{
    size_t need = 2 * bytes + 1;
    if (need <= L->hexcap)
        return 0;
    char *nb = realloc(L->hexbuf, need);
    if (!nb)
        return -1;
    L->hexbuf = nb;
    L->hexcap = need;
    return 0;
}

void lg_accuracy_entry(lg_logger *L, uint64_t seq_id, uint64_t qsl_idx, const void *data,
                       size_t size, const void *token_data, size_t token_size, int64_t n_tokens)
{
    pthread_mutex_lock(&L->acc_mu);
    FILE *fp = L->f[F_ACCURACY].fp;
    size_t big = size > token_size ? size : token_size;
    if (ensure_hex(L, big) != 0) {
        L->io_error = ENOMEM;
        pthread_mutex_unlock(&L->acc_mu);
        return;
    }
    fputs(L->n_acc_entries++ ? ",\n" : "\n", fp);
    fprintf(fp, "{ \"seq_id\" : %" PRIu64 ", \"qsl_idx\" : %" PRIu64 ", \"data\" : \"", seq_id, qsl_idx);
    ms_hex_upper(data, size, L->hexbuf);
    fwrite(L->hexbuf, 1, 2 * size, fp);
    fputc('"', fp);
    if (L->token_mode) {
        if (L->first_token_scenario) {
            ms_hex_upper(token_data ? token_data : "", token_data ? token_size : 0, L->hexbuf);
            fprintf(fp, ", \"token_data\" : \"%s\"", L->hexbuf);
        }
        fprintf(fp, ", \"token_count\" : %" PRId64, n_tokens);
    }
    fputs(" }", fp);
    int64_t now = ms_now_ns();
    if (now - L->last_acc_flush > 10000000) {
        fflush(fp);
        L->last_acc_flush = now;
    }
    pthread_mutex_unlock(&L->acc_mu);
}

int lg_trace_enabled(const lg_logger *L)
{
    return L->trace;
}

void lg_trace_complete(lg_logger *L, const char *name, int64_t t0, int64_t t1)
{
    if (!L->trace)
        return;
    pthread_mutex_lock(&L->mu);
    fprintf(L->f[F_TRACE].fp,
            "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{}},\n",
            name, L->pid, (int)gettid(), (double)t0 / 1000.0, (double)(t1 - t0) / 1000.0);
    pthread_mutex_unlock(&L->mu);
}

void lg_trace_sample(lg_logger *L, const lg_trace_sample_ev *ev)
{
    if (!L->trace)
        return;
    FILE *fp = L->f[F_TRACE].fp;
    fprintf(fp,
            "{\"name\":\"Sample\",\"cat\":\"default\",\"ph\":\"b\",\"pid\":%d,\"id\":%" PRIu64
            ",\"ts\":%.3f,\"args\":{\"sample_seq\":%" PRIu64 ",\"query_seq\":%" PRIu64
            ",\"sample_idx\":%" PRIu64 ",\"issue_start_ns\":%" PRId64 ",\"complete_ns\":%" PRId64 "}},\n",
            L->pid, ev->seq, (double)ev->scheduled / 1000.0, ev->seq, ev->query_seq, ev->idx,
            ev->issued - ev->scheduled, ev->completed - ev->scheduled);
    fprintf(fp,
            "{\"name\":\"Sample\",\"cat\":\"default\",\"ph\":\"e\", \"pid\":%d,\"id\":%" PRIu64
            ",\"ts\":%.3f},\n",
            L->pid, ev->seq, (double)ev->completed / 1000.0);
    /* per thread: where the sample was issued, its first token sent, and completed */
    const char *names[] = {"Issue", "FirstToken", "Complete"};
    int64_t ts[] = {ev->issued, ev->first_token, ev->completed};
    int32_t tids[] = {ev->issue_tid, ev->first_token_tid, ev->done_tid};
    for (int k = 0; k < 3; k++) {
        if (ts[k] == INT64_MIN || !tids[k])
            continue;
        fprintf(fp,
                "{\"name\":\"%s\",\"cat\":\"query\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,"
                "\"ts\":%.3f,\"args\":{\"sample_seq\":%" PRIu64 ",\"query_seq\":%" PRIu64 "}},\n",
                names[k], L->pid, (int)tids[k], (double)ts[k] / 1000.0, ev->seq, ev->query_seq);
    }
}

/* The summary's count sentence (reference logging.cc, AsyncLog::SetLogFiles): none is the word after
 * "No", one and many the words after the count. */
static void count_sentence(char *out, size_t n, size_t count, const char *none, const char *one, const char *many)
{
    if (count == 0)
        snprintf(out, n, "No %s encountered during test.", none);
    else
        snprintf(out, n, "%zu %s encountered. See detailed log.", count, count == 1 ? one : many);
}

static void trailer(lg_logger *L)
{
    FILE *fp = L->f[F_SUMMARY].fp;
    char w[128], er[128];
    count_sentence(w, sizeof w, L->n_warnings, "warnings", "warning", "warnings");
    count_sentence(er, sizeof er, L->n_errors, "errors", "ERROR", "ERRORS");
    char tail[sizeof w + sizeof er + 8];
    snprintf(tail, sizeof tail, "\n%s\n\n%s\n", w, er);
    fputs(tail, fp);
    if (L->copy_summary)
        L->console(L->console_ctx, tail, strlen(tail));
}

int lg_logger_close(lg_logger *L, ms_err *e)
{
    pthread_mutex_lock(&L->mu);
    trailer(L);
    pthread_mutex_unlock(&L->mu);
    fputs(L->n_acc_entries ? "\n]\n" : "\n]\n", L->f[F_ACCURACY].fp);
    if (L->trace)
        fprintf(L->f[F_TRACE].fp,
                "{\"name\":\"LastTrace\"}\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\n"
                "\"ts\":%.3f,\n\"version\":\"MLPerf LoadGen v1.0\"\n}\n}\n",
                L->origin_wall_us);
    /* Named in this order, the detail log last: a run's logs are read as a set keyed by its
     * detail log (the checker's run directories, the supervisor's incomplete-log marking), so a
     * process killed between two renames leaves either no detail log or every log complete. */
    static const int order[F_COUNT] = {F_ACCURACY, F_TRACE, F_SUMMARY, F_DETAIL};
    int rc = MS_OK;
    for (int k = 0; k < F_COUNT; k++) {
        int i = order[k];
        ms_err e2;
        if (L->f[i].fp && ms_afile_commit(&L->f[i], &e2) != MS_OK && rc == MS_OK) {
            rc = e2.code;
            if (e)
                *e = e2;
        }
    }
    if (rc == MS_OK && L->io_error)
        rc = ms_err_set(e, MS_ERUNTIME, "accuracy log: out of memory while formatting an entry");
    return rc;
}

void lg_logger_free(lg_logger *L)
{
    if (!L)
        return;
    for (int i = 0; i < F_COUNT; i++)
        if (L->f[i].fp || L->f[i].tmp || L->f[i].path)
            ms_afile_abort(&L->f[i]);
    pthread_mutex_destroy(&L->mu);
    pthread_mutex_destroy(&L->acc_mu);
    free(L->hexbuf);
    free(L);
}

/* ---- finishing the logs of a test whose process died (see lg_logs_finish_incomplete) ---- */

/* Offset just after the last occurrence of pat within the file's last 1 MiB, or -1. */
static off_t find_last(int fd, off_t size, const char *pat)
{
    size_t pl = strlen(pat);
    off_t start = size > (1 << 20) ? size - (1 << 20) : 0;
    size_t n = (size_t)(size - start);
    char *buf = malloc(n + 1);
    if (!buf)
        return -1;
    ssize_t r = pread(fd, buf, n, start);
    off_t found = -1;
    for (ssize_t i = r - (ssize_t)pl; i >= 0; i--)
        if (!memcmp(buf + i, pat, pl)) {
            found = start + i + (off_t)pl;
            break;
        }
    free(buf);
    return found;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

int lg_logs_finish_incomplete(int fd, const char *final_path, const char *reason, ms_err *e)
{
    const char *tmp = final_path; /* for messages */
    off_t size = lseek(fd, 0, SEEK_END);
    char tail[2048];
    int n = 0;
    const char *base = strrchr(final_path, '/');
    base = base ? base + 1 : final_path;
    if (strstr(base, "detail")) {
        /* drop a partial last line, then an error entry that marks the log incomplete */
        off_t cut = find_last(fd, size, "\n");
        if (cut < 0)
            cut = 0;
        char last[64] = "0.000000", first[8] = "";
        int text = pread(fd, first, 7, 0) == 7 && !memcmp(first, "\"pid\": ", 7); /* 0.5/0.7 */
        if (text)
            snprintf(last, sizeof last, "0");
        if (cut > 0) {
            char buf[4096];
            off_t from = cut > (off_t)sizeof buf ? cut - (off_t)sizeof buf : 0;
            ssize_t r = pread(fd, buf, (size_t)(cut - from), from);
            if (r > 0) {
                buf[r - 1] = '\0';
                const char *tm = NULL;
                const char *pat = text ? "\"ts\": " : "\"time_ms\": ";
                for (char *q = buf; (q = strstr(q, pat)); q++)
                    tm = q;
                if (tm)
                    sscanf(tm + strlen(pat), "%63[0-9.]", last);
            }
        }
        if (ftruncate(fd, cut) != 0)
            return ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot truncate", tmp);
        size = cut;
        if (text)
            n = snprintf(tail, sizeof tail,
                         "\"pid\": %d, \"tid\": %d, \"ts\": %sns : ERROR : Test incomplete: %s. "
                         "The log ends here.\n", (int)getpid(), (int)getpid(), last, reason);
        else
            n = snprintf(tail, sizeof tail,
                         ":::MLLOG {\"key\": \"error_runtime\", \"value\": \"Test incomplete: %s. The "
                         "log ends here.\", \"time_ms\": %s, \"namespace\": \"mlperf::logging\", "
                         "\"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": true, "
                         "\"is_warning\": false, \"file\": \"mlsubmit/loadgen\", \"line_no\": 0, "
                         "\"pid\": %d, \"tid\": %d}}\n",
                         reason, last, (int)getpid(), (int)getpid());
    } else if (strstr(base, "summary")) {
        n = snprintf(tail, sizeof tail, "\nTEST INCOMPLETE: %s.\n\n1 ERROR encountered. See detailed log.\n",
                     reason);
    } else if (ends_with(base, ".json") && strstr(base, "accuracy")) {
        /* keep the complete entries and close the array */
        off_t cut = find_last(fd, size, " }");
        if (cut < 0)
            cut = size > 0 ? 1 : 0; /* just "[" */
        if (ftruncate(fd, cut) != 0)
            return ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot truncate", tmp);
        size = cut;
        n = snprintf(tail, sizeof tail, "%s\n]\n", size == 0 ? "[" : "");
    } else if (size > 0) {
        /* trace: keep whole events and close the document */
        off_t cut = find_last(fd, size, "},\n");
        if (cut < 0)
            cut = find_last(fd, size, "[\n");
        if (cut >= 0 && ftruncate(fd, cut) == 0)
            size = cut;
        n = snprintf(tail, sizeof tail, "{\"name\":\"LastTrace\"}\n],\n\"displayTimeUnit\":\"ns\"\n}\n");
    }
    if (n > 0 && pwrite(fd, tail, (size_t)n, size) != n)
        return ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot write", tmp);
    fsync(fd);
    return ms_link_fd_atomic(fd, final_path, e);
}
