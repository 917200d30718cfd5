/* The LoadGen's four output files (reference logging.cc and results.cc), written through temporary
 * files that are renamed into place when the test ends. Detail entries are formatted on the
 * calling thread and appended under a mutex, with the time of the call. Internal to the LoadGen. */
#ifndef LG_LOGGER_H
#define LG_LOGGER_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "loadgen/loadgen.h"

typedef struct lg_logger lg_logger;

int lg_logger_open(lg_logger **out, const lg_log_settings *ls, const char *test_datetime,
                   int token_mode, int first_token_scenario, const lg_run_options *ro, ms_err *e);
/* Writes the trailers, closes and renames all files. Returns MS_OK or an I/O error. */
int lg_logger_close(lg_logger *L, ms_err *e);
void lg_logger_free(lg_logger *L);

/* Detail entries as the text lines of LoadGen 0.5/0.7 instead of :::MLLOG JSON. */
void lg_logger_set_text(lg_logger *L, int on);

/* Nanoseconds since the log files were opened (the time_ms origin). */
int64_t lg_logger_now(const lg_logger *L);
int64_t lg_logger_origin_mono(const lg_logger *L);

/* Detail entries. t = lg_logger_now() at the logging call; src_line is informational. */
void lg_detail_str(lg_logger *L, int64_t t, const char *key, const char *value, int line);
void lg_detail_i64(lg_logger *L, int64_t t, const char *key, int64_t value, int line);
void lg_detail_u64(lg_logger *L, int64_t t, const char *key, uint64_t value, int line);
void lg_detail_double(lg_logger *L, int64_t t, const char *key, double value, int line);
void lg_detail_bool(lg_logger *L, int64_t t, const char *key, int value, int line);
/* A pre-formatted JSON value (lists, maps). */
void lg_detail_raw(lg_logger *L, int64_t t, const char *key, const char *json, size_t len, int line);
/* A free-text entry of the 0.5/0.7 text detail log (nothing in the :::MLLOG format); the
 * keyed entries are left out of the text log except errors and warnings. */
void lg_detail_text(lg_logger *L, int64_t t, const char *msg, int is_error, int line);
int lg_logger_is_text(const lg_logger *L);
void lg_detail_error(lg_logger *L, int64_t t, const char *key, const char *msg, int line);
void lg_detail_warning(lg_logger *L, int64_t t, const char *msg, int line);
void lg_detail_flush(lg_logger *L);

size_t lg_logger_errors(const lg_logger *L);
size_t lg_logger_warnings(const lg_logger *L);
/* Copy of the first error message (empty if none). */
void lg_logger_first_error(lg_logger *L, char *buf, size_t n);

/* Summary text (already formatted); appended as is. */
void lg_summary_write(lg_logger *L, const char *text, size_t len);

/* Accuracy log entry (thread-safe). token_data may be NULL. */
void lg_accuracy_entry(lg_logger *L, uint64_t seq_id, uint64_t qsl_idx, const void *data,
                       size_t size, const void *token_data, size_t token_size, int64_t n_tokens);

/* Trace (only when enabled): a complete event or a sample begin/end pair. Times in ns since
 * the origin. */
int lg_trace_enabled(const lg_logger *L);
void lg_trace_complete(lg_logger *L, const char *name, int64_t t0, int64_t t1);
typedef struct lg_trace_sample_ev {
    uint64_t seq, query_seq, idx;
    int64_t scheduled, issued, completed;
    int64_t first_token;              /* INT64_MIN: none */
    int32_t issue_tid, done_tid, first_token_tid; /* 0: unknown */
} lg_trace_sample_ev;
/* The reference's async Sample begin/end pair, plus instant events on the threads that issued
 * the sample, sent its first token and completed it (chrome://tracing / Perfetto show them per
 * thread). */
void lg_trace_sample(lg_logger *L, const lg_trace_sample_ev *ev);

/* Formats a double as the reference's streams do (%g, precision 6). */
void lg_fmt_g(char *buf, size_t n, double v);

#endif
