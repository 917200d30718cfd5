/* The check catalogue (IDs, titles, hints), recording findings, waivers and skips. */
#include <fnmatch.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"

/* stricter = 1: a check beyond the official verdict (a warning unless --strict). */
static const ck_check_info checks[] = {
    {"S1", "root directories", "only closed/, open/ and network/ (and .git, .github, assets) belong at the root", 0},
    {"S2", "files at the root", "only *.md and *.pdf files may sit at the root; move the rest into a submitter directory (or --skip-extra-files-in-root-check)", 0},
    {"S3", "files in a division directory", "a division directory holds only submitter directories", 0},
    {"S4", "broken symbolic links", "the link target must exist (the MLCommons checker resolves it relative to the submission root); replace the link with the file", 0},
    {"S5", "files over 50 MiB", "files larger than 52,428,800 bytes are not accepted; truncate accuracy logs (mlsubmit truncate) or drop the file", 0},
    {"S6", "hidden names", "names starting with '.' are not allowed under a submitter directory", 0},
    {"S7", "names with spaces", "rename files and directories so that they contain no space", 0},
    {"S8", "__pycache__ directories", "delete __pycache__ directories", 0},
    {"S9", "empty directories", "delete empty directories or put the missing files in them", 0},
    {"S10", "systems without results", "every systems/<sys>.json and measurements/<sys> needs a results/<sys> directory (or --skip-all-systems-have-results-check)", 0},
    {"S11", "calibration document", "closed and network submitters need calibration.md or documentation/calibration.md", 0},
    {"S12", "links leaving the tree", "a symbolic link points outside the submission tree; the packaged submission will not contain its target", 1},
    {"S13", "portable file names", "file names must be valid UTF-8 without control characters so that every tool and file system can read them", 1},
    {"S14", "submitter without results", "a submitter directory needs a results/ directory (the round's checker counts one without it as NoResults)", 0},
    {"Y1", "system description present", "add systems/<sys>.json for every system directory under results/", 0},
    {"Y2", "system status", "status must be available, preview or rdi", 0},
    {"Y3", "system type", "system_type must be datacenter, edge, datacenter,edge or edge,datacenter (no spaces)", 0},
    {"Y4", "network mode", "is_network must be \"true\" in the network division and absent/false in closed", 0},
    {"Y5", "system description fields", "add the field; fields that need a meaningful response may not be empty (the integer 0 counts as empty, write \"0\")", 0},
    {"Y6", "system submitter", "the submitter field must match the submitter directory name (case-insensitive)", 0},
    {"Y7", "system division", "the division field must match the division directory", 0},
    {"Y8", "unknown system fields", "the field is not part of the system description format; check its spelling", 0},
    {"Y9", "system description readable", "the system description must be a valid JSON object whose text fields are strings (the MLCommons checker crashes otherwise)", 0},
    {"N1", "network division: datacenter", "the Network division is for datacenter systems only (system_type datacenter)", 1},
    {"N2", "network described", "describe the network in the system description: fabric, media, rate, protocol, topology, both sides' interfaces and software as text, the counts of interfaces and connections as positive numbers", 1},
    {"N3", "QDL code", "put the Query Dispatch Library's source and its documentation (what it marshals for each query and response) under code/", 1},
    {"Y10", "system description schema", "schemas/system_desc.schema.json describes the expected fields and types", 1},
    {"M1", "model name mapping", "use the round's model names, an alias, or map the directory in model_mapping.json (open division)", 0},
    {"M2", "closed/network model", "closed and network results must use one of the round's benchmark names", 0},
    {"M3", "model allowed for the system type", "the model has no scenario table for this system_type in this round", 0},
    {"M4", "scenario allowed", "the scenario is neither required nor optional for this model and system type", 0},
    {"M5", "required scenarios", "every required scenario needs a valid result", 0},
    {"M6", "Server or Interactive", "one of Server and Interactive needs a valid result", 0},
    {"M7", "model_mapping.json", "model_mapping.json must be a JSON object mapping directory names to the round's model names", 0},
    {"E1", "measurements present", "add the measurements directory / measurements.json for this scenario", 0},
    {"E2", "user.conf and README.md", "the measurements directory needs non-empty user.conf and README.md", 0},
    {"E3", "power measurement files", "power results need non-empty analyzer_table* and power_settings* files", 0},
    {"E4", "implementation JSON", "add <system>*.json / measurements.json with input_data_types, retraining, starting_weights_filename, weight_data_types, weight_transformations", 0},
    {"E5", "code directory", "the implementation's code must be in code/<model> (v5.x) or src/ (v6.x)", 0},
    {"E6", "implementation JSON schema", "schemas/measurements.schema.json describes the expected fields", 1},
    {"A1", "accuracy.txt present", "generate accuracy.txt with the benchmark's accuracy script", 0},
    {"A2", "accuracy file set", "accuracy/ must hold exactly mlperf_log_summary.txt, mlperf_log_detail.txt, accuracy.txt, mlperf_log_accuracy.json", 0},
    {"A3", "accuracy target", "the accuracy reported in accuracy.txt must reach the target (and stay within upper limits)", 0},
    {"A4", "accuracy log hash", "accuracy.txt needs the hash=<sha256> line written by the truncation tool", 0},
    {"A5", "truncated accuracy log", "mlperf_log_accuracy.json must be present and at most 10,240 bytes (run the truncation tool)", 0},
    {"A6", "accuracy run errors", "the accuracy run's detail log reports LoadGen errors", 0},
    {"A7", "accuracy dataset coverage", "the accuracy run must cover the whole dataset (qsl_reported_total_count)", 0},
    {"A8", "extra accuracy artefacts", "the listed images/videos must be present in accuracy/", 0},
    {"A9", "open-division accuracy", "accuracy problems are tolerated in the open division when a metric was parsed", 0},
    {"P0", "performance run present", "add performance/run_1", 0},
    {"P1", "performance file set", "performance/run_1 must hold mlperf_log_summary.txt and mlperf_log_detail.txt (+ spl.txt with power), optionally mlperf_log_accuracy.json", 0},
    {"P2", "result validity", "the LoadGen run reported INVALID; rerun with valid settings", 0},
    {"P3", "token latencies", "LLM runs need use_token_latencies and TTFT/TPOT within the limits", 0},
    {"P4", "equal-issue mode", "this model requires sample_concatenate_permutation (equal issue mode)", 0},
    {"P5", "LoadGen errors", "the performance run's detail log reports LoadGen errors", 0},
    {"P6", "performance sample count", "performance_sample_count must be at least the model's minimum", 0},
    {"P7", "RNG seeds", "use the round's official mlperf.conf seeds", 0},
    {"P8", "result value", "the detail log must contain the scenario's result field", 0},
    {"P9", "early stopping", "the run did not meet the early-stopping condition; run longer", 0},
    {"P10", "Server latency constraint", "target latency must not exceed the model's constraint", 0},
    {"P11", "latency constraint", "the 99th-percentile latency must meet the model's constraint", 0},
    {"P12", "minimum query count", "min_query_count in user.conf is below the model's minimum", 0},
    {"P13", "samples per query", "Offline samples_per_query is below the model's minimum", 0},
    {"P14", "minimum duration", "min_duration must be at least 600,000 ms", 0},
    {"P15", "network SUT", "network submissions need a network SUT ('Network SUT' in sut_name) and a network system", 0},
    {"P16", "inferred result", "the logged scenario differs from the directory; only the allowed inferences are accepted", 0},
    {"P17", "test mode", "performance runs should be PerformanceOnly and accuracy runs AccuracyOnly", 1},
    {"I1", "Offline inferred from SingleStream", "Offline value taken from result_qps_without_loadgen_overhead", 0},
    {"I2", "Offline inferred from MultiStream", "Offline value computed from the MultiStream latency", 0},
    {"I3", "MultiStream inferred from SingleStream", "needs an early-stopping latency estimate", 0},
    {"I4", "Interactive result", "an Interactive directory must hold a Server-scenario log", 0},
    {"W1", "power run files", "performance/run_1 needs spl.txt for power results", 0},
    {"W2", "power directories", "ranging/ and power/ need exactly their listed files", 0},
    {"W3", "ranging run", "the ranging run's result must be computable", 0},
    {"W4", "power logs consistency", "the power measurement logs must be consistent (Power WG checks)", 0},
    {"W5", "power samples", "spl.txt needs power samples inside the measured window", 0},
    {"W6", "nameplate power", "systems/<sys>_power.yaml or system_power_capacity gives the design power", 0},
    {"C1", "compliance directory", "closed and network results need their compliance directory", 0},
    {"C2", "compliance tests present", "add the missing TESTxx directory", 0},
    {"C3", "compliance performance runs", "the compliance run must pass the performance checks (seeds, duration, ...)", 0},
    {"C4", "compliance performance verdict", "verify_performance.txt must say TEST PASS and the run's files must be present", 0},
    {"C5", "TEST01 accuracy", "TEST01 accuracy must pass (deterministic, or within the allowed delta)", 0},
    {"C6", "TEST06", "verify_accuracy.txt must report first token, EOS and sample length checks passing", 0},
    {"C7", "TEST07", "verify_accuracy.txt must contain TEST PASS", 0},
    {"C8", "TEST08", "verify_accuracy.txt must contain a TEST PASS line", 0},
    {"C9", "TEST09", "verify_output_len.txt must contain TEST PASS", 0},
    {"L1", "detail log readable", "the detail log must be readable UTF-8 whose :::MLLOG records are valid JSON (the MLCommons checker rejects the whole file otherwise)", 0},
    {"R1", "file readable", "the file must exist and be readable", 0},
};

const ck_check_info *ck_checks(size_t *n)
{
    *n = sizeof checks / sizeof checks[0];
    return checks;
}

const ck_check_info *ck_check_find(const char *id)
{
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (!strcmp(checks[i].id, id))
            return &checks[i];
    return NULL;
}

void ck_flist_free(ck_flist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        ck_finding *f = &l->v[i];
        free(f->waiver);
        free(f->file);
        free(f->pointer);
        free(f->expected);
        free(f->found);
        free(f->message);
        for (int k = 0; k < 5; k++)
            free(f->group[k]);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int flist_reserve(ck_flist *l, size_t extra)
{
    if (extra > (size_t)-1 - l->n)
        return -1;
    return MS_GROW(l->v, l->cap, l->n + extra, 8);
}

int ck_flist_move(ck_flist *dst, ck_flist *src)
{
    if (!src->n)
        return 0;
    if (flist_reserve(dst, src->n))
        return -1;
    memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
    dst->n += src->n;
    free(src->v);
    memset(src, 0, sizeof *src);
    return 0;
}

/* The checks with an option of their own (the official checker's --skip-* flags), as
 * submission_checker.py main() and check_results_dir apply them; profile: -1 any, 0 legacy only,
 * 1 unified only. Any check can also be skipped with --skip ID. */
static const struct {
    const char *id, *flag;
    size_t off;
    int profile;
} skip_flags[] = {
    {"S2", "--skip-extra-files-in-root-check", offsetof(ck_options, skip_extra_files_in_root_check), -1},
    {"S10", "--skip-all-systems-have-results-check", offsetof(ck_options, skip_all_systems_have_results_check), -1},
    {"S11", "--skip-calibration-check", offsetof(ck_options, skip_calibration_check), -1},
    {"W4", "--skip-power-check", offsetof(ck_options, skip_power_check), -1},
    {"E3", "--skip-check-power-measure-files", offsetof(ck_options, skip_check_power_measure_files), 0},
    {"A8", "--skip-extra-accuracy-files-check", offsetof(ck_options, skip_extra_accuracy_files_check), -1},
    {"A7", "--skip-dataset-size-check", offsetof(ck_options, skip_dataset_size_check), 1},
};

const char *ck_check_skip_flag(const char *id, int unified)
{
    for (size_t i = 0; i < sizeof skip_flags / sizeof *skip_flags; i++)
        if (!strcmp(skip_flags[i].id, id))
            return skip_flags[i].profile < 0 || skip_flags[i].profile == unified ? skip_flags[i].flag : NULL;
    return NULL;
}

int ck_skipped(const ck_state *run, const char *id)
{
    for (size_t i = 0; i < run->o->nskip; i++)
        if (!strcmp(run->o->skip_ids[i], id))
            return 1;
    for (size_t i = 0; i < sizeof skip_flags / sizeof *skip_flags; i++)
        if (!strcmp(skip_flags[i].id, id))
            return (skip_flags[i].profile < 0 || skip_flags[i].profile == run->rules.unified) &&
                   *(const int *)((const char *)run->o + skip_flags[i].off);
    return 0;
}

/* A waiver path matches the finding's file when equal, when it is a directory prefix, or as
 * an fnmatch(3) pattern. */
static int waiver_matches(const ck_waiver *w, const char *id, const char *file)
{
    if (strcmp(w->id, id) && strcmp(w->id, "*"))
        return 0;
    if (!file)
        return !strcmp(w->path, "*") || !strcmp(w->path, ".");
    size_t n = strlen(w->path);
    while (n > 1 && w->path[n - 1] == '/')
        n--;
    if (!strncmp(file, w->path, n) && (file[n] == '\0' || file[n] == '/'))
        return 1;
    return fnmatch(w->path, file, 0) == 0;
}

static char *dupn(const char *s)
{
    return s ? strdup(s) : NULL;
}

int ck_report_finding(ck_state *run, ck_flist *out, const ck_where *w, const char *id,
                      ck_sev sev, const char *file, long line, const char *pointer,
                      const char *expected, const char *found, const char *fmt, ...)
{
    if (ck_skipped(run, id))
        return 0;
    if (flist_reserve(out, 1)) {
        run->oom = 1;
        return sev == CK_SEV_ERROR;
    }
    ck_finding *f = &out->v[out->n];
    memset(f, 0, sizeof *f);
    const ck_check_info *ci = ck_check_find(id);
    f->id = ci ? ci->id : "R1";
    f->sev = sev;
    f->key = -1;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&f->message, fmt, ap) < 0)
        f->message = NULL;
    va_end(ap);
    f->file = dupn(file);
    f->line = line;
    f->pointer = dupn(pointer);
    f->expected = dupn(expected);
    f->found = dupn(found);
    if (w) {
        const char *g[5] = {w->division, w->submitter, w->system, w->model, w->scenario};
        for (int k = 0; k < 5; k++)
            f->group[k] = dupn(g[k]);
    }
    if (!f->message) {
        run->oom = 1;
        f->message = NULL;
    }
    for (size_t i = 0; i < run->nwaivers; i++) {
        if (waiver_matches(&run->waivers[i], f->id, f->file)) {
            f->waived = 1;
            f->waiver = dupn(run->waivers[i].why);
            break;
        }
    }
    out->n++;
    if (f->waived)
        return 0;
    if (sev == CK_SEV_ERROR)
        return 1;
    if (sev == CK_SEV_WARNING && run->o->strict)
        return 1;
    return 0;
}
