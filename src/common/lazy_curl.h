/* libcurl for the network SUT (src/loadgen/suts/network.c), loaded when first needed:
 * common/lazylib.h. Include this header instead of <curl/curl.h>; call ms_lazy_curl_load() where
 * the code path that uses it begins. */
#ifndef MS_LAZY_CURL_H
#define MS_LAZY_CURL_H

#include <curl/curl.h>

#include "common/lazylib.h"

/* Every libcurl function mlsubmit calls (a new one: add it here and to the renaming below). */
#define MS_CURL_FUNCS(X, a) \
    X(a, curl_global_init) \
    X(a, curl_easy_init) \
    X(a, curl_easy_setopt) \
    X(a, curl_easy_perform) \
    X(a, curl_easy_getinfo) \
    X(a, curl_easy_cleanup) \
    X(a, curl_easy_strerror) \
    X(a, curl_slist_append) \
    X(a, curl_slist_free_all) \
    X(a, curl_multi_init) \
    X(a, curl_multi_setopt) \
    X(a, curl_multi_add_handle) \
    X(a, curl_multi_remove_handle) \
    X(a, curl_multi_perform) \
    X(a, curl_multi_poll) \
    X(a, curl_multi_wakeup) \
    X(a, curl_multi_info_read) \
    X(a, curl_multi_socket_action) \
    X(a, curl_multi_cleanup)

/* ms_lazy_curl and ms_lazy_curl_load(user, e): MS_OK, or MS_ERUNTIME and a message naming the
 * library; the slot numbers and pointer types of the functions */
MS_LAZY_DECLARE(curl, CURL)

/* From here on the names call through the table. curl.h made the three option setters
 * type-checking macros: they are replaced too. */
#define curl_global_init MS_LAZY_FN(curl, CURL, curl_global_init)
#define curl_easy_init MS_LAZY_FN(curl, CURL, curl_easy_init)
#undef curl_easy_setopt
#define curl_easy_setopt MS_LAZY_FN(curl, CURL, curl_easy_setopt)
#define curl_easy_perform MS_LAZY_FN(curl, CURL, curl_easy_perform)
#undef curl_easy_getinfo
#define curl_easy_getinfo MS_LAZY_FN(curl, CURL, curl_easy_getinfo)
#define curl_easy_cleanup MS_LAZY_FN(curl, CURL, curl_easy_cleanup)
#define curl_easy_strerror MS_LAZY_FN(curl, CURL, curl_easy_strerror)
#define curl_slist_append MS_LAZY_FN(curl, CURL, curl_slist_append)
#define curl_slist_free_all MS_LAZY_FN(curl, CURL, curl_slist_free_all)
#define curl_multi_init MS_LAZY_FN(curl, CURL, curl_multi_init)
#undef curl_multi_setopt
#define curl_multi_setopt MS_LAZY_FN(curl, CURL, curl_multi_setopt)
#define curl_multi_add_handle MS_LAZY_FN(curl, CURL, curl_multi_add_handle)
#define curl_multi_remove_handle MS_LAZY_FN(curl, CURL, curl_multi_remove_handle)
#define curl_multi_perform MS_LAZY_FN(curl, CURL, curl_multi_perform)
#define curl_multi_poll MS_LAZY_FN(curl, CURL, curl_multi_poll)
#define curl_multi_wakeup MS_LAZY_FN(curl, CURL, curl_multi_wakeup)
#define curl_multi_info_read MS_LAZY_FN(curl, CURL, curl_multi_info_read)
#define curl_multi_socket_action MS_LAZY_FN(curl, CURL, curl_multi_socket_action)
#define curl_multi_cleanup MS_LAZY_FN(curl, CURL, curl_multi_cleanup)

#endif
