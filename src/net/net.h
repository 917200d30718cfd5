/* mlsubmit network SUT: the wire format of the Query Dispatch Library (docs/NETWORK.md) and the
 * SUT node that serves a reference SUT over HTTP/1.1 (libmicrohttpd).
 *
 * The LoadGen side (the QDL) is the reference SUT `network` in src/loadgen/suts/network.c
 * (libcurl's multi interface); both sides use the encoders and decoders below, so the format
 * lives in one place. */
#ifndef MS_NET_H
#define MS_NET_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "loadgen/loadgen.h"

/* ---- wire format (little-endian; docs/NETWORK.md has the byte layout) ----------------------- */

#define MS_NET_REQ_MAGIC "MSQ1"
#define MS_NET_RESP_MAGIC "MSR1"
#define MS_NET_MAX_SAMPLES 1048576u     /* samples in one request or response */

typedef struct ms_net_sample {           /* one sample of a query request */
    uint64_t id;                         /* the LoadGen's response id, echoed back */
    uint64_t index;                      /* sample index in the QSL */
    const uint8_t *data;                 /* sample bytes (may be empty), points into the body */
    uint32_t size;
} ms_net_sample;

typedef struct ms_net_result {           /* one record of a query response */
    uint64_t id;
    int64_t n_tokens;
    int has_first_token;
    const uint8_t *first_token;          /* points into the body */
    uint32_t first_token_size;
    const uint8_t *data;                 /* payload, points into the body */
    uint32_t size;
    int is_first_token;                  /* flag 2: the sample's first token (in data), not its
                                          * completion; a completion follows in a later record */
} ms_net_result;

/* Appends an encoded request / response to a growing buffer (ms_buf of common/buf.h is not
 * used so that the fuzz harnesses need nothing else). Return 0 or -1 (out of memory). */
typedef struct ms_net_buf {
    uint8_t *data;
    size_t len, cap;
} ms_net_buf;
int ms_net_buf_put(ms_net_buf *b, const void *p, size_t n);
void ms_net_buf_free(ms_net_buf *b);

int ms_net_req_begin(ms_net_buf *b, uint32_t n);
int ms_net_req_add(ms_net_buf *b, uint64_t id, uint64_t index, const void *data, uint32_t size);
int ms_net_resp_begin(ms_net_buf *b, uint32_t n);
int ms_net_resp_add(ms_net_buf *b, const ms_net_result *r);
/* A response frame appended to what b holds (a stream of frames): ms_net_resp_open writes its
 * header with a count of 0 and says where; records follow (ms_net_resp_add); ms_net_resp_close
 * sets the count. */
int ms_net_resp_open(ms_net_buf *b, size_t *hdr);
void ms_net_resp_close(ms_net_buf *b, size_t hdr, uint32_t n);

/* Decoders of one whole frame (the body is exactly one frame): check every length against the
 * body; *out (malloc'ed, caller frees) points into body. Return MS_OK, or MS_EINPUT with a
 * message saying which byte offset is wrong and why. */
int ms_net_req_decode(const uint8_t *body, size_t len, ms_net_sample **out, size_t *n, ms_err *e);
int ms_net_resp_decode(const uint8_t *body, size_t len, ms_net_result **out, size_t *n, ms_err *e);
/* A request body is one or more frames back to back (one per query, or per part of a query
 * cut at chunk samples); a response body is a stream of frames sent as samples complete
 * (chunked transfer). These decode the frame at the start of body and set *used to its length;
 * the response one returns MS_NET_MORE (nothing allocated) when the frame is not complete yet. */
#define MS_NET_MORE 1000
int ms_net_req_decode_frame(const uint8_t *body, size_t len, ms_net_sample **out, size_t *n, size_t *used,
                            ms_err *e);
int ms_net_resp_decode_frame(const uint8_t *body, size_t len, ms_net_result **out, size_t *n, size_t *used,
                             ms_err *e);

/* ---- the SUT node (`mlsubmit sut serve`) ----------------------------------------------------- */

typedef struct ms_node_options {
    const char *listen_addr;      /* IPv4 address to bind; default 127.0.0.1 */
    unsigned port;                /* 0 = any free port (see ms_node_port) */
    const char *name;             /* node name returned by GET /name (unique per node) */
    const char *token;            /* NULL = no token; else "Authorization: Bearer <token>" */
    size_t max_body;              /* bigger requests get 413 (default 64 MiB) */
    unsigned max_connections;     /* concurrent connections (default 64) */
} ms_node_options;

typedef struct ms_node ms_node;

/* Serves si (its QSL is loaded whole at start). The node runs in its own threads until
 * ms_node_stop. */
ms_node *ms_node_start(lg_sut_instance *si, const ms_node_options *o, ms_err *e);
unsigned ms_node_port(const ms_node *n);
uint64_t ms_node_samples_served(const ms_node *n);
/* issue_query calls the node made: one per frame of the requests (a query, or a node's share) */
uint64_t ms_node_queries_issued(const ms_node *n);
/* Stops accepting, fails queries still waiting for the SUT (503), joins the threads. */
void ms_node_stop(ms_node *n);
/* Frees the node (stopping it first): call after destroying the SUT, which may complete into
 * the node's sink until then. */
void ms_node_free(ms_node *n);

#endif
