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
 * - issue_query: a query's samples are cut into requests of at most chunk samples (default
 *   1024; a query is never merged with another), each sent to the node with the fewest samples
 *   outstanding.
 * - faults (a node dies, answers an error status, garbage, or an id it was not sent): the
 *   instance's fatal callback (lg_sut_instance_on_fatal) is told which node and how many samples were lost (the CLI ends the
 *   test there, logs marked incomplete); without one the samples are never completed and the
 *   LoadGen's --timeout ends the test. */
#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "loadgen/suts/sut.h"
#include "net/net.h"

enum { NET_CONNS = 32 }; /* connections per node */

typedef struct net_node {
    char *url;            /* base URL without a trailing '/' */
    char name[256];
    uint64_t outstanding; /* samples sent, not yet answered (under net_sut.mu) */
} net_node;

typedef struct net_xfer {
    struct net_sut *ns;
    size_t node;
    CURL *h;
    lg_test *test;
    ms_net_buf req, resp;
    uint64_t *ids;        /* the request's response ids, sorted (for checking the answer) */
    size_t n;
    char cerr[CURL_ERROR_SIZE];
    struct net_xfer *next;
} net_xfer;

typedef struct net_sut {
    net_node *nodes;
    size_t nn;
    size_t chunk;
    char *auth;           /* "Authorization: Bearer ..." or NULL */
    struct curl_slist *hdrs; /* headers of every query request */
    char name[4096];
    CURLM *multi;
    pthread_t th;
    int th_started;
    pthread_mutex_t mu;
    net_xfer *pend, *pend_tail;
    net_xfer *live;       /* in the multi handle (worker thread only) */
    size_t nlive;
    _Atomic int stop;
    _Atomic int failed;
    lg_sut_instance *si;  /* for its fatal callback */
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
    free(x);
}

static void fail(net_sut *ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(net_sut *ns, const char *fmt, ...)
{
    if (atomic_exchange(&ns->failed, 1))
        return; /* the first fault is the one reported */
    char msg[1500];
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

/* A finished transfer: check and hand the responses to the LoadGen. */
static void finish(net_sut *ns, net_xfer *x, CURLcode cc, const char *cerr)
{
    net_node *nd = &ns->nodes[x->node];
    pthread_mutex_lock(&ns->mu);
    uint64_t lost = nd->outstanding;
    nd->outstanding -= x->n;
    pthread_mutex_unlock(&ns->mu);
    long status = 0;
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
    if (cc != CURLE_OK) {
        fail(ns, "network SUT: node '%s' (%s) failed mid-run: %s; %" PRIu64 " sample(s) sent to it were lost",
             nd->name, nd->url, cerr[0] ? cerr : curl_easy_strerror(cc), lost);
        return;
    }
    if (status != 200) {
        ms_net_buf_put(&x->resp, "", 1);
        char *t = (char *)x->resp.data;
        if (t)
            t[strcspn(t, "\r\n")] = '\0';
        fail(ns, "network SUT: node '%s' (%s) answered a query with HTTP %ld (%s); %" PRIu64 " sample(s) lost",
             nd->name, nd->url, status, t ? t : "", lost);
        return;
    }
    ms_err e;
    ms_net_result *r = NULL;
    size_t n = 0;
    if (ms_net_resp_decode(x->resp.data, x->resp.len, &r, &n, &e) != MS_OK) {
        fail(ns, "network SUT: node '%s' (%s) answered garbage: %s; %" PRIu64 " sample(s) lost", nd->name, nd->url,
             e.msg, lost);
        return;
    }
    if (n != x->n) {
        fail(ns, "network SUT: node '%s' (%s) answered %zu sample(s) to a query of %zu", nd->name, nd->url, n, x->n);
        free(r);
        return;
    }
    unsigned char *seen = calloc(n ? n : 1, 1);
    lg_response *lr = calloc(n ? n : 1, sizeof *lr);
    if (!seen || !lr) {
        free(seen);
        free(lr);
        free(r);
        fail(ns, "network SUT: out of memory");
        return;
    }
    size_t nft = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t *p = bsearch(&r[i].id, x->ids, x->n, sizeof *x->ids, cmp_u64);
        if (!p || seen[p - x->ids]) {
            fail(ns, "network SUT: node '%s' (%s) answered %s id %" PRIu64 " (sample %zu of its response)",
                 nd->name, nd->url, p ? "twice the" : "an unknown", r[i].id, i);
            free(seen);
            free(lr);
            free(r);
            return;
        }
        seen[p - x->ids] = 1;
        if (r[i].has_first_token) {
            lr[nft++] = (lg_response){(lg_response_id)r[i].id, (uintptr_t)r[i].first_token,
                                      r[i].first_token_size, r[i].n_tokens};
        }
    }
    if (nft)
        lg_first_token_complete(x->test, lr, nft);
    for (size_t i = 0; i < n; i++)
        lr[i] = (lg_response){(lg_response_id)r[i].id, (uintptr_t)r[i].data, r[i].size, r[i].n_tokens};
    lg_query_samples_complete(x->test, lr, n);
    free(seen);
    free(lr);
    free(r);
}

static void *worker(void *arg)
{
    net_sut *ns = arg;
    while (!atomic_load(&ns->stop)) {
        /* at most as many transfers in libcurl as it has connections (NET_CONNS per node):
         * the rest wait here, in order (libcurl's own pending list gets slow when long) */
        pthread_mutex_lock(&ns->mu);
        while (ns->pend && ns->nlive < NET_CONNS * ns->nn) {
            net_xfer *p = ns->pend;
            ns->pend = p->next;
            if (!ns->pend)
                ns->pend_tail = NULL;
            p->next = ns->live;
            ns->live = p;
            ns->nlive++;
            curl_multi_add_handle(ns->multi, p->h);
        }
        pthread_mutex_unlock(&ns->mu);
        int running = 0;
        curl_multi_perform(ns->multi, &running);
        CURLMsg *m;
        int left;
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
            ns->nlive--;
            finish(ns, x, cc, x->cerr);
            xfer_free(x);
        }
        curl_multi_poll(ns->multi, NULL, 0, 100, NULL);
    }
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

static net_xfer *make_xfer(net_sut *ns, lg_test *test, const lg_query_sample *s, size_t n)
{
    net_xfer *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->ns = ns;
    x->test = test;
    x->n = n;
    x->ids = malloc(n * sizeof *x->ids);
    if (!x->ids || ms_net_req_begin(&x->req, (uint32_t)n)) {
        xfer_free(x);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        x->ids[i] = s[i].id;
        /* the sample index; these SUTs take their sample data from their own QSL */
        if (ms_net_req_add(&x->req, s[i].id, s[i].index, NULL, 0)) {
            xfer_free(x);
            return NULL;
        }
    }
    qsort(x->ids, n, sizeof *x->ids, cmp_u64);
    return x;
}

static void net_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    net_sut *ns = ctx;
    for (size_t off = 0; off < n; off += ns->chunk) {
        size_t m = n - off < ns->chunk ? n - off : ns->chunk;
        net_xfer *x = make_xfer(ns, test, s + off, m);
        if (x)
            x->h = curl_easy_init();
        if (!x || !x->h) {
            xfer_free(x);
            fail(ns, "network SUT: out of memory for a query of %zu sample(s)", m);
            return;
        }
        pthread_mutex_lock(&ns->mu);
        size_t best = 0;
        for (size_t i = 1; i < ns->nn; i++)
            if (ns->nodes[i].outstanding < ns->nodes[best].outstanding)
                best = i;
        ns->nodes[best].outstanding += m;
        x->node = best;
        pthread_mutex_unlock(&ns->mu);
        char url[1200];
        snprintf(url, sizeof url, "%s/query", ns->nodes[best].url);
        curl_easy_setopt(x->h, CURLOPT_URL, url);
        curl_easy_setopt(x->h, CURLOPT_POST, 1L);
        curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, (char *)x->req.data);
        curl_easy_setopt(x->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->req.len);
        curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(x->h, CURLOPT_WRITEDATA, &x->resp);
        curl_easy_setopt(x->h, CURLOPT_PRIVATE, (char *)x);
        curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(x->h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
        curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, ns->hdrs);
        curl_easy_setopt(x->h, CURLOPT_ERRORBUFFER, x->cerr);
        pthread_mutex_lock(&ns->mu);
        if (ns->pend_tail)
            ns->pend_tail->next = x;
        else
            ns->pend = x;
        ns->pend_tail = x;
        pthread_mutex_unlock(&ns->mu);
    }
    curl_multi_wakeup(ns->multi);
}

static void net_flush(void *ctx)
{
    (void)ctx;
}

static void net_destroy(void *priv)
{
    net_sut *ns = priv;
    if (!ns)
        return;
    if (ns->th_started) {
        atomic_store(&ns->stop, 1);
        curl_multi_wakeup(ns->multi);
        pthread_join(ns->th, NULL);
    }
    for (net_xfer *x = ns->live, *nx; x; x = nx) {
        nx = x->next;
        curl_multi_remove_handle(ns->multi, x->h);
        xfer_free(x);
    }
    for (net_xfer *x = ns->pend, *nx; x; x = nx) {
        nx = x->next;
        xfer_free(x);
    }
    if (ns->multi)
        curl_multi_cleanup(ns->multi);
    curl_slist_free_all(ns->hdrs);
    for (size_t i = 0; i < ns->nn; i++)
        free(ns->nodes[i].url);
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

/* GET /info of one node: its name and QSL sizes. */
static int node_info(net_sut *ns, net_node *nd, size_t *total, size_t *perf, ms_err *e)
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
    *total = (size_t)json_integer_value(t);
    *perf = (size_t)json_integer_value(p);
    json_decref(j);
    return MS_OK;
}

static int net_create(lg_sut_instance *si, lg_sut_opts *o, const lg_sut_env *env, ms_err *e)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return ms_err_set(e, MS_ERUNTIME, "network SUT: libcurl cannot be initialised");
    net_sut *ns = calloc(1, sizeof *ns);
    if (!ns)
        return ms_err_oom(e);
    pthread_mutex_init(&ns->mu, NULL);
    si->priv = ns;
    si->destroy = net_destroy;
    ns->si = si;
    uint64_t chunk = 1024;
    if (lg_sut_opt_u64(o, "chunk", 1, MS_NET_MAX_SAMPLES, &chunk, e) < 0)
        return MS_EUSAGE;
    ns->chunk = (size_t)chunk;
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
        if (!nn[ns->nn].url)
            return ms_err_oom(e);
        ns->nn++;
    }
    if (ns->nn == 0)
        return ms_err_set(e, MS_EUSAGE,
                          "--sut network: expected network:URL[,URL...] (e.g. network:http://127.0.0.1:9001)");
    ns->hdrs = headers(ns, 1);
    if (!ns->hdrs)
        return ms_err_oom(e);
    size_t total = 0, perf = 0;
    for (size_t i = 0; i < ns->nn; i++) {
        size_t t = 0, p = 0;
        int rc = node_info(ns, &ns->nodes[i], &t, &p, e);
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
        total = t;
        perf = p;
    }
    if (!env || env->total_sample_count == 0) {
        si->qsl = (lg_qsl){ns, net_qsl_name, total, perf, net_qsl_io, net_qsl_io};
        si->has_qsl = 1;
    } else if (env->total_sample_count > total) {
        return ms_err_set(e, MS_EUSAGE, "--total-samples %zu: the nodes have only %zu samples",
                          env->total_sample_count, total);
    }
    ns->multi = curl_multi_init();
    if (!ns->multi)
        return ms_err_oom(e);
    curl_multi_setopt(ns->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)NET_CONNS);
    if (pthread_create(&ns->th, NULL, worker, ns) != 0)
        return ms_err_set(e, MS_ERUNTIME, "network SUT: cannot start its thread");
    ns->th_started = 1;
    si->sut = (lg_sut){ns, net_name, net_issue, net_flush};
    return MS_OK;
}

LG_SUT_DEFINE(network, "Network division: the QDL, sends every sample to SUT nodes (mlsubmit sut serve)",
              "               URL[,URL...]   nodes, e.g. network:http://127.0.0.1:9001,http://127.0.0.1:9002\n"
              "               token-file=F   send \"Authorization: Bearer <first line of F>\"\n"
              "               chunk=N        most samples per request (default 1024; Offline queries are split)\n",
              net_create)
