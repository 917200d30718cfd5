/* Internals of the runs module (src/runs/), shared by its files only. */
#ifndef MS_RUNS_INTERNAL_H
#define MS_RUNS_INTERNAL_H

#include "common/lazy_sqlite.h"
#include <stdint.h>

#include "runs/runs.h"

typedef struct rn_host {
    char *cpu_model, *kernel, *hostname, *governor;
    long cores;
    long long memory_bytes;
} rn_host;

void rn_host_facts(rn_host *h);
void rn_host_free(rn_host *h);

struct ms_runs_db {
    sqlite3 *db;
    char *path;
};

/* Opens (and with create, creates and migrates) the database: WAL, busy timeout, foreign keys. */
int rn_open(const char *path, int flags, sqlite3 **out, ms_err *e);
int rn_sql_error(sqlite3 *db, const char *path, const char *what, ms_err *e);

/* The columns `runs list` shows and `--where` may name (NULL-terminated). */
extern const char *const rn_list_columns[];
extern const char *const rn_filter_columns[];

#endif
