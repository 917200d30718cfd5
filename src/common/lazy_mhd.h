/* libmicrohttpd for `mlsubmit serve` and `mlsubmit node` (src/serve/http.c, src/net/node.c),
 * loaded when first needed: common/lazylib.h. Include this header instead of <microhttpd.h>;
 * call ms_lazy_mhd_load() where the code path that uses it begins. */
#ifndef MS_LAZY_MHD_H
#define MS_LAZY_MHD_H

#include <microhttpd.h>

#include "common/lazylib.h"

/* Every libmicrohttpd function mlsubmit calls (a new one: add it here and to the renaming below). */
#define MS_MHD_FUNCS(X, a) \
    X(a, MHD_start_daemon) \
    X(a, MHD_stop_daemon) \
    X(a, MHD_get_daemon_info) \
    X(a, MHD_lookup_connection_value) \
    X(a, MHD_get_connection_values) \
    X(a, MHD_get_connection_info) \
    X(a, MHD_create_response_from_buffer) \
    X(a, MHD_create_response_from_fd) \
    X(a, MHD_create_response_from_callback) \
    X(a, MHD_add_response_header) \
    X(a, MHD_queue_response) \
    X(a, MHD_destroy_response)

/* ms_lazy_mhd and ms_lazy_mhd_load(user, e): MS_OK, or MS_ERUNTIME and a message naming the
 * library; the slot numbers and pointer types of the functions */
MS_LAZY_DECLARE(mhd, MHD)

/* From here on the names call through the table. */
#define MHD_start_daemon MS_LAZY_FN(mhd, MHD, MHD_start_daemon)
#define MHD_stop_daemon MS_LAZY_FN(mhd, MHD, MHD_stop_daemon)
#define MHD_get_daemon_info MS_LAZY_FN(mhd, MHD, MHD_get_daemon_info)
#define MHD_lookup_connection_value MS_LAZY_FN(mhd, MHD, MHD_lookup_connection_value)
#define MHD_get_connection_values MS_LAZY_FN(mhd, MHD, MHD_get_connection_values)
#define MHD_get_connection_info MS_LAZY_FN(mhd, MHD, MHD_get_connection_info)
#define MHD_create_response_from_buffer MS_LAZY_FN(mhd, MHD, MHD_create_response_from_buffer)
#define MHD_create_response_from_fd MS_LAZY_FN(mhd, MHD, MHD_create_response_from_fd)
#define MHD_create_response_from_callback MS_LAZY_FN(mhd, MHD, MHD_create_response_from_callback)
#define MHD_add_response_header MS_LAZY_FN(mhd, MHD, MHD_add_response_header)
#define MHD_queue_response MS_LAZY_FN(mhd, MHD, MHD_queue_response)
#define MHD_destroy_response MS_LAZY_FN(mhd, MHD, MHD_destroy_response)

#endif
