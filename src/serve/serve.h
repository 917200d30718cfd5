/* mlsubmit serve: a local web UI and JSON API over an index (docs/index-schema.md) and the runs
 * database (docs/runs-schema.md), served with libmicrohttpd. The databases are opened
 * read-only; every query is parameterised; request sizes are bounded. */
#ifndef MS_SERVE_H
#define MS_SERVE_H

#include <stddef.h>

#include "common/error.h"

typedef struct ms_serve_opts {
    const char *index_db;      /* NULL: no index pages */
    const char *runs_db;       /* NULL: no runs pages */
    const char *listen;        /* "HOST:PORT" (IPv4 or localhost), default 127.0.0.1:8080 */
    double max_seconds;        /* stop after this long (0 = until SIGINT/SIGTERM) */
    /* told the URL once listening (e.g. to print it) */
    void (*on_listen)(void *ctx, const char *url, int loopback);
    void *on_listen_ctx;
} ms_serve_opts;

/* Serves until SIGINT/SIGTERM or max_seconds (the caller blocks those signals' default action
 * only for the duration). Returns MS_OK, MS_EUSAGE (bad --listen), MS_EINPUT (a database cannot
 * be opened), MS_ERUNTIME (cannot bind). */
int ms_serve(const ms_serve_opts *o, ms_err *e);

/* ---- the request layer, callable without a socket (unit tests) ---- */

typedef struct ms_serve_ctx ms_serve_ctx;

ms_serve_ctx *ms_serve_ctx_new(const char *index_db, const char *runs_db, ms_err *e);
void ms_serve_ctx_free(ms_serve_ctx *c);

typedef struct ms_serve_param {
    const char *name, *value;
} ms_serve_param;

typedef struct ms_serve_response {
    int status;
    const char *content_type;
    char *body;                /* malloc'd */
    size_t len;
    char *file_path;           /* or: serve this file (malloc'd) */
} ms_serve_response;

/* Handles GET path?params; fills resp (status, type, body). */
void ms_serve_handle(ms_serve_ctx *c, const char *path, const ms_serve_param *params, size_t nparams,
                     ms_serve_response *resp);
void ms_serve_response_free(ms_serve_response *r);

#endif
