/* SQLite for the runs database, the report index and `serve` (src/runs/, src/report/,
 * src/serve/), loaded when first needed: common/lazylib.h. Mapping and relocating libsqlite3 took
 * about 0.3 ms of every start of the binary, a twentieth of a check of a small round, which never
 * opens a database. Include this header instead of <sqlite3.h>; call ms_lazy_sqlite_load() where
 * the code path that opens a database begins. */
#ifndef MS_LAZY_SQLITE_H
#define MS_LAZY_SQLITE_H

#include <sqlite3.h>

#include "common/lazylib.h"

/* Every SQLite function mlsubmit calls (a new one: add it here and to the renaming below). */
#define MS_SQLITE_FUNCS(X, a) \
    X(a, sqlite3_bind_double) \
    X(a, sqlite3_bind_int) \
    X(a, sqlite3_bind_int64) \
    X(a, sqlite3_bind_null) \
    X(a, sqlite3_bind_text) \
    X(a, sqlite3_busy_timeout) \
    X(a, sqlite3_changes) \
    X(a, sqlite3_clear_bindings) \
    X(a, sqlite3_close) \
    X(a, sqlite3_column_count) \
    X(a, sqlite3_column_double) \
    X(a, sqlite3_column_int) \
    X(a, sqlite3_column_int64) \
    X(a, sqlite3_column_name) \
    X(a, sqlite3_column_text) \
    X(a, sqlite3_column_type) \
    X(a, sqlite3_db_config) \
    X(a, sqlite3_deserialize) \
    X(a, sqlite3_errmsg) \
    X(a, sqlite3_exec) \
    X(a, sqlite3_extended_result_codes) \
    X(a, sqlite3_finalize) \
    X(a, sqlite3_free) \
    X(a, sqlite3_last_insert_rowid) \
    X(a, sqlite3_malloc64) \
    X(a, sqlite3_mprintf) \
    X(a, sqlite3_open_v2) \
    X(a, sqlite3_prepare_v2) \
    X(a, sqlite3_reset) \
    X(a, sqlite3_serialize) \
    X(a, sqlite3_step) \
    X(a, sqlite3_stmt_readonly)

/* ms_lazy_sqlite and ms_lazy_sqlite_load(user, e): MS_OK, or MS_ERUNTIME and a message naming the
 * library; the slot numbers and pointer types of the functions */
MS_LAZY_DECLARE(sqlite, SQLITE)

/* From here on the names call through the table. */
#define sqlite3_bind_double MS_LAZY_FN(sqlite, SQLITE, sqlite3_bind_double)
#define sqlite3_bind_int MS_LAZY_FN(sqlite, SQLITE, sqlite3_bind_int)
#define sqlite3_bind_int64 MS_LAZY_FN(sqlite, SQLITE, sqlite3_bind_int64)
#define sqlite3_bind_null MS_LAZY_FN(sqlite, SQLITE, sqlite3_bind_null)
#define sqlite3_bind_text MS_LAZY_FN(sqlite, SQLITE, sqlite3_bind_text)
#define sqlite3_busy_timeout MS_LAZY_FN(sqlite, SQLITE, sqlite3_busy_timeout)
#define sqlite3_changes MS_LAZY_FN(sqlite, SQLITE, sqlite3_changes)
#define sqlite3_clear_bindings MS_LAZY_FN(sqlite, SQLITE, sqlite3_clear_bindings)
#define sqlite3_close MS_LAZY_FN(sqlite, SQLITE, sqlite3_close)
#define sqlite3_column_count MS_LAZY_FN(sqlite, SQLITE, sqlite3_column_count)
#define sqlite3_column_double MS_LAZY_FN(sqlite, SQLITE, sqlite3_column_double)
#define sqlite3_column_int MS_LAZY_FN(sqlite, SQLITE, sqlite3_column_int)
#define sqlite3_column_int64 MS_LAZY_FN(sqlite, SQLITE, sqlite3_column_int64)
#define sqlite3_column_name MS_LAZY_FN(sqlite, SQLITE, sqlite3_column_name)
#define sqlite3_column_text MS_LAZY_FN(sqlite, SQLITE, sqlite3_column_text)
#define sqlite3_column_type MS_LAZY_FN(sqlite, SQLITE, sqlite3_column_type)
#define sqlite3_db_config MS_LAZY_FN(sqlite, SQLITE, sqlite3_db_config)
#define sqlite3_deserialize MS_LAZY_FN(sqlite, SQLITE, sqlite3_deserialize)
#define sqlite3_errmsg MS_LAZY_FN(sqlite, SQLITE, sqlite3_errmsg)
#define sqlite3_exec MS_LAZY_FN(sqlite, SQLITE, sqlite3_exec)
#define sqlite3_extended_result_codes MS_LAZY_FN(sqlite, SQLITE, sqlite3_extended_result_codes)
#define sqlite3_finalize MS_LAZY_FN(sqlite, SQLITE, sqlite3_finalize)
#define sqlite3_free MS_LAZY_FN(sqlite, SQLITE, sqlite3_free)
#define sqlite3_last_insert_rowid MS_LAZY_FN(sqlite, SQLITE, sqlite3_last_insert_rowid)
#define sqlite3_malloc64 MS_LAZY_FN(sqlite, SQLITE, sqlite3_malloc64)
#define sqlite3_mprintf MS_LAZY_FN(sqlite, SQLITE, sqlite3_mprintf)
#define sqlite3_open_v2 MS_LAZY_FN(sqlite, SQLITE, sqlite3_open_v2)
#define sqlite3_prepare_v2 MS_LAZY_FN(sqlite, SQLITE, sqlite3_prepare_v2)
#define sqlite3_reset MS_LAZY_FN(sqlite, SQLITE, sqlite3_reset)
#define sqlite3_serialize MS_LAZY_FN(sqlite, SQLITE, sqlite3_serialize)
#define sqlite3_step MS_LAZY_FN(sqlite, SQLITE, sqlite3_step)
#define sqlite3_stmt_readonly MS_LAZY_FN(sqlite, SQLITE, sqlite3_stmt_readonly)

#endif
