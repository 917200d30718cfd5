/* The LoadGen releases whose behaviour differs, as data: rules/loadgen.json, compiled into
 * build/gen/lg_versions.c at build time (tools/gen-lgversions.c). One row per release, read from
 * the reference sources of each tag (test_settings_internal.cc TestSettingsInternal; loadgen.cc
 * GenerateQueries, GenerateLoadableSets, StartTest, QueryScheduler). Code asks a row's switches,
 * never a version number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen/loadgen.h"

extern const lg_version_rules lg_version_table[];
extern const size_t lg_version_table_len;

size_t lg_version_rules_count(void)
{
    return lg_version_table_len;
}

const lg_version_rules *lg_version_rules_at(size_t i)
{
    return i < lg_version_table_len ? &lg_version_table[i] : NULL;
}

const lg_version_rules *lg_version_rules_latest(void)
{
    return &lg_version_table[lg_version_table_len - 1];
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
    const lg_version_rules *best = &lg_version_table[0];
    for (size_t i = 0; i < lg_version_table_len; i++)
        if (cmp3(a, b, c, &lg_version_table[i]) >= 0)
            best = &lg_version_table[i];
    return best;
}

static const lg_version_rules *row_of_alias(const char *v, size_t n)
{
    for (size_t i = 0; i < lg_version_table_len; i++)
        for (size_t j = 0; j < sizeof lg_version_table[i].aliases / sizeof lg_version_table[i].aliases[0]; j++) {
            const char *a = lg_version_table[i].aliases[j];
            if (a && strlen(a) == n && !strncmp(a, v, n))
                return &lg_version_table[i];
        }
    return NULL;
}

const lg_version_rules *lg_version_rules_of(const char *v)
{
    if (!v)
        return NULL;
    while (*v == ' ')
        v++;
    /* a build that reports a non-numeric version (the LoadGen 1.x builds: ".5a1 @ ...") */
    size_t n = strcspn(v, " @");
    const lg_version_rules *al = row_of_alias(v, n);
    if (al)
        return al;
    int a = 0, b = 0, c = 0;
    if (sscanf(v, "%d.%d.%d", &a, &b, &c) < 2 || a < 0 || b < 0 || c < 0)
        return NULL;
    return row_for(a, b, c);
}

lg_compat lg_version_rules_compat(const lg_version_rules *v)
{
    return v->major * 100 + v->minor;
}

const lg_version_rules *lg_version_rules_of_compat(lg_compat c)
{
    for (size_t i = 0; c != LG_COMPAT_LATEST && i < lg_version_table_len; i++)
        if (lg_version_rules_compat(&lg_version_table[i]) == c)
            return &lg_version_table[i];
    return lg_version_rules_latest();
}

const char *lg_version_rules_name(const lg_version_rules *v, char *buf, size_t n)
{
    if (v->patch)
        snprintf(buf, n, "%d.%d.%d", v->major, v->minor, v->patch);
    else
        snprintf(buf, n, "%d.%d", v->major, v->minor);
    return buf;
}

/* The first row with the loaded-set rule of loaded_set_from_count (rules/loadgen.json). */
static const lg_version_rules *first_count_rule_row(void)
{
    for (size_t i = 0; i < lg_version_table_len; i++)
        if (lg_version_table[i].loaded_set_from_count)
            return &lg_version_table[i];
    return NULL;
}

lg_compat lg_loaded_set_compat(const lg_version_rules *v)
{
    const lg_version_rules *first = first_count_rule_row();
    if (!first || v->loaded_set_from_count)
        return lg_version_rules_compat(first ? first : v);
    const lg_version_rules *before = NULL; /* the newest row before the rule changed */
    for (size_t i = 0; i < lg_version_table_len && &lg_version_table[i] != first; i++)
        before = &lg_version_table[i];
    return lg_version_rules_compat(before ? before : v);
}

const char *lg_loaded_set_rule_name(const lg_version_rules *v, char *buf, size_t n)
{
    const lg_version_rules *first = first_count_rule_row();
    char nb[16];
    if (!first)
        snprintf(buf, n, "the only");
    else
        snprintf(buf, n, v->loaded_set_from_count ? "%s+" : "before %s", lg_version_rules_name(first, nb, sizeof nb));
    return buf;
}

int lg_compat_parse(const char *s)
{
    if (!s || !*s)
        return -1;
    const lg_version_rules *best = NULL;
    for (size_t i = 0; i < lg_version_table_len; i++) {
        const lg_version_rules *v = &lg_version_table[i];
        if (!strcmp(s, v->name))
            return lg_version_rules_compat(v);
        char major[16];
        snprintf(major, sizeof major, "%d", v->major);
        if (!strcmp(s, major))
            best = v; /* the newest row of that major version */
    }
    if (!best)
        best = row_of_alias(s, strlen(s));
    return best ? lg_version_rules_compat(best) : -1;
}

const char *lg_compat_version(lg_compat c)
{
    return lg_version_rules_of_compat(c)->loadgen_version;
}

const char *lg_compat_name(lg_compat c)
{
    return lg_version_rules_of_compat(c)->name;
}

const char *lg_compat_names(char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < lg_version_table_len && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", lg_version_table[i].name);
    return buf;
}

/* Whether two rows behave alike (every switch equal; names, versions and mlperf.conf aside). */
static int same_rules(const lg_version_rules *a, const lg_version_rules *b)
{
    return a->early_multistream == b->early_multistream && a->text_detail_log == b->text_detail_log &&
           a->ms_from_target_qps == b->ms_from_target_qps && a->issue_same_as_unique == b->issue_same_as_unique &&
           a->equal_issue == b->equal_issue &&
           a->equal_issue_pads_offline_queries == b->equal_issue_pads_offline_queries &&
           a->logs_query_spq == b->logs_query_spq && a->loaded_set_from_count == b->loaded_set_from_count &&
           a->logs_concatenation == b->logs_concatenation &&
           a->logs_accuracy_sample_count == b->logs_accuracy_sample_count && a->test05_flag == b->test05_flag &&
           a->offline_percentile_unset == b->offline_percentile_unset && a->stability_runs == b->stability_runs &&
           a->early_stopping == b->early_stopping &&
           a->logs_result_query_count == b->logs_result_query_count &&
           a->issue_query_controller == b->issue_query_controller &&
           a->logs_sampling_target == b->logs_sampling_target &&
           a->sampling_expected_floor == b->sampling_expected_floor &&
           a->mlperf_conf_only_keys == b->mlperf_conf_only_keys &&
           a->num_errors_logged == b->num_errors_logged &&
           a->python_report_latencies == b->python_report_latencies &&
           a->python_test05_seeds_alias == b->python_test05_seeds_alias &&
           a->python_multistreamfree == b->python_multistreamfree &&
           a->integer_expected_latency == b->integer_expected_latency &&
           a->settings_defaults.multi_stream_samples_per_query == b->settings_defaults.multi_stream_samples_per_query &&
           a->settings_defaults.multi_stream_target_latency_percentile ==
               b->settings_defaults.multi_stream_target_latency_percentile &&
           !strcmp(a->tpot_word ? a->tpot_word : "", b->tpot_word ? b->tpot_word : "");
}

const lg_version_rules *lg_version_rules_next_change(const lg_version_rules *v)
{
    size_t i = (size_t)(v - lg_version_table);
    if (v < lg_version_table || i >= lg_version_table_len)
        return NULL;
    for (size_t j = i + 1; j < lg_version_table_len; j++)
        if (!same_rules(v, &lg_version_table[j]))
            return &lg_version_table[j];
    return NULL;
}
