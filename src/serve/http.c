/* mlsubmit serve: the HTTP side (libmicrohttpd, one internal polling thread, so the read-only
 * database handles are only ever used from that thread). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include "common/lazy_mhd.h"
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/strutil.h"
#include "serve/serve.h"

#define MAX_URL 2048          /* longer request targets: 414 */
#define MAX_PARAMS 32
#define CONN_MEMORY (32 * 1024) /* per-connection header memory: larger requests are refused */
#define MAX_TRACE_BYTES ((off_t)1 << 30)

typedef struct params {
    ms_serve_param p[MAX_PARAMS];
    size_t n;
    int overflow;
} params;

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    params *ps = cls;
    if (ps->n == MAX_PARAMS) {
        ps->overflow = 1;
        return MHD_NO;
    }
    ps->p[ps->n].name = key;
    ps->p[ps->n].value = value ? value : "";
    ps->n++;
    return MHD_YES;
}

static enum MHD_Result send_text(struct MHD_Connection *con, unsigned status, const char *type, const char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    enum MHD_Result ret = MHD_queue_response(con, status, r);
    MHD_destroy_response(r);
    return ret;
}

static void security_headers(struct MHD_Response *r)
{
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Cache-Control", "no-store");
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *con, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **req_cls)
{
    (void)version;
    (void)upload_data;
    ms_serve_ctx *ctx = cls;
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        /* answered before any body is read */
        return send_text(con, MHD_HTTP_METHOD_NOT_ALLOWED, "application/json",
                         "{\"error\": \"only GET and HEAD\", \"status\": 405}\n");
    }
    if (*req_cls == NULL) { /* first call: headers only */
        static int marker;
        *req_cls = &marker;
        return MHD_YES;
    }
    if (*upload_data_size) /* a GET with a body */
        return send_text(con, MHD_HTTP_CONTENT_TOO_LARGE, "application/json",
                         "{\"error\": \"request bodies are not accepted\", \"status\": 413}\n");
    if (strlen(url) > MAX_URL)
        return send_text(con, MHD_HTTP_URI_TOO_LONG, "application/json",
                         "{\"error\": \"request target too long\", \"status\": 414}\n");
    params ps = {0};
    MHD_get_connection_values(con, MHD_GET_ARGUMENT_KIND, collect, &ps);
    if (ps.overflow)
        return send_text(con, MHD_HTTP_BAD_REQUEST, "application/json",
                         "{\"error\": \"too many parameters\", \"status\": 400}\n");
    ms_serve_response resp;
    ms_serve_handle(ctx, url, ps.p, ps.n, &resp);
    struct MHD_Response *r = NULL;
    if (resp.file_path) {
        int fd = open(resp.file_path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= MAX_TRACE_BYTES) {
            r = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
            if (!r)
                close(fd);
            else
                MHD_add_response_header(r, "Content-Disposition", "attachment; filename=\"mlperf_log_trace.json\"");
        } else {
            if (fd >= 0)
                close(fd);
            ms_serve_response_free(&resp);
            return send_text(con, MHD_HTTP_NOT_FOUND, "application/json",
                             "{\"error\": \"the run's trace file is gone\", \"status\": 404}\n");
        }
    } else {
        r = MHD_create_response_from_buffer(resp.len, resp.body, MHD_RESPMEM_MUST_FREE);
        if (r)
            resp.body = NULL; /* owned by the response */
    }
    if (!r) {
        ms_serve_response_free(&resp);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", resp.content_type);
    security_headers(r);
    enum MHD_Result ret = MHD_queue_response(con, (unsigned)resp.status, r);
    MHD_destroy_response(r);
    ms_serve_response_free(&resp);
    return ret;
}

static int parse_listen(const char *s, struct sockaddr_in *sa, ms_err *e)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || colon - s >= 64)
        return ms_err_set(e, MS_EUSAGE, "--listen '%s': expected HOST:PORT (e.g. 127.0.0.1:8080)", s);
    char host[64];
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    uint64_t port;
    if (ms_parse_u64(colon + 1, &port) != 0 || port > 65535)
        return ms_err_set(e, MS_EUSAGE, "--listen '%s': the port is 0..65535", s);
    if (!strcmp(host, "localhost"))
        strcpy(host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
        return ms_err_set(e, MS_EUSAGE, "--listen '%s': the host is an IPv4 address or localhost", s);
    sa->sin_port = htons((uint16_t)port);
    return MS_OK;
}

int ms_serve(const ms_serve_opts *o, ms_err *e)
{
    struct sockaddr_in sa;
    int rc = parse_listen(o->listen ? o->listen : "127.0.0.1:8080", &sa, e);
    if (rc != MS_OK)
        return rc;
    if ((rc = ms_lazy_mhd_load("mlsubmit serve", e)) != MS_OK)
        return rc;
    ms_serve_ctx *ctx = ms_serve_ctx_new(o->index_db, o->runs_db, e);
    if (!ctx)
        return e->code ? e->code : MS_EINPUT;
    /* SIGINT/SIGTERM end the server: blocked here, waited for below */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handler, ctx, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
    if (!d) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        ms_serve_ctx_free(ctx);
        return ms_err_set(e, MS_ERUNTIME, "cannot listen on %s (address in use or not available)",
                          o->listen ? o->listen : "127.0.0.1:8080");
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    char url[128], host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa.sin_addr, host, sizeof host);
    snprintf(url, sizeof url, "http://%s:%u/", host, info ? (unsigned)info->port : (unsigned)ntohs(sa.sin_port));
    if (o->on_listen)
        o->on_listen(o->on_listen_ctx, url, (ntohl(sa.sin_addr.s_addr) >> 24) == 127);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        struct timespec slice = {0, 200000000};
        if (o->max_seconds > 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            double el = (double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
            if (el >= o->max_seconds)
                break;
        }
        int sig = sigtimedwait(&set, NULL, &slice);
        if (sig == SIGINT || sig == SIGTERM)
            break;
    }
    MHD_stop_daemon(d);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    ms_serve_ctx_free(ctx);
    return MS_OK;
}
