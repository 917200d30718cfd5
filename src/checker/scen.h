/* Internal interface between the files of the per-scenario checks: scenario.c (the task,
 * ck_eval_scenario, and the helpers every group uses: text files, detail logs) and one file per
 * check group: scen_measurements.c, scen_accuracy.c, scen_performance.c, scen_power.c,
 * scen_compliance.c. */
#ifndef MS_CHECKER_SCEN_H
#define MS_CHECKER_SCEN_H

#include "checker/internal.h"

#define TEXT_MAX (64u * 1024 * 1024)

/* The behaviour profiles' differences in the scenario checks, one row per profile
 * (scenario.c ck_profiles: legacy = submission_checker.py of v5.x and the older single-file
 * checkers, unified = the submission_checker/ package of v6.x). */
typedef struct ck_profile {
    ck_sev a7_dataset_size;       /* A7 accuracy run short of the dataset */
    ck_sev p2_invalid;            /* P2 result_validity not VALID */
    ck_sev p9_early_stopping;     /* P9 early stopping not met */
    ck_sev p11_latency;           /* P11 99th-percentile latency over the constraint */
    const char *logged_note;      /* appended to A7/P9 when the checker only logs them */
    const char *p2_note;          /* appended to P2 */
    int token_limits_by_log;      /* P3: token latency limits of the log's scenario (else the
                                   * directory's) */
    int p11_by_dir;               /* P11: the constraint of the directory's scenario (else the
                                   * log's) */
    int verify_stripped_line;     /* C: "TEST PASS" as a whole stripped line (else a substring);
                                   * a pass ends the TEST01 accuracy check */
    int scenario_casefold;        /* P16: the log's scenario compared case-insensitively */
} ck_profile;

extern const ck_profile ck_profiles[2];

typedef struct sctx {
    ck_state *run;
    ck_scen *s;
    ck_where w;
    const ck_rules *r;
    int unified;
    const ck_profile *pp;  /* ck_profiles[unified] */
    int raises; /* a check met input on which the MLCommons checker raises (no verdict) */
    /* the ranging and run_1 detail logs of a power result that the Power WG check (W4) will
     * read whole: rel set when it will run; load_dlog keeps their bytes for it */
    ck_kept *kept; /* [CK_KEPT_LOGS] */
} sctx;

#define CK_KEPT_LOGS 2

#define FIND(c, id, sev, file, line, exp, found, ...)                                         \
    ck_report_finding((c)->run, &(c)->s->f, &(c)->w, id, sev, file, line, NULL, exp, found,  \
                      __VA_ARGS__)

typedef struct textfile {
    char *text;
    size_t len;
    int ok;        /* read and valid UTF-8 (or, read with lenient_utf8, read) */
    int missing;
    int bad_utf8;  /* lenient_utf8: not valid UTF-8 as a whole, bad_off the first invalid byte */
    size_t bad_off;
} textfile;

typedef struct pctx {
    sctx *c;
    const char *tag;       /* NULL main run; "TEST01"... compliance (C3); "ranging" (W3) */
    const char *fixed;     /* F: canonical scenario of the directory */
    const char *file;      /* detail log, relative */
    int compliance;
} pctx;

/* scenario.c */
int any_counting(const ck_state *run, const ck_flist *l, size_t from);
char *absof(const sctx *c, const char *rel);
/* base/name (relative to the submission root) and, in *abs, its absolute path; NULL for both,
 * the run marked out of memory, on failure. */
char *join_abs(const sctx *c, const char *base, const char *name, char **abs);
void read_textfile_ex(sctx *c, const char *rel, const char *id, int report,
                      int lenient_utf8, textfile *t);
void read_textfile(sctx *c, const char *rel, const char *id, int report, textfile *t);
int text_has_substring_line(const textfile *t, const char *needle);
int text_has_stripped_line(const textfile *t, const char *s);
int load_dlog(sctx *c, const char *rel, const char *id, ck_dlog *d);
void check_log_errors(sctx *c, const ck_dlog *d, const char *rel, const char *id,
                      int compliance, const char *tag);

/* scen_performance.c */
long kline(const ck_dlog *d, const char *key);
const char *canon_or_raw(const ck_rules *r, const char *s);
int check_perf_log(pctx *p, const ck_dlog *d, ck_value *val, int *inferred,
                   char **eff_out);
void group_performance(sctx *c, const char *scen_rel, ck_dlog *log_out, int *log_ok);
void group_performance_summary(sctx *c, const char *scen_rel);

/* scen_power.c */
void group_power(sctx *c, const char *scen_rel, const ck_dlog *run_log, int run_log_ok);

/* scen_accuracy.c */
int group_accuracy(sctx *c, const char *scen_rel);

/* scen_measurements.c */
int group_measurements(sctx *c, const char *scen_rel);

/* scen_compliance.c */
void group_compliance(sctx *c, const char *scen_rel);

#endif
