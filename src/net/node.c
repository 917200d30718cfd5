/* The SUT node (`mlsubmit sut serve`): a reference SUT behind HTTP/1.1 (libmicrohttpd, one
 * thread per connection, keep-alive). Endpoints (docs/NETWORK.md):
 *   GET  /health  -> 200 "ok"
 *   GET  /name    -> 200, the node's name (text)
 *   GET  /info    -> 200, JSON {"name","sut","total_sample_count","performance_sample_count"}
 *   POST /query   -> 200, a query response for the samples of the request body
 * With a token, every request needs "Authorization: Bearer <token>" (else 401). Bodies larger
 * than max_body get 413. The SUT completes samples into a completion sink (lg_sink_new); the
 * connection's thread waits until every sample of its request is complete. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loadgen/suts/sut.h"
#include "net/net.h"

typedef struct nd_req nd_req;

typedef struct nd_slot {
    nd_req *req;
    size_t i;
} nd_slot;

struct nd_req {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t n, left;
    nd_slot *slots;
    ms_net_result *res;
    uint8_t **own;          /* copies of payloads and first tokens (2 per sample) */
};

struct ms_node {
    lg_sut_instance *si;
    const lg_sut *sut;
    lg_test *sink;
    struct MHD_Daemon *d;
    ms_node_options o;
    char name[256];
    char *info;
    pthread_mutex_t issue_mu;   /* issue_query is called by one thread at a time */
    _Atomic int stopping;
    _Atomic uint64_t served;
};

/* One connection's request in progress: the body as it arrives. */
typedef struct nd_conn {
    ms_net_buf body;
    int too_big;
} nd_conn;

static void *dup_bytes(const void *p, size_t n)
{
    void *c = malloc(n ? n : 1);
    if (c && n)
        memcpy(c, p, n);
    return c;
}

static void sink_fn(void *ctx, int first_token, lg_response *r, size_t n)
{
    (void)ctx;
    for (size_t k = 0; k < n; k++) {
        nd_slot *sl = (nd_slot *)r[k].id;
        nd_req *q = sl->req;
        ms_net_result *out = &q->res[sl->i];
        uint8_t *copy = dup_bytes((const void *)r[k].data, r[k].size);
        pthread_mutex_lock(&q->mu);
        if (first_token) {
            if (!out->has_first_token && copy) {
                out->has_first_token = 1;
                out->first_token = copy;
                out->first_token_size = (uint32_t)r[k].size;
                q->own[2 * sl->i + 1] = copy;
                copy = NULL;
            }
        } else if (!q->own[2 * sl->i] && copy) {
            out->data = copy;
            out->size = (uint32_t)r[k].size;
            out->n_tokens = r[k].n_tokens;
            q->own[2 * sl->i] = copy;
            copy = NULL;
            if (--q->left == 0)
                pthread_cond_broadcast(&q->cv);
        }
        pthread_mutex_unlock(&q->mu);
        free(copy);
    }
}

static void req_free(nd_req *q)
{
    if (!q)
        return;
    if (q->own)
        for (size_t i = 0; i < 2 * q->n; i++)
            free(q->own[i]);
    free(q->own);
    free(q->slots);
    free(q->res);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const void *body, size_t len,
                             const char *type, int copy)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *)body, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_MUST_FREE);
    if (!r) {
        if (!copy)
            free((void *)body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    return reply(c, status, text, strlen(text), "text/plain; charset=utf-8", 1);
}

/* Runs one query request through the SUT; returns the HTTP status and the response body. */
static unsigned serve_query(ms_node *nd, const uint8_t *body, size_t len, ms_net_buf *out, char *err,
                            size_t errn)
{
    ms_err e;
    ms_net_sample *s = NULL;
    size_t n = 0;
    if (ms_net_req_decode(body, len, &s, &n, &e) != MS_OK) {
        snprintf(err, errn, "%s\n", e.msg);
        return MHD_HTTP_BAD_REQUEST;
    }
    size_t total = lg_sut_instance_qsl(nd->si)->total_sample_count;
    for (size_t i = 0; i < n; i++)
        if (s[i].index >= total) {
            snprintf(err, errn, "sample %zu: index %" PRIu64 " is not below the QSL's %zu samples\n", i,
                     s[i].index, total);
            free(s);
            return MHD_HTTP_BAD_REQUEST;
        }
    nd_req *q = calloc(1, sizeof *q);
    lg_query_sample *qs = calloc(n ? n : 1, sizeof *qs);
    if (q) {
        q->slots = calloc(n ? n : 1, sizeof *q->slots);
        q->res = calloc(n ? n : 1, sizeof *q->res);
        q->own = calloc(2 * n + 1, sizeof *q->own);
    }
    if (!q || !qs || !q->slots || !q->res || !q->own) {
        if (q) {
            free(q->slots);
            free(q->res);
            free(q->own);
            free(q);
        }
        free(qs);
        free(s);
        snprintf(err, errn, "out of memory\n");
        return MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    q->n = q->left = n;
    for (size_t i = 0; i < n; i++) {
        q->slots[i] = (nd_slot){q, i};
        q->res[i].id = s[i].id;
        qs[i].id = (lg_response_id)&q->slots[i];
        qs[i].index = (lg_sample_index)s[i].index;
    }
    free(s);
    if (n) {
        pthread_mutex_lock(&nd->issue_mu);
        nd->sut->issue_query(nd->sut->ctx, nd->sink, qs, n);
        pthread_mutex_unlock(&nd->issue_mu);
    }
    free(qs);
    pthread_mutex_lock(&q->mu);
    while (q->left && !atomic_load(&nd->stopping)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&q->cv, &q->mu, &ts);
    }
    size_t left = q->left;
    pthread_mutex_unlock(&q->mu);
    if (left) {
        /* stopping with samples the SUT still holds: the request stays allocated (the SUT may
         * complete into it until it is destroyed); a one-off at shutdown */
        snprintf(err, errn, "the node is stopping; %zu sample(s) not answered\n", left);
        return MHD_HTTP_SERVICE_UNAVAILABLE;
    }
    int bad = ms_net_resp_begin(out, (uint32_t)n);
    for (size_t i = 0; i < n && !bad; i++)
        bad = ms_net_resp_add(out, &q->res[i]);
    req_free(q);
    atomic_fetch_add(&nd->served, n);
    if (bad) {
        snprintf(err, errn, "out of memory\n");
        return MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    return MHD_HTTP_OK;
}

static int authorized(ms_node *nd, struct MHD_Connection *c)
{
    if (!nd->o.token)
        return 1;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!h || strncmp(h, "Bearer ", 7) != 0)
        return 0;
    /* constant time in the token's length */
    const char *t = nd->o.token, *g = h + 7;
    size_t lt = strlen(t), lg = strlen(g);
    unsigned diff = lt != lg;
    for (size_t i = 0; i < lt; i++)
        diff |= (unsigned)(t[i] ^ (i < lg ? g[i] : 0));
    return diff == 0;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    ms_node *nd = cls;
    nd_conn *cc = *con_cls;
    if (!cc) {
        cc = calloc(1, sizeof *cc);
        if (!cc)
            return MHD_NO;
        *con_cls = cc;
        return MHD_YES;
    }
    if (*upload_size) {
        if (!cc->too_big) {
            if (cc->body.len + *upload_size > nd->o.max_body) {
                cc->too_big = 1;
                ms_net_buf_free(&cc->body);
            } else if (ms_net_buf_put(&cc->body, upload, *upload_size) != 0) {
                return MHD_NO;
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (!authorized(nd, c))
        return reply_text(c, MHD_HTTP_UNAUTHORIZED, "a token is required: Authorization: Bearer <token>\n");
    if (cc->too_big)
        return reply_text(c, 413 /* Content Too Large */, "request body larger than the node's limit\n");
    int get = !strcmp(method, "GET");
    if (get && !strcmp(url, "/health"))
        return reply_text(c, MHD_HTTP_OK, "ok\n");
    if (get && !strcmp(url, "/name"))
        return reply_text(c, MHD_HTTP_OK, nd->name);
    if (get && !strcmp(url, "/info"))
        return reply(c, MHD_HTTP_OK, nd->info, strlen(nd->info), "application/json", 1);
    if (!strcmp(method, "POST") && !strcmp(url, "/query")) {
        ms_net_buf out = {0};
        char err[1700];
        unsigned st = serve_query(nd, cc->body.data, cc->body.len, &out, err, sizeof err);
        if (st != MHD_HTTP_OK) {
            ms_net_buf_free(&out);
            return reply_text(c, st, err);
        }
        return reply(c, st, out.data, out.len, "application/octet-stream", 0);
    }
    if (!strcmp(url, "/health") || !strcmp(url, "/name") || !strcmp(url, "/info") || !strcmp(url, "/query"))
        return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
    return reply_text(c, MHD_HTTP_NOT_FOUND, "not found (endpoints: /health, /name, /info, /query)\n");
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls, (void)c, (void)t;
    nd_conn *cc = *con_cls;
    if (cc) {
        ms_net_buf_free(&cc->body);
        free(cc);
        *con_cls = NULL;
    }
}

/* Small answers go out at once (no Nagle delay waiting for the client's delayed ACK). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    (void)cls, (void)socket_context;
    if (toe != MHD_CONNECTION_NOTIFY_STARTED)
        return;
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ci) {
        int one = 1;
        setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
}

static void json_str(ms_net_buf *b, const char *s)
{
    ms_net_buf_put(b, "\"", 1);
    for (; *s; s++) {
        char esc[8];
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            esc[0] = '\\', esc[1] = (char)ch;
            ms_net_buf_put(b, esc, 2);
        } else if (ch < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", ch);
            ms_net_buf_put(b, esc, 6);
        } else {
            ms_net_buf_put(b, s, 1);
        }
    }
    ms_net_buf_put(b, "\"", 1);
}

ms_node *ms_node_start(lg_sut_instance *si, const ms_node_options *o, ms_err *e)
{
    ms_node *nd = calloc(1, sizeof *nd);
    if (!nd) {
        ms_err_oom(e);
        return NULL;
    }
    nd->si = si;
    nd->sut = lg_sut_instance_sut(si);
    nd->o = *o;
    if (!nd->o.listen_addr)
        nd->o.listen_addr = "127.0.0.1";
    if (!nd->o.max_body)
        nd->o.max_body = 64u << 20;
    if (!nd->o.max_connections)
        nd->o.max_connections = 64;
    pthread_mutex_init(&nd->issue_mu, NULL);
    const lg_qsl *qsl = lg_sut_instance_qsl(si);
    snprintf(nd->name, sizeof nd->name, "%s", o->name ? o->name : nd->sut->name(nd->sut->ctx));
    ms_net_buf ib = {0};
    char num[80];
    ms_net_buf_put(&ib, "{\"name\":", 8);
    json_str(&ib, nd->name);
    ms_net_buf_put(&ib, ",\"sut\":", 7);
    json_str(&ib, nd->sut->name(nd->sut->ctx));
    int l = snprintf(num, sizeof num, ",\"total_sample_count\":%zu,\"performance_sample_count\":%zu}\n",
                     qsl->total_sample_count, qsl->performance_sample_count);
    if (ms_net_buf_put(&ib, num, (size_t)l) || ms_net_buf_put(&ib, "", 1)) {
        ms_net_buf_free(&ib);
        free(nd);
        ms_err_oom(e);
        return NULL;
    }
    nd->info = (char *)ib.data;
    /* the whole QSL is loaded for the node's life: queries may name any sample */
    size_t total = qsl->total_sample_count;
    lg_sample_index *all = malloc((total ? total : 1) * sizeof *all);
    if (!all) {
        ms_node_free(nd);
        ms_err_oom(e);
        return NULL;
    }
    for (size_t i = 0; i < total; i++)
        all[i] = i;
    int lr = qsl->load_samples ? qsl->load_samples(qsl->ctx, all, total) : 0;
    free(all);
    if (lr != 0) {
        ms_node_free(nd);
        ms_err_set(e, MS_ERUNTIME, "the SUT's QSL could not load its %zu samples", total);
        return NULL;
    }
    nd->sink = lg_sink_new(sink_fn, nd, e);
    if (!nd->sink) {
        ms_node_free(nd);
        return NULL;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)o->port);
    if (inet_pton(AF_INET, nd->o.listen_addr, &sa.sin_addr) != 1) {
        ms_node_free(nd);
        ms_err_set(e, MS_EUSAGE, "--listen: '%s' is not an IPv4 address", nd->o.listen_addr);
        return NULL;
    }
    nd->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL,
                             (uint16_t)o->port, NULL, NULL, handler, nd,
                             MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                             MHD_OPTION_CONNECTION_LIMIT, (unsigned)nd->o.max_connections,
                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
                             MHD_OPTION_NOTIFY_COMPLETED, completed, nd,
                             MHD_OPTION_NOTIFY_CONNECTION, on_connection, nd,
                             MHD_OPTION_END);
    if (!nd->d) {
        int err = errno;
        ms_node_free(nd);
        ms_err_errno(e, MS_ERUNTIME, err, "cannot listen on %s:%u", o->listen_addr ? o->listen_addr : "127.0.0.1",
                     o->port);
        return NULL;
    }
    return nd;
}

unsigned ms_node_port(const ms_node *nd)
{
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(nd->d, MHD_DAEMON_INFO_BIND_PORT);
    return i ? i->port : nd->o.port;
}

uint64_t ms_node_samples_served(const ms_node *nd)
{
    return atomic_load(&nd->served);
}

void ms_node_stop(ms_node *nd)
{
    if (!nd)
        return;
    atomic_store(&nd->stopping, 1);
    if (nd->d)
        MHD_stop_daemon(nd->d);
    nd->d = NULL;
}

void ms_node_free(ms_node *nd)
{
    if (!nd)
        return;
    ms_node_stop(nd);
    lg_sink_free(nd->sink);
    pthread_mutex_destroy(&nd->issue_mu);
    free(nd->info);
    free(nd);
}
