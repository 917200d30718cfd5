/* Declarations shared by the LoadGen's own files (not part of the public API). */
#ifndef LG_INTERNAL_H
#define LG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "loadgen/loadgen.h"

/* ---- settings.c ---- */

/* Embedded mlperf.conf text for a compat version. */
const char *lg_embedded_mlperf_conf(lg_compat c, size_t *len, const char **name);

/* Config errors the session collected for the detail log (error_invalid_config values). */
size_t lg_conf_session_nlog_errors(const lg_conf_session *cs);
const char *lg_conf_session_log_error(const lg_conf_session *cs, size_t i);
lg_compat lg_conf_session_compat(const lg_conf_session *cs);

/* Effective settings (spec 2.3). */
typedef struct lg_effective {
    lg_scenario scenario;
    lg_mode mode;
    uint64_t samples_per_query;
    double target_qps;
    uint64_t target_latency_ns;
    double target_latency_percentile;
    uint64_t max_async_queries;
    uint64_t target_duration_ms;
    uint64_t min_duration_ms;
    uint64_t max_duration_ms;
    uint64_t min_query_count;
    uint64_t max_query_count;
    uint64_t min_sample_count;
    uint64_t qsl_rng_seed;
    uint64_t sample_index_rng_seed;
    uint64_t schedule_rng_seed;
    uint64_t accuracy_log_rng_seed;
    double accuracy_log_probability;
    uint64_t accuracy_log_sampling_target;
    int print_timestamps;
    int performance_issue_unique;
    int performance_issue_same;
    uint64_t performance_issue_same_index;
    uint64_t performance_sample_count;
    uint64_t accuracy_sample_count;
    int sample_concatenate_permutation;
    int use_token_latencies;
    uint64_t server_ttft_latency;
    uint64_t server_tpot_latency;
    int infer_token_latencies;
    uint64_t token_latency_scaling_factor;
    uint64_t server_num_issue_query_threads;
    int server_coalesce_queries;
    int server_find_peak_qps_decimals_of_precision;
    double server_find_peak_qps_boundary_step_size;
    /* errors found while deriving (error_invalid_test_settings / negative qps) */
    int n_errors;
    char errors[4][400];
} lg_effective;

void lg_effective_derive(lg_effective *ef, const lg_test_settings *s, size_t qsl_total,
                         size_t qsl_perf);

#endif
