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
#include "common/lazy_mhd.h"
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
    uint64_t id;            /* the QDL's id, echoed back */
    int done;
} nd_slot;

/* One POST /query in progress: the SUT completes into its slots (sink_fn, any thread), which
 * encodes a record at once; the connection's thread streams the records out as frames. */
struct nd_req {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ms_node *nd;
    size_t n, left;         /* samples, samples not completed yet */
    nd_slot *slots;
    ms_net_buf rec;         /* response frames not sent yet; the last one open (nrec records) */
    size_t hdr;             /* where the open frame starts in rec */
    uint32_t nrec;
    ms_net_buf out;         /* the frames being sent */
    size_t out_pos;
    int orphan;             /* the response is gone: the last completion frees the request */
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
    _Atomic uint64_t queries;   /* issue_query calls made */
};

/* A response frame is closed at this many records or bytes: the QDL decodes a frame when it is
 * whole, so a big answer (an Offline share) comes back as a stream of frames it completes as
 * they arrive, each decoded once. */
#define ND_FRAME_RECORDS 4096u
#define ND_FRAME_BYTES (64u << 10)

/* One connection's request in progress: the body as it arrives. */
typedef struct nd_conn {
    ms_net_buf body;
    int too_big;
} nd_conn;

static void req_free(nd_req *q)
{
    if (!q)
        return;
    free(q->slots);
    ms_net_buf_free(&q->rec);
    ms_net_buf_free(&q->out);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q);
}

/* Releases q (locked by sink_fn): wakes its connection's thread; frees it when its response is
 * gone and every sample is complete. */
static void sink_release(nd_req *q)
{
    int freeit = q->orphan && q->left == 0;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    if (freeit)
        req_free(q);
}

static void sink_fn(void *ctx, int first_token, lg_response *r, size_t n)
{
    ms_node *nd = ctx;
    nd_req *q = NULL; /* locked while consecutive records are its own (one lock per batch) */
    uint64_t served = 0;
    for (size_t k = 0; k < n; k++) {
        nd_slot *sl = (nd_slot *)r[k].id;
        if (sl->req != q) {
            if (q)
                sink_release(q);
            q = sl->req;
            pthread_mutex_lock(&q->mu);
        }
        if (sl->done) /* a second completion of a sample: not the node's to pass on */
            continue;
        ms_net_result res = {.id = sl->id, .n_tokens = r[k].n_tokens, .is_first_token = first_token,
                             .data = (const uint8_t *)r[k].data, .size = (uint32_t)r[k].size};
        size_t mark = q->rec.len;
        if ((q->nrec == 0 && ms_net_resp_open(&q->rec, &q->hdr) != 0) || ms_net_resp_add(&q->rec, &res) != 0) {
            q->rec.len = mark; /* out of memory: the sample is not answered; the QDL times out */
        } else if (++q->nrec >= ND_FRAME_RECORDS || q->rec.len - q->hdr >= ND_FRAME_BYTES) {
            ms_net_resp_close(&q->rec, q->hdr, q->nrec);
            q->nrec = 0;
        }
        if (!first_token) {
            sl->done = 1;
            q->left--;
            served++;
        }
    }
    atomic_fetch_add(&nd->served, served);
    if (q)
        sink_release(q);
}

/* Waits (under q->mu) until the SUT completes something of q, or 100 ms (to see a stop). */
static void wait_change(nd_req *q)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&q->cv, &q->mu, &ts);
}

/* Closes the open frame of q (under q->mu). */
static void close_frame(nd_req *q)
{
    if (q->nrec) {
        ms_net_resp_close(&q->rec, q->hdr, q->nrec);
        q->nrec = 0;
    }
}

/* MHD content reader (the connection's own thread, which may block here): the next bytes of
 * the response stream, the frames of every record encoded since the last call. */
static ssize_t stream_out(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    nd_req *q = cls;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        if (q->out_pos < q->out.len) {
            size_t k = q->out.len - q->out_pos < max ? q->out.len - q->out_pos : max;
            memcpy(buf, q->out.data + q->out_pos, k);
            q->out_pos += k;
            pthread_mutex_unlock(&q->mu);
            return (ssize_t)k;
        }
        if (q->rec.len) { /* the frames encoded since: sent next (the buffers swap, no copy) */
            close_frame(q);
            ms_net_buf t = q->out;
            q->out = q->rec;
            q->rec = t;
            q->rec.len = 0;
            q->out_pos = 0;
            continue;
        }
        if (q->left == 0) {
            pthread_mutex_unlock(&q->mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        if (atomic_load(&q->nd->stopping)) {
            /* the node stops while the SUT still holds samples: the stream is cut short, which
             * the QDL reports as a node failing mid-run */
            pthread_mutex_unlock(&q->mu);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        wait_change(q);
    }
}

static void stream_done(void *cls)
{
    nd_req *q = cls;
    pthread_mutex_lock(&q->mu);
    int freeit = q->left == 0;
    q->orphan = 1;
    pthread_mutex_unlock(&q->mu);
    if (freeit)
        req_free(q);
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

/* The frames of a request body, decoded once: samples point into the body. */
typedef struct nd_frames {
    ms_net_sample **s;
    size_t *n;
    size_t count, cap;
} nd_frames;

static void frames_free(nd_frames *f)
{
    for (size_t i = 0; i < f->count; i++)
        free(f->s[i]);
    free(f->s);
    free(f->n);
}

/* Decodes a query request (one frame per query), checks every sample, then issues every frame as
 * its own query (no batching of queries into one issue_query call; nothing is issued when a
 * sample is bad) and returns the request whose records the response streams; or NULL with the
 * HTTP status and a one-line reason. */
static nd_req *serve_query(ms_node *nd, const uint8_t *body, size_t len, unsigned *status, char *err, size_t errn)
{
    ms_err e;
    size_t total = lg_sut_instance_qsl(nd->si)->total_sample_count;
    size_t want = nd->si->data.issue ? nd->si->data.sample_size : 0;
    size_t nall = 0;
    nd_frames f = {0};
    nd_req *q = NULL;
    lg_query_sample *qs = NULL;
    const void **px = NULL;
    *status = MHD_HTTP_BAD_REQUEST;
    for (size_t off = 0; off < len || f.count == 0;) {
        ms_net_sample *s = NULL;
        size_t n = 0, used = 0;
        if (ms_net_req_decode_frame(body + off, len - off, &s, &n, &used, &e) != MS_OK) {
            snprintf(err, errn, "frame %zu at byte %zu: %s\n", f.count, off, e.msg);
            goto bad;
        }
        if (f.count == f.cap) {
            size_t nc = f.cap ? 2 * f.cap : 8;
            ms_net_sample **ns = realloc(f.s, nc * sizeof *ns);
            if (ns)
                f.s = ns;
            size_t *nn = realloc(f.n, nc * sizeof *nn);
            if (nn)
                f.n = nn;
            if (!ns || !nn) {
                free(s);
                goto oom;
            }
            f.cap = nc;
        }
        f.s[f.count] = s;
        f.n[f.count++] = n;
        for (size_t i = 0; i < n; i++) {
            if (s[i].index >= total)
                snprintf(err, errn, "frame %zu, sample %zu: index %" PRIu64 " is not below the QSL's %zu samples\n",
                         f.count - 1, i, s[i].index, total);
            else if (s[i].size != want && want)
                snprintf(err, errn, "frame %zu, sample %zu: %u data bytes; this node's SUT infers from the sample's "
                         "%zu bytes (%s), which the QDL must send\n", f.count - 1, i, s[i].size, want,
                         nd->si->data.dataset);
            else if (s[i].size != want)
                snprintf(err, errn, "frame %zu, sample %zu: %u data bytes; this node's SUT takes no sample data\n",
                         f.count - 1, i, s[i].size);
            else
                continue;
            goto bad;
        }
        nall += n;
        off += used;
    }
    q = calloc(1, sizeof *q);
    qs = malloc((nall ? nall : 1) * sizeof *qs);
    px = malloc((nall ? nall : 1) * sizeof *px);
    if (q)
        q->slots = malloc((nall ? nall : 1) * sizeof *q->slots);
    if (!q || !qs || !px || !q->slots) {
        if (q)
            free(q->slots);
        free(q);
        q = NULL;
        goto oom;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    q->nd = nd;
    q->n = q->left = nall;
    size_t k = 0;
    for (size_t j = 0; j < f.count; j++) {
        const ms_net_sample *s = f.s[j];
        size_t n = f.n[j];
        for (size_t i = 0; i < n; i++) {
            q->slots[k + i] = (nd_slot){q, s[i].id, 0};
            qs[k + i].id = (lg_response_id)&q->slots[k + i];
            qs[k + i].index = (lg_sample_index)s[i].index;
            px[k + i] = s[i].data; /* points into the body: valid during the issue call */
        }
        if (n) {
            pthread_mutex_lock(&nd->issue_mu);
            atomic_fetch_add(&nd->queries, 1);
            if (nd->si->data.issue)
                nd->si->data.issue(nd->sut->ctx, nd->sink, qs + k, px + k, n);
            else
                nd->sut->issue_query(nd->sut->ctx, nd->sink, qs + k, n);
            pthread_mutex_unlock(&nd->issue_mu);
        }
        k += n;
    }
    free(qs);
    free(px);
    frames_free(&f);
    *status = MHD_HTTP_OK;
    return q;
oom:
    *status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    snprintf(err, errn, "out of memory\n");
bad:
    free(qs);
    free(px);
    frames_free(&f);
    return NULL;
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
        char err[1700];
        unsigned st;
        nd_req *q = serve_query(nd, cc->body.data, cc->body.len, &st, err, sizeof err);
        if (!q)
            return reply_text(c, st, err);
        /* nothing is sent before the SUT completes something (this is the connection's own
         * thread: it may wait). If every sample is complete by then (an SUT answering from
         * issue_query, a one-sample query, samples completed together) the whole answer goes
         * in one buffer, which libmicrohttpd sends with its headers in one write
         * (Content-Length): one segment, no chunk framing, no terminating chunk. Else the
         * answer streams (chunked), starting with what is complete. */
        pthread_mutex_lock(&q->mu);
        while (q->left > 0 && q->rec.len == 0 && !atomic_load(&nd->stopping))
            wait_change(q);
        int all_done = q->left == 0;
        ms_net_buf whole = {0};
        if (all_done) {
            close_frame(q);
            whole = q->rec; /* handed to libmicrohttpd, which frees it */
            q->rec = (ms_net_buf){0};
        }
        pthread_mutex_unlock(&q->mu);
        if (all_done) {
            req_free(q);
            if (!whole.len)
                ms_net_buf_free(&whole);
            return reply(c, MHD_HTTP_OK, whole.len ? (void *)whole.data : (void *)"", whole.len,
                         "application/octet-stream", whole.len == 0);
        }
        struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, stream_out, q,
                                                                   stream_done);
        if (!r) {
            stream_done(q);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type", "application/octet-stream");
        enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
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
    if (si->data.issue && si->data.dataset) {
        ms_net_buf_put(&ib, ",\"dataset\":", 11);
        json_str(&ib, si->data.dataset);
        int k = snprintf(num, sizeof num, ",\"sample_size\":%zu", si->data.sample_size);
        ms_net_buf_put(&ib, num, (size_t)k);
    }
    /* the most samples the node takes in one query: a request of that many (28 bytes a sample at
     * most with its frame's header, plus its data) fits in --max-body */
    size_t per = 28 + (si->data.issue ? si->data.sample_size : 0), most = nd->o.max_body > 8 ? (nd->o.max_body - 8) / per : 0;
    if (most > MS_NET_MAX_SAMPLES)
        most = MS_NET_MAX_SAMPLES;
    int k = snprintf(num, sizeof num, ",\"max_query_samples\":%zu", most ? most : 1);
    ms_net_buf_put(&ib, num, (size_t)k);
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
    if (ms_lazy_mhd_load("the SUT node", e) != MS_OK) {
        ms_node_free(nd);
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

uint64_t ms_node_queries_issued(const ms_node *nd)
{
    return atomic_load(&nd->queries);
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
