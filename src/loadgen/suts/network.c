/* --sut network:URL[,URL...][,token-file=F][,chunk=N]: the Query Dispatch Library (QDL) of the
 * Network division. Each sample goes to an SUT node (`mlsubmit sut serve`) over HTTP/1.1
 * keep-alive with libcurl's multi interface, and its response comes back from the node with
 * its payload and token counts; the QDL itself does no batching, caching, padding or any pre-
 * or post-processing (wire format: docs/NETWORK.md, encoders in src/net/proto.c).
 *
 * - create: GET /info on every node (a node that is down fails here, before any log is
 *   written); node names must be unique; the QSL is a counting QSL sized by --total-samples,
 *   else by the nodes' own QSL (which must agree).
 * - Name(): GET /name on every node (a round trip each), "Network SUT (N nodes: a, b, ...)".
 * - issue_query: a query goes whole to the node with a free connection and the fewest samples
 *   outstanding when it is sent; a query of
 *   at least 2 * chunk samples (default 1024: Offline) is shared among up to n / chunk nodes,
 *   each node's share issued there as one query (cut only where it exceeds what the node takes
 *   at once, GET /info max_query_samples). A frame is sent as soon as its node has a free
 *   connection: by the LoadGen's issuing thread itself when libcurl is free and its sends keep
 *   to the schedule (net_issue; it then also reads the answers already there), else by the
 *   QDL's thread; frames that wait together for a node go back to back in one request (each
 *   still its own query on the node).
 * - faults (a node dies, answers an error status, garbage, or an id it was not sent): the
 *   instance's fatal callback (lg_sut_instance_on_fatal) is told which node and how many samples were lost (the CLI ends the
 *   test there, logs marked incomplete); without one the samples are never completed and the
 *   LoadGen's --timeout ends the test. */
#include "common/lazy_curl.h"
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "loadgen/suts/sut.h"
#include "net/net.h"

/* A query, or a node's share of one, waiting for a connection to its node: its frame. */
typedef struct net_item {
    lg_test *test;
    size_t n;
    ms_net_buf frame;
    uint64_t *ids;
    struct net_item *next;
} net_item;

typedef struct net_node {
    char *url;            /* base URL without a trailing '/' */
    char *query_url;      /* url + "/query" */
    char name[256];
    uint64_t outstanding; /* samples given to it, not yet answered (under net_sut.mu) */
    size_t busy;          /* transfers in flight (under net_sut.mmu) */
    size_t max_query;     /* most samples it takes in one query (GET /info max_query_samples) */
    struct net_item *pend, *pend_tail; /* its frames not sent yet, in issue order (under mu) */
    uint64_t query;       /* the last query given a share of (under mu) */
} net_node;

/* One POST /query in flight: one or more queries' frames; the response streams back. */
typedef struct net_xfer {
    struct net_sut *ns;
    size_t node;
    CURL *h;
    lg_test *test;
    ms_net_buf req, resp;
    size_t rpos;          /* bytes of resp already decoded */
    uint64_t *ids;        /* the request's response ids, sorted (for checking the answer) */
    unsigned char *state; /* per id: 1 first token seen, 2 completed */
    size_t n, ndone, cap;
    size_t next_id;       /* where the next answered id is looked for first in ids */
    lg_response *lr;      /* scratch for the completion calls */
    long status;
    char bad[2048];       /* a decoding fault found while the response streamed */
    char cerr[CURL_ERROR_SIZE];
    struct net_xfer *next;
} net_xfer;

typedef struct net_sut {
    net_node *nodes;
    size_t nn;
    size_t chunk;
    size_t conns;         /* connections per node */
    char *auth;           /* "Authorization: Bearer ..." or NULL */
    struct curl_slist *hdrs; /* headers of every query request */
    char name[4096];
    /* libcurl's multi handle is driven by whichever thread holds mmu: the LoadGen's issuing
     * thread sends a query itself when nothing is in flight (no hand-over to another thread),
     * the QDL's thread waits in epoll_wait (without mmu) for the nodes' answers and curl's
     * timers (curl_multi_socket_action: libcurl tells us its sockets and timer, on_socket and
     * on_timer, and we wait for them) */
    CURLM *multi;
    pthread_mutex_t mmu;
    int ep, efd;          /* epoll set of curl's sockets, eventfd to wake the QDL's thread */
    uint8_t *want, *reg;  /* per socket: the events curl wants, those registered in ep (mmu) */
    size_t nfd;           /* their size */
    int64_t deadline;     /* curl's timer, CLOCK_MONOTONIC ns, -1 none (under mmu) */
    int64_t wait_until;   /* the QDL's thread sleeps until then; INT64_MIN: it is awake (mmu) */
    _Atomic unsigned kicks; /* queries the issuing thread left to the QDL's thread */
    _Atomic int sleeping; /* the QDL's thread is in (or about to enter) epoll_wait */
    _Atomic size_t nlive; /* transfers in flight (changed under mmu) */
    _Atomic int64_t last_issue; /* when issue_query was last called (CLOCK_MONOTONIC ns) */
    _Atomic int64_t gap_avg;    /* moving average of the time between issue_query calls */
    _Atomic int64_t send_avg;   /* moving average of a send by the issuing thread (net_issue) */
    pthread_t th;
    int th_started;
    pthread_mutex_t mu;
    net_xfer *live;       /* in the multi handle (under mmu) */
    net_xfer *spare;      /* finished transfers kept with their easy handle (under mmu) */
    _Atomic int stop;
    _Atomic int failed;
    lg_sut_instance *si;  /* for its fatal callback */
    uint64_t queries;     /* queries issued (under mu) */
    net_item *pend, *pend_tail; /* whole queries not sent yet, for any node (under mu) */
    size_t max_query;     /* the smallest max_query of the nodes */
    lg_sut_instance *local; /* the nodes' dataset loaded here: its QSL, and the bytes sent */
} net_sut;

static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
    ms_net_buf *b = ud;
    size_t n = sz * nm;
    if (b->len + n > (256u << 20)) /* a response cannot be this big: refuse */
        return 0;
    return ms_net_buf_put(b, p, n) ? 0 : n;
}

static struct curl_slist *headers(const net_sut *ns, int binary)
{
    struct curl_slist *h = NULL, *t;
    if (binary) {
        if (!(t = curl_slist_append(h, "Content-Type: application/octet-stream")))
            goto oom;
        h = t;
        if (!(t = curl_slist_append(h, "Expect:")))
            goto oom;
        h = t;
    }
    if (ns->auth) {
        if (!(t = curl_slist_append(h, ns->auth)))
            goto oom;
        h = t;
    }
    return h;
oom:
    curl_slist_free_all(h);
    return NULL;
}

/* A blocking GET (create and Name()): the body in out. */
static int http_get(const net_sut *ns, const net_node *nd, const char *path, ms_net_buf *out, ms_err *e)
{
    char url[1200];
    snprintf(url, sizeof url, "%s%s", nd->url, path);
    CURL *h = curl_easy_init();
    if (!h)
        return ms_err_oom(e);
    struct curl_slist *hd = headers(ns, 0);
    char cerr[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    if (hd)
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    curl_slist_free_all(hd);
    if (rc != CURLE_OK)
        return ms_err_set(e, MS_ERUNTIME, "network SUT: node %s is not reachable (GET %s): %s", nd->url, path,
                          cerr[0] ? cerr : curl_easy_strerror(rc));
    if (status != 200)
        return ms_err_set(e, MS_ERUNTIME, "network SUT: node %s answered GET %s with HTTP %ld%s", nd->url, path,
                          status, status == 401 ? " (a token is required: token-file=F)" : "");
    if (ms_net_buf_put(out, "", 1) != 0)
        return ms_err_oom(e);
    out->len--;
    return MS_OK;
}

static void xfer_free(net_xfer *x)
{
    if (!x)
        return;
    if (x->h)
        curl_easy_cleanup(x->h);
    ms_net_buf_free(&x->req);
    ms_net_buf_free(&x->resp);
    free(x->ids);
    free(x->state);
    free(x->lr);
    free(x);
}

static void item_free(net_item *it)
{
    if (!it)
        return;
    ms_net_buf_free(&it->frame);
    free(it->ids);
    free(it);
}

static void fail(net_sut *ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(net_sut *ns, const char *fmt, ...)
{
    if (atomic_exchange(&ns->failed, 1))
        return; /* the first fault is the one reported */
    char msg[3000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lg_sut_fatal(ns->si, msg);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The records of one response frame: first tokens go to the LoadGen at once, completions in one
 * call per frame. Returns -1 with x->bad set on an id the request did not send (or sent once). */
static int frame_records(net_sut *ns, net_xfer *x, const ms_net_result *r, size_t n)
{
    size_t nl = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        /* answers usually come in the order sent, so the id after the previous one is tried
         * first (a binary search per record was a tenth of an Offline run's time) */
        uint64_t *p = x->next_id < x->n && x->ids[x->next_id] == r[i].id
                          ? &x->ids[x->next_id]
                          : bsearch(&r[i].id, x->ids, x->n, sizeof *x->ids, cmp_u64);
        size_t j = p ? (size_t)(p - x->ids) : 0;
        x->next_id = j + 1;
        if (!p || (x->state[j] & 2) || (r[i].is_first_token && (x->state[j] & 1))) {
            snprintf(x->bad, sizeof x->bad, "answered %s id %" PRIu64 " (record %zu of a frame)",
                     p ? "twice the" : "an unknown", r[i].id, i);
            rc = -1;
            break;
        }
        if (r[i].is_first_token || r[i].has_first_token) {
            lg_response ft = {(lg_response_id)r[i].id,
                              (uintptr_t)(r[i].is_first_token ? r[i].data : r[i].first_token),
                              r[i].is_first_token ? r[i].size : r[i].first_token_size, r[i].n_tokens};
            x->state[j] |= 1;
            lg_first_token_complete(x->test, &ft, 1);
        }
        if (!r[i].is_first_token) {
            x->state[j] |= 2;
            x->lr[nl++] = (lg_response){(lg_response_id)r[i].id, (uintptr_t)r[i].data, r[i].size, r[i].n_tokens};
        }
    }
    if (nl) {
        x->ndone += nl;
        pthread_mutex_lock(&ns->mu);
        ns->nodes[x->node].outstanding -= nl;
        pthread_mutex_unlock(&ns->mu);
        lg_query_samples_complete(x->test, x->lr, nl);
    }
    return rc;
}

/* libcurl's write callback of a query: decodes every complete frame as it arrives. */
static size_t on_stream(char *p, size_t sz, size_t nm, void *ud)
{
    net_xfer *x = ud;
    size_t n = sz * nm;
    if (!x->status)
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
    if (x->status != 200) { /* an error answer: keep its start for the message */
        if (x->resp.len < 2048)
            ms_net_buf_put(&x->resp, p, n < 2048 ? n : 2048);
        return n;
    }
    if (x->bad[0] || x->resp.len - x->rpos + n > (256u << 20) || ms_net_buf_put(&x->resp, p, n))
        return 0;
    for (;;) {
        ms_net_result *r = NULL;
        size_t k = 0, used = 0;
        ms_err e;
        int rc = ms_net_resp_decode_frame(x->resp.data + x->rpos, x->resp.len - x->rpos, &r, &k, &used, &e);
        if (rc == MS_NET_MORE)
            break;
        if (rc != MS_OK) {
            snprintf(x->bad, sizeof x->bad, "answered garbage: %s (at byte %zu of the response)", e.msg, x->rpos);
            return 0;
        }
        int bad = frame_records(x->ns, x, r, k);
        free(r);
        if (bad)
            return 0;
        x->rpos += used;
    }
    if (x->rpos) { /* keep only the start of the next frame */
        memmove(x->resp.data, x->resp.data + x->rpos, x->resp.len - x->rpos);
        x->resp.len -= x->rpos;
        x->rpos = 0;
    }
    return n;
}

/* A finished transfer: every sample must have been answered. */
static void finish(net_sut *ns, net_xfer *x, CURLcode cc, const char *cerr)
{
    net_node *nd = &ns->nodes[x->node];
    pthread_mutex_lock(&ns->mu);
    uint64_t lost = nd->outstanding;
    nd->outstanding -= x->n - x->ndone;
    pthread_mutex_unlock(&ns->mu);
    if (x->bad[0]) {
        fail(ns, "network SUT: node '%s' (%s) %s; %" PRIu64 " sample(s) lost", nd->name, nd->url, x->bad, lost);
        return;
    }
    if (x->status && x->status != 200) {
        ms_net_buf_put(&x->resp, "", 1);
        char *t = (char *)x->resp.data;
        if (t)
            t[strcspn(t, "\r\n")] = '\0';
        fail(ns, "network SUT: node '%s' (%s) answered a query with HTTP %ld (%s); %" PRIu64 " sample(s) lost",
             nd->name, nd->url, x->status, t ? t : "", lost);
        return;
    }
    if (cc != CURLE_OK) {
        fail(ns, "network SUT: node '%s' (%s) failed mid-run: %s; %" PRIu64 " sample(s) sent to it were lost",
             nd->name, nd->url, cerr[0] ? cerr : curl_easy_strerror(cc), lost);
        return;
    }
    if (x->resp.len != x->rpos) {
        ms_err e;
        ms_net_result *r = NULL;
        size_t k;
        if (ms_net_resp_decode(x->resp.data + x->rpos, x->resp.len - x->rpos, &r, &k, &e) == MS_OK)
            snprintf(e.msg, sizeof e.msg, "a frame the stream did not decode");
        free(r);
        fail(ns, "network SUT: node '%s' (%s) answered garbage: %s; %" PRIu64 " sample(s) lost", nd->name, nd->url,
             e.msg, lost);
        return;
    }
    if (x->ndone != x->n)
        fail(ns, "network SUT: node '%s' (%s) answered %zu sample(s) to a query of %zu; %" PRIu64 " sample(s) lost",
             nd->name, nd->url, x->ndone, x->n, lost);
}

static int on_close(void *ud, curl_socket_t fd);

/* A transfer for the queries of list (n samples in all) to node k: a spare one reused (its
 * easy handle keeps libcurl's per-handle state warm) or a new one. */
static net_xfer *make_xfer(net_sut *ns, net_item *list, size_t n, size_t k)
{
    net_xfer *x = ns->spare;
    if (x) {
        ns->spare = x->next;
    } else {
        x = calloc(1, sizeof *x);
        if (!x)
            return NULL;
        x->ns = ns;
        if (!(x->h = curl_easy_init())) {
            free(x);
            return NULL;
        }
    }
    x->next = NULL;
    x->node = k;
    x->test = list->test;
    x->n = n;
    x->ndone = 0;
    x->next_id = 0;
    x->rpos = 0;
    x->status = 0;
    x->bad[0] = x->cerr[0] = '\0';
    x->req.len = x->resp.len = 0;
    if (n > x->cap) {
        uint64_t *ids = realloc(x->ids, n * sizeof *ids);
        if (ids)
            x->ids = ids;
        unsigned char *st = realloc(x->state, n);
        if (st)
            x->state = st;
        lg_response *lr = realloc(x->lr, n * sizeof *lr);
        if (lr)
            x->lr = lr;
        if (!ids || !st || !lr) {
            xfer_free(x);
            return NULL;
        }
        x->cap = n;
    }
    memset(x->state, 0, n);
    size_t m = 0;
    if (!list->next) { /* one frame: it is the body (the buffers swap, no copy) */
        ms_net_buf t = x->req;
        x->req = list->frame;
        list->frame = t;
    }
    for (net_item *it = list; it; it = it->next) {
        if (it->frame.len && ms_net_buf_put(&x->req, it->frame.data, it->frame.len)) {
            xfer_free(x);
            return NULL;
        }
        memcpy(x->ids + m, it->ids, it->n * sizeof *x->ids);
        m += it->n;
    }
    size_t sorted = 1; /* the LoadGen's ids usually come in order: sorted only when not */
    while (sorted < n && x->ids[sorted - 1] < x->ids[sorted])
        sorted++;
    if (sorted < n)
        qsort(x->ids, n, sizeof *x->ids, cmp_u64);
    CURL *h = x->h;
    curl_easy_setopt(h, CURLOPT_URL, ns->nodes[k].query_url);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, (char *)x->req.data);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->req.len);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(h, CURLOPT_PRIVATE, (char *)x);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, ns->hdrs);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->cerr);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L); /* libcurl's default, said: no Nagle delay */
    curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, on_close);
    curl_easy_setopt(h, CURLOPT_CLOSESOCKETDATA, ns);
    return x;
}

/* Sends each node's waiting frames while it has a free connection (under mmu): several queries'
 * frames in one request when they wait together (transport only: the node issues each frame
 * as its own query), up to chunk samples (a frame larger than that, a node's share of an
 * Offline query, goes alone): a burst spreads over the node's connections. */
/* Takes the frames to send together from the head of *head (under mu): those of one test, up to
 * cap samples (the first one whatever its size). */
static net_item *take(net_item **head, net_item **tail, size_t cap, size_t *n)
{
    net_item *first = *head, *last = first;
    *n = first->n;
    while (last->next && last->next->test == first->test && *n + last->next->n <= cap) {
        last = last->next;
        *n += last->n;
    }
    *head = last->next;
    if (!*head)
        *tail = NULL;
    last->next = NULL;
    return first;
}

/* Sends the frames list (n samples) to node k (under mmu; mu held, released meanwhile). */
static int send_frames(net_sut *ns, net_item *list, size_t n, size_t k)
{
    ns->nodes[k].busy++;
    pthread_mutex_unlock(&ns->mu);
    net_xfer *x = make_xfer(ns, list, n, k);
    for (net_item *it = list, *nx; it; it = nx) {
        nx = it->next;
        item_free(it);
    }
    if (!x) {
        fail(ns, "network SUT: out of memory for a request of %zu sample(s)", n);
        return -1;
    }
    x->next = ns->live;
    ns->live = x;
    atomic_fetch_add(&ns->nlive, 1);
    curl_multi_add_handle(ns->multi, x->h);
    pthread_mutex_lock(&ns->mu);
    return 0;
}

/* Sends waiting frames while nodes have a free connection (under mmu): first each node's shares
 * of Offline queries (given to it at issue), then the whole queries, each to the node with a
 * free connection and the fewest samples outstanding at that moment (a node held up, by the
 * machine or its SUT, leaves them to the others). Frames waiting together go in one request
 * (transport only: the node issues each frame as its own query), up to chunk samples (a
 * larger frame goes alone): a burst spreads over the connections. */
static void dispatch(net_sut *ns)
{
    pthread_mutex_lock(&ns->mu);
    size_t n;
    for (size_t k = 0; k < ns->nn; k++) {
        net_node *nd = &ns->nodes[k];
        while (nd->pend && nd->busy < ns->conns) {
            net_item *list = take(&nd->pend, &nd->pend_tail, ns->chunk < nd->max_query ? ns->chunk : nd->max_query, &n);
            if (send_frames(ns, list, n, k) != 0)
                return;
        }
    }
    while (ns->pend) {
        size_t best = ns->nn;
        for (size_t i = 0; i < ns->nn; i++)
            if (ns->nodes[i].busy < ns->conns &&
                (best == ns->nn || ns->nodes[i].outstanding < ns->nodes[best].outstanding))
                best = i;
        if (best == ns->nn)
            break;
        net_item *list = take(&ns->pend, &ns->pend_tail, ns->chunk < ns->max_query ? ns->chunk : ns->max_query, &n);
        ns->nodes[best].outstanding += n;
        if (send_frames(ns, list, n, best) != 0)
            return;
    }
    pthread_mutex_unlock(&ns->mu);
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sets the events fd is registered for in the epoll set (under mmu); 0 removes it. */
static void reg_set(net_sut *ns, curl_socket_t fd, uint8_t ev)
{
    if (ns->reg[fd] == ev)
        return;
    struct epoll_event e = {.events = ev, .data.fd = fd};
    int op = ev == 0 ? EPOLL_CTL_DEL : ns->reg[fd] ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(ns->ep, op, fd, ev ? &e : NULL) != 0 && op == EPOLL_CTL_ADD && errno == EEXIST)
        epoll_ctl(ns->ep, EPOLL_CTL_MOD, fd, &e);
    ns->reg[fd] = ev;
}

/* libcurl's socket callback (under mmu): the sockets the QDL's thread waits on, and for what.
 * A socket curl no longer watches (its transfer done, the connection kept for the next) stays
 * in the epoll set as it was: the next transfer on the connection usually wants the same, so a
 * request costs no epoll_ctl; should such a socket wake the QDL's thread anyway (the node
 * closing an idle connection), it is taken out then (worker). Closing a socket (on_close)
 * forgets it, as the kernel does. */
static int on_socket(CURL *h, curl_socket_t fd, int what, void *ud, void *sp)
{
    (void)h, (void)sp;
    net_sut *ns = ud;
    if (fd < 0)
        return 0;
    if ((size_t)fd >= ns->nfd) {
        size_t n = (size_t)fd * 2 + 64;
        uint8_t *w = realloc(ns->want, n), *r = w ? realloc(ns->reg, n) : NULL;
        if (w)
            ns->want = w;
        if (!w || !r)
            return -1; /* out of memory: libcurl fails the transfer */
        ns->reg = r;
        memset(ns->want + ns->nfd, 0, n - ns->nfd);
        memset(ns->reg + ns->nfd, 0, n - ns->nfd);
        ns->nfd = n;
    }
    uint8_t ev = (uint8_t)((what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u));
    ns->want[fd] = what == CURL_POLL_REMOVE ? 0 : ev;
    if (ns->want[fd])
        reg_set(ns, fd, ev);
    return 0;
}

/* libcurl closes a socket (under mmu): the kernel takes it out of the epoll set. */
static int on_close(void *ud, curl_socket_t fd)
{
    net_sut *ns = ud;
    if (fd >= 0 && (size_t)fd < ns->nfd)
        ns->want[fd] = ns->reg[fd] = 0;
    return close(fd);
}

/* libcurl's timer callback (under mmu): when curl_multi_socket_action(CURL_SOCKET_TIMEOUT) is due. */
static int on_timer(CURLM *m, long ms, void *ud)
{
    (void)m;
    net_sut *ns = ud;
    ns->deadline = ms < 0 ? -1 : mono_ns() + (int64_t)ms * 1000000;
    return 0;
}

static void wake_worker(net_sut *ns)
{
    uint64_t one = 1;
    ssize_t w = write(ns->efd, &one, sizeof one);
    (void)w; /* a full counter already wakes it */
}

/* Runs curl's due timers (under mmu): a transfer just added starts here, in the calling thread. */
static void run_timers(net_sut *ns)
{
    int running;
    for (int i = 0; i < 8 && ns->deadline >= 0 && ns->deadline <= mono_ns(); i++) {
        ns->deadline = -1;
        curl_multi_socket_action(ns->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
}

/* Finished transfers (under mmu): checked, their connection free again. */
static int reap(net_sut *ns)
{
    CURLMsg *m;
    int left, done = 0;
    while ((m = curl_multi_info_read(ns->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        net_xfer *x = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        CURLcode cc = m->data.result;
        curl_multi_remove_handle(ns->multi, x->h);
        for (net_xfer **pp = &ns->live; *pp; pp = &(*pp)->next)
            if (*pp == x) {
                *pp = x->next;
                break;
            }
        ns->nodes[x->node].busy--;
        atomic_fetch_sub(&ns->nlive, 1);
        finish(ns, x, cc, x->cerr);
        x->next = ns->spare;
        ns->spare = x;
        done++;
    }
    return done;
}

/* Sends what waits and drives curl until nothing is due (under mmu). */
static void pump(net_sut *ns)
{
    for (int round = 0; round < 64; round++) {
        dispatch(ns);
        run_timers(ns);
        if (!reap(ns))
            break; /* else a connection is free again: send what waits */
    }
}

/* Hands the ready sockets of ev to libcurl (under mmu): the answers that arrived are read and
 * completed there. The eventfd is drained by the QDL's thread only (drain): its wake-up is for
 * that thread. A socket may have been read already by the other thread (both may see it ready):
 * libcurl finds nothing to read then. */
static void take_events(net_sut *ns, const struct epoll_event *ev, int n, int drain)
{
    for (int i = 0; i < n; i++) {
        int fd = ev[i].data.fd;
        if (fd == ns->efd) {
            uint64_t v;
            ssize_t r = drain ? read(ns->efd, &v, sizeof v) : 0;
            (void)r;
            continue;
        }
        if ((size_t)fd < ns->nfd && !ns->want[fd]) { /* a socket curl does not watch now */
            reg_set(ns, fd, 0);
            continue;
        }
        int running, f = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                         (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                         (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
        curl_multi_socket_action(ns->multi, fd, f, &running);
    }
}

/* The QDL's thread: waits for the nodes' answers (and curl's timers), without mmu. */
static void *worker(void *arg)
{
    net_sut *ns = arg;
    struct epoll_event ev[32];
    pthread_mutex_lock(&ns->mmu);
    while (!atomic_load(&ns->stop)) {
        /* curl's timer, at most a second away (its own timers of a second or more, such as
         * the connect timeout, need no exact wake-up; shorter ones set by the issuing thread
         * wake this one, net_issue) */
        int64_t now = mono_ns(), until = now + 1000000000;
        if (ns->deadline >= 0 && ns->deadline < until)
            until = ns->deadline;
        ns->wait_until = until;
        pthread_mutex_unlock(&ns->mmu);
        /* queries the issuing thread left to this thread: sent before waiting (sleeping is set
         * first, and the issuing thread kicks before it looks at it: one of the two sees the
         * other, so a query is never left while this thread sleeps) */
        atomic_store(&ns->sleeping, 1);
        if (atomic_exchange(&ns->kicks, 0)) {
            atomic_store(&ns->sleeping, 0);
            pthread_mutex_lock(&ns->mmu);
            ns->wait_until = INT64_MIN;
            pump(ns);
            continue;
        }
        int n = epoll_wait(ns->ep, ev, 32, until <= now ? 0 : (int)((until - now + 999999) / 1000000));
        atomic_store(&ns->sleeping, 0);
        pthread_mutex_lock(&ns->mmu);
        ns->wait_until = INT64_MIN;
        take_events(ns, ev, n, 1);
        pump(ns);
    }
    pthread_mutex_unlock(&ns->mmu);
    return NULL;
}

static const char *net_name(void *ctx)
{
    net_sut *ns = ctx;
    ms_net_buf b = {0};
    ms_err e;
    int off = snprintf(ns->name, sizeof ns->name, "Network SUT (%zu node%s:", ns->nn, ns->nn == 1 ? "" : "s");
    for (size_t i = 0; i < ns->nn; i++) {
        b.len = 0;
        if (http_get(ns, &ns->nodes[i], "/name", &b, &e) != MS_OK) {
            fail(ns, "%s", e.msg);
            break;
        }
        if (strcmp((char *)b.data, ns->nodes[i].name) != 0) {
            fail(ns, "network SUT: node %s changed its name from '%s' to '%s'", ns->nodes[i].url, ns->nodes[i].name,
                 (char *)b.data);
            break;
        }
        if (off < (int)sizeof ns->name)
            off += snprintf(ns->name + off, sizeof ns->name - (size_t)off, "%s %s", i ? "," : "", ns->nodes[i].name);
    }
    if (off < (int)sizeof ns->name)
        snprintf(ns->name + off, sizeof ns->name - (size_t)off, ")");
    ms_net_buf_free(&b);
    return ns->name;
}

/* One frame of samples s[0..m) queued for node k (k = nn: for any node). */
static int queue_frame(net_sut *ns, lg_test *test, const lg_query_sample *s, size_t m, size_t k)
{
    net_item *it = calloc(1, sizeof *it);
    int bad = !it || !(it->ids = malloc(m * sizeof *it->ids)) || ms_net_req_begin(&it->frame, (uint32_t)m);
    for (size_t i = 0; i < m && !bad; i++) {
        it->ids[i] = s[i].id;
        /* the sample index, and the QSL's bytes of the sample when the nodes' SUT has a
         * dataset (else no data: the index is the sample) */
        const void *p = NULL;
        size_t sz = 0;
        if (ns->local && ns->local->data.sample(ns->local->priv, s[i].index, &p, &sz) != 0) {
            fail(ns, "network SUT: sample %zu is not in the %s QSL", (size_t)s[i].index, ns->local->data.dataset);
            item_free(it);
            return -1;
        }
        bad = ms_net_req_add(&it->frame, s[i].id, s[i].index, p, (uint32_t)sz);
    }
    if (bad) {
        item_free(it);
        fail(ns, "network SUT: out of memory for a query of %zu sample(s)", m);
        return -1;
    }
    it->test = test;
    it->n = m;
    pthread_mutex_lock(&ns->mu);
    net_item **head = k < ns->nn ? &ns->nodes[k].pend : &ns->pend,
             **tail = k < ns->nn ? &ns->nodes[k].pend_tail : &ns->pend_tail;
    if (*tail)
        (*tail)->next = it;
    else
        *head = it;
    *tail = it;
    pthread_mutex_unlock(&ns->mu);
    return 0;
}

/* A query goes whole to the node with a free connection and the fewest samples outstanding
 * when it is sent (dispatch); a query of at least 2 * chunk samples (Offline) is shared now
 * among up to n / chunk nodes, those with the fewest outstanding, in equal shares. Each node
 * issues its share as one query (one frame), unless it is above what the node takes at once
 * (max_query), which cuts it into several. */
static void net_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    net_sut *ns = ctx;
    size_t parts = n / ns->chunk;
    if (parts < 1)
        parts = 1;
    if (parts > ns->nn)
        parts = ns->nn;
    size_t off = 0;
    /* a whole query: for whichever node has a free connection first (dispatch), cut only above
     * what every node takes at once */
    for (size_t m; parts == 1 && off < n; off += m) {
        m = n - off < ns->max_query ? n - off : ns->max_query;
        if (queue_frame(ns, test, s + off, m, ns->nn) != 0)
            return;
    }
    pthread_mutex_lock(&ns->mu);
    uint64_t q = ++ns->queries;
    pthread_mutex_unlock(&ns->mu);
    for (size_t j = 0; j < parts && parts > 1; j++) {
        size_t share = n / parts + (j < n % parts), k = ns->nn;
        pthread_mutex_lock(&ns->mu);
        for (size_t i = 0; i < ns->nn; i++) /* the least busy of the nodes without a share yet */
            if (ns->nodes[i].query != q && (k == ns->nn || ns->nodes[i].outstanding < ns->nodes[k].outstanding))
                k = i;
        ns->nodes[k].query = q;
        ns->nodes[k].outstanding += share;
        pthread_mutex_unlock(&ns->mu);
        for (size_t m; share > 0; share -= m, off += m) {
            m = share < ns->nodes[k].max_query ? share : ns->nodes[k].max_query;
            if (queue_frame(ns, test, s + off, m, k) != 0)
                return;
        }
    }
    /* Who sends it. This thread, at once, when it can take the multi handle (the QDL's thread
     * is not using it: it sleeps in epoll_wait waiting for answers) and sending here keeps to
     * the LoadGen's schedule: nothing is in flight, or this thread's sends take at most half
     * of the time between its queries (averages of the last few). A hand-over to the QDL's
     * thread costs a wake-up, and on a busy machine that thread may wait for a CPU behind
     * this one (measured: the hand-over was most of the tail at 10,000 queries/s). Else (at
     * tens of thousands of queries a second, where a send per query here would make this
     * thread late) the QDL's thread sends (woken if it sleeps), and the queries that wait
     * meanwhile go together in one request. */
    int64_t t0 = mono_ns(), prev = atomic_exchange(&ns->last_issue, t0), gavg = atomic_load(&ns->gap_avg);
    if (prev) {
        gavg += (t0 - prev - gavg) / 8;
        atomic_store(&ns->gap_avg, gavg);
    }
    atomic_fetch_add(&ns->kicks, 1);
    if ((atomic_load(&ns->nlive) == 0 || (2 * atomic_load(&ns->send_avg) <= gavg)) &&
        pthread_mutex_trylock(&ns->mmu) == 0) {
        atomic_store(&ns->kicks, 0);
        pump(ns);
        /* answers that arrived meanwhile are read here, now: the QDL's thread, woken for them,
         * may still be waiting for a CPU (on 2 busy cores, for up to milliseconds) */
        struct epoll_event ev[16];
        int ne = epoll_wait(ns->ep, ev, 16, 0);
        if (ne > 0) {
            take_events(ns, ev, ne, 0);
            pump(ns);
        }
        int64_t savg = atomic_load(&ns->send_avg);
        atomic_store(&ns->send_avg, savg + (mono_ns() - t0 - savg) / 8);
        /* curl wants a timer before the one the QDL's thread sleeps until (rare: its own
         * timers are a second or more), or another thread kicked meanwhile */
        int wake = (ns->deadline >= 0 && ns->deadline < ns->wait_until) || atomic_load(&ns->kicks);
        pthread_mutex_unlock(&ns->mmu);
        if (wake)
            wake_worker(ns);
        return;
    }
    if (atomic_load(&ns->sleeping))
        wake_worker(ns);
}

static void net_destroy(void *priv)
{
    net_sut *ns = priv;
    if (!ns)
        return;
    if (ns->th_started) {
        atomic_store(&ns->stop, 1);
        wake_worker(ns);
        pthread_join(ns->th, NULL);
    }
    for (net_xfer *x = ns->live, *nx; x; x = nx) {
        nx = x->next;
        curl_multi_remove_handle(ns->multi, x->h);
        xfer_free(x);
    }
    for (net_xfer *x = ns->spare, *nx; x; x = nx) {
        nx = x->next;
        xfer_free(x);
    }
    for (size_t i = 0; i < ns->nn; i++)
        for (net_item *x = ns->nodes[i].pend, *nx; x; x = nx) {
            nx = x->next;
            item_free(x);
        }
    for (net_item *x = ns->pend, *nx; x; x = nx) {
        nx = x->next;
        item_free(x);
    }
    if (ns->multi)
        curl_multi_cleanup(ns->multi);
    free(ns->want);
    free(ns->reg);
    if (ns->ep >= 0)
        close(ns->ep);
    if (ns->efd >= 0)
        close(ns->efd);
    pthread_mutex_destroy(&ns->mmu);
    curl_slist_free_all(ns->hdrs);
    lg_sut_destroy(ns->local);
    for (size_t i = 0; i < ns->nn; i++) {
        free(ns->nodes[i].url);
        free(ns->nodes[i].query_url);
    }
    free(ns->nodes);
    free(ns->auth);
    pthread_mutex_destroy(&ns->mu);
    free(ns);
}

static const char *net_qsl_name(void *ctx)
{
    (void)ctx;
    return "Network SUT QSL (sample indices; the nodes hold the data)";
}

static int net_qsl_io(void *ctx, const lg_sample_index *idx, size_t n)
{
    (void)ctx, (void)idx, (void)n;
    return 0;
}

/* GET /info of one node: its name, QSL sizes, dataset and query size limit. */
static int node_info(net_sut *ns, net_node *nd, size_t *total, size_t *perf, char *dataset, size_t dn,
                     size_t *sample_size, ms_err *e)
{
    ms_net_buf b = {0};
    int rc = http_get(ns, nd, "/info", &b, e);
    if (rc != MS_OK) {
        ms_net_buf_free(&b);
        return rc;
    }
    json_error_t je;
    json_t *j = json_loadb((const char *)b.data, b.len, 0, &je);
    ms_net_buf_free(&b);
    json_t *nm = json_object_get(j, "name"), *t = json_object_get(j, "total_sample_count"),
           *p = json_object_get(j, "performance_sample_count");
    if (!json_is_string(nm) || !json_is_integer(t) || !json_is_integer(p) || json_integer_value(t) <= 0 ||
        json_integer_value(p) <= 0 || json_string_length(nm) == 0 || json_string_length(nm) >= sizeof nd->name) {
        json_decref(j);
        return ms_err_set(e, MS_ERUNTIME,
                          "network SUT: node %s: GET /info is not a node's JSON (expected name, "
                          "total_sample_count, performance_sample_count): is it `mlsubmit sut serve`?",
                          nd->url);
    }
    snprintf(nd->name, sizeof nd->name, "%s", json_string_value(nm));
    json_t *ds = json_object_get(j, "dataset"), *ss = json_object_get(j, "sample_size");
    snprintf(dataset, dn, "%s", json_is_string(ds) ? json_string_value(ds) : "");
    *sample_size = json_is_integer(ss) && json_integer_value(ss) > 0 ? (size_t)json_integer_value(ss) : 0;
    /* the most samples it takes in one query (its request size limit); the wire format's limit
     * when it does not say */
    json_t *mq = json_object_get(j, "max_query_samples");
    nd->max_query = MS_NET_MAX_SAMPLES;
    if (json_is_integer(mq) && json_integer_value(mq) > 0 && json_integer_value(mq) < (json_int_t)MS_NET_MAX_SAMPLES)
        nd->max_query = (size_t)json_integer_value(mq);
    *total = (size_t)json_integer_value(t);
    *perf = (size_t)json_integer_value(p);
    json_decref(j);
    return MS_OK;
}

static int net_create(lg_sut_instance *si, lg_sut_opts *o, const lg_sut_env *env, ms_err *e)
{
    int lrc = ms_lazy_curl_load("the network SUT", e);
    if (lrc != MS_OK)
        return lrc;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return ms_err_set(e, MS_ERUNTIME, "network SUT: libcurl cannot be initialised");
    net_sut *ns = calloc(1, sizeof *ns);
    if (!ns)
        return ms_err_oom(e);
    pthread_mutex_init(&ns->mu, NULL);
    pthread_mutex_init(&ns->mmu, NULL);
    ns->ep = ns->efd = -1;
    ns->deadline = -1;
    ns->wait_until = INT64_MIN;
    si->priv = ns;
    si->destroy = net_destroy;
    ns->si = si;
    uint64_t chunk = 1024;
    if (lg_sut_opt_u64(o, "chunk", 1, MS_NET_MAX_SAMPLES, &chunk, e) < 0)
        return MS_EUSAGE;
    ns->chunk = (size_t)chunk;
    uint64_t conns = 4;
    if (lg_sut_opt_u64(o, "conns", 1, 256, &conns, e) < 0)
        return MS_EUSAGE;
    ns->conns = (size_t)conns;
    const char *tf = lg_sut_opt_str(o, "token-file");
    if (tf) {
        char *tok = NULL;
        size_t tl;
        if (ms_read_file(tf, 1 << 16, &tok, &tl, e) != MS_OK)
            return ms_err_prefix(e, "--sut network: token-file");
        tok[strcspn(tok, "\r\n")] = '\0';
        size_t need = strlen(tok) + 32;
        ns->auth = malloc(need);
        if (!ns->auth) {
            free(tok);
            return ms_err_oom(e);
        }
        snprintf(ns->auth, need, "Authorization: Bearer %s", tok);
        free(tok);
    }
    for (size_t i = 0; i < o->n; i++) {
        const char *k = o->v[i].key;
        if (strncmp(k, "http://", 7) != 0 && strncmp(k, "https://", 8) != 0)
            continue;
        o->v[i].used = 1;
        net_node *nn = realloc(ns->nodes, (ns->nn + 1) * sizeof *nn);
        if (!nn)
            return ms_err_oom(e);
        ns->nodes = nn;
        memset(&nn[ns->nn], 0, sizeof *nn);
        size_t l = strlen(k);
        while (l > 0 && k[l - 1] == '/')
            l--;
        if (l > 1000)
            return ms_err_set(e, MS_EUSAGE, "--sut network: URL longer than 1000 characters");
        nn[ns->nn].url = strndup(k, l);
        if (!nn[ns->nn].url || !(nn[ns->nn].query_url = malloc(l + 8)))
            return ms_err_oom(e);
        snprintf(nn[ns->nn].query_url, l + 8, "%s/query", nn[ns->nn].url);
        ns->nn++;
    }
    if (ns->nn == 0)
        return ms_err_set(e, MS_EUSAGE,
                          "--sut network: expected network:URL[,URL...] (e.g. network:http://127.0.0.1:9001)");
    ns->hdrs = headers(ns, 1);
    if (!ns->hdrs)
        return ms_err_oom(e);
    size_t total = 0, perf = 0, ssize = 0;
    char dataset[64] = "";
    for (size_t i = 0; i < ns->nn; i++) {
        size_t t = 0, p = 0, sz = 0;
        char d[64];
        int rc = node_info(ns, &ns->nodes[i], &t, &p, d, sizeof d, &sz, e);
        if (rc != MS_OK)
            return rc;
        for (size_t j = 0; j < i; j++) {
            if (!strcmp(ns->nodes[j].url, ns->nodes[i].url))
                return ms_err_set(e, MS_EUSAGE, "--sut network: node %s is listed twice", ns->nodes[i].url);
            if (!strcmp(ns->nodes[j].name, ns->nodes[i].name))
                return ms_err_set(e, MS_EUSAGE,
                                  "--sut network: nodes %s and %s have the same name '%s' (give each its own "
                                  "with `sut serve --name`)",
                                  ns->nodes[j].url, ns->nodes[i].url, ns->nodes[i].name);
        }
        if (i && (t != total || p != perf))
            return ms_err_set(e, MS_ERUNTIME,
                              "network SUT: node %s has %zu samples (%zu in performance), node %s has %zu (%zu)",
                              ns->nodes[i].url, t, p, ns->nodes[0].url, total, perf);
        if (i && (strcmp(d, dataset) || sz != ssize))
            return ms_err_set(e, MS_ERUNTIME, "network SUT: node %s serves dataset '%s', node %s '%s'",
                              ns->nodes[i].url, d, ns->nodes[0].url, dataset);
        total = t;
        if (i == 0 || ns->nodes[i].max_query < ns->max_query)
            ns->max_query = ns->nodes[i].max_query;
        perf = p;
        ssize = sz;
        snprintf(dataset, sizeof dataset, "%s", d);
    }
    if (dataset[0]) {
        /* the nodes' SUT infers from the sample bytes: the LoadGen node loads the same dataset
         * (its --data) and sends each sample's bytes with the query */
        ms_err le;
        ns->local = lg_sut_create(dataset, env, &le);
        if (!ns->local)
            return ms_err_set(e, le.code ? le.code : MS_ERUNTIME,
                              "network SUT: the nodes' SUT infers from the bytes of each sample (dataset '%s'); "
                              "the LoadGen sends them, so it needs that dataset too (--data DIR): %s",
                              dataset, le.msg);
        if (!ns->local->data.sample || ns->local->data.sample_size != ssize || !ns->local->has_qsl)
            return ms_err_set(e, MS_ERUNTIME, "network SUT: dataset '%s' here has %zu-byte samples, the nodes %zu",
                              dataset, ns->local->data.sample_size, ssize);
        if (ns->local->qsl.total_sample_count > total)
            return ms_err_set(e, MS_EUSAGE, "network SUT: the %s QSL here has %zu samples, the nodes only %zu",
                              dataset, ns->local->qsl.total_sample_count, total);
        si->qsl = ns->local->qsl;
        si->has_qsl = 1;
    }
    if (ns->local) {
        /* its QSL is the LoadGen's */
    } else if (!env || env->total_sample_count == 0) {
        si->qsl = (lg_qsl){ns, net_qsl_name, total, perf, net_qsl_io, net_qsl_io};
        si->has_qsl = 1;
    } else if (env->total_sample_count > total) {
        return ms_err_set(e, MS_EUSAGE, "--total-samples %zu: the nodes have only %zu samples",
                          env->total_sample_count, total);
    }
    ns->multi = curl_multi_init();
    if (!ns->multi)
        return ms_err_oom(e);
    curl_multi_setopt(ns->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)ns->conns);
    curl_multi_setopt(ns->multi, CURLMOPT_MAXCONNECTS, (long)(ns->conns * ns->nn));
    curl_multi_setopt(ns->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(ns->multi, CURLMOPT_SOCKETDATA, ns);
    curl_multi_setopt(ns->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(ns->multi, CURLMOPT_TIMERDATA, ns);
    ns->ep = epoll_create1(EPOLL_CLOEXEC);
    ns->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event wev = {.events = EPOLLIN, .data.fd = ns->efd};
    if (ns->ep < 0 || ns->efd < 0 || epoll_ctl(ns->ep, EPOLL_CTL_ADD, ns->efd, &wev) != 0)
        return ms_err_errno(e, MS_ERUNTIME, errno, "network SUT: cannot make its event loop");
    if (pthread_create(&ns->th, NULL, worker, ns) != 0)
        return ms_err_set(e, MS_ERUNTIME, "network SUT: cannot start its thread");
    ns->th_started = 1;
    si->sut = (lg_sut){ns, net_name, net_issue, lg_sut_flush_none};
    return MS_OK;
}

LG_SUT_DEFINE(network, "Network division: the QDL, sends every sample to SUT nodes (mlsubmit sut serve)",
              "               URL[,URL...]   nodes, e.g. network:http://127.0.0.1:9001,http://127.0.0.1:9002\n"
              "               token-file=F   send \"Authorization: Bearer <first line of F>\"\n"
              "               chunk=N        a query of at least 2N samples is shared among the nodes (default 1024)\n"
              "               conns=N        HTTP/1.1 connections per node (default 4)\n",
              net_create)
