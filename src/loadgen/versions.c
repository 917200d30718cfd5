/* The LoadGen releases whose behaviour differs, as data: one row per release, read from the
 * reference sources of each tag (test_settings_internal.cc TestSettingsInternal; loadgen.cc
 * GenerateQueries, GenerateLoadableSets and StartTest). Code asks a row's switches, never a
 * version number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen/loadgen.h"

static const lg_version_rules rows[] = {
    /* rounds v1.0 and v1.1: the builds report loadgen_version ".5a1"; MultiStream is the fixed
     * interval of multi_stream_target_qps with multi_stream_max_async_queries in flight;
     * performance_issue_same generates like performance_issue_unique; no
     * sample_concatenate_permutation; TEST05 sets the seeds in audit.config */
    {.major = 1, .minor = 0, .patch = 0, .ms_from_target_qps = 1, .issue_same_as_unique = 1,
     .offline_percentile_unset = 1},
    /* round v2.0: MultiStream is SingleStream's successor (multi_stream_expected_latency_ns);
     * sample_concatenate_permutation for Offline (padded query) and SingleStream (equal issue) */
    {.major = 2, .minor = 0, .patch = 0, .issue_same_as_unique = 1, .equal_issue = 1},
    /* round v2.1: performance_issue_same no longer shortens the run (TEST04 reworked) */
    {.major = 2, .minor = 1, .patch = 0, .equal_issue = 1},
    /* rounds v3.0, v3.1: the test05 keys of audit.config ("Test05 flag detected") */
    {.major = 3, .minor = 0, .patch = 0, .equal_issue = 1, .test05_flag = 1},
    /* round v4.0: equal issue in every scenario (min_queries padded to the loaded set
     * and raised while the duration is not met), Offline included by the else branch */
    {.major = 4, .minor = 0, .patch = 0, .equal_issue = 2, .equal_issue_pads_offline_queries = 1,
     .test05_flag = 1},
    /* round v4.1: sample_concatenate_permutation logged */
    {.major = 4, .minor = 1, .patch = 0, .equal_issue = 2, .equal_issue_pads_offline_queries = 1,
     .test05_flag = 1, .logs_concatenation = 1},
    /* rounds v5.0, v5.1: generated_samples_per_query logs the generated query's size; Offline
     * left out of the min_queries padding */
    {.major = 5, .minor = 0, .patch = 0, .equal_issue = 2, .logs_query_spq = 1, .test05_flag = 1,
     .logs_concatenation = 1},
    /* LoadGen 6.0.6 on (master): loaded sets from the first performance / accuracy sample
     * count indices, accuracy_sample_count */
    {.major = 6, .minor = 0, .patch = 6, .equal_issue = 2, .logs_query_spq = 1, .test05_flag = 1,
     .logs_concatenation = 1, .loaded_set_from_count = 1, .logs_accuracy_sample_count = 1},
};

#define NROWS (sizeof rows / sizeof rows[0])

size_t lg_version_rules_count(void)
{
    return NROWS;
}

const lg_version_rules *lg_version_rules_at(size_t i)
{
    return i < NROWS ? &rows[i] : NULL;
}

const lg_version_rules *lg_version_rules_latest(void)
{
    return &rows[NROWS - 1];
}

static int cmp3(int a, int b, int c, const lg_version_rules *v)
{
    if (a != v->major)
        return a < v->major ? -1 : 1;
    if (b != v->minor)
        return b < v->minor ? -1 : 1;
    return c < v->patch ? -1 : c > v->patch;
}

static const lg_version_rules *row_for(int a, int b, int c)
{
    const lg_version_rules *best = &rows[0];
    for (size_t i = 0; i < NROWS; i++)
        if (cmp3(a, b, c, &rows[i]) >= 0)
            best = &rows[i];
    return best;
}

const lg_version_rules *lg_version_rules_of(const char *v)
{
    if (!v)
        return NULL;
    while (*v == ' ')
        v++;
    /* the LoadGen 1.x builds report their Python package's version: ".5a1" */
    if (v[0] == '.')
        return &rows[0];
    int a = 0, b = 0, c = 0;
    if (sscanf(v, "%d.%d.%d", &a, &b, &c) < 2 || a < 0 || b < 0 || c < 0)
        return NULL;
    return row_for(a, b, c);
}

const lg_version_rules *lg_version_rules_of_compat(lg_compat c)
{
    /* LG_COMPAT_5_1 is the round v5.1 release; LG_COMPAT_6_0 master */
    return c == LG_COMPAT_5_1 ? row_for(5, 1, 0) : lg_version_rules_latest();
}

const char *lg_version_rules_name(const lg_version_rules *v, char *buf, size_t n)
{
    if (v->patch)
        snprintf(buf, n, "%d.%d.%d", v->major, v->minor, v->patch);
    else
        snprintf(buf, n, "%d.%d", v->major, v->minor);
    return buf;
}
