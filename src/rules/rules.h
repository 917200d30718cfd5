/* Rounds, rules and scenarios: the one home of what every module needs to know about the
 * rules data (docs/ARCHITECTURE.md "The rules module").
 *
 *   - the data folder: where rules/ and schemas/ are found (one order, one variable), and the
 *     dataset folders beside them (data/<dataset>/);
 *   - the rounds: the rules/v<major>.<minor>.json files, the newest one, loading one;
 *   - model mapping (submission_checker.py get_mlperf_model);
 *   - scenarios: an enum with the canonical names and the directory aliases.
 *
 * Depends on src/common/ only; the checker, report, audit and LoadGen use it. Library code: no
 * printing, errors come back in ms_err. */
#ifndef MS_RULES_H
#define MS_RULES_H

#include <jansson.h>
#include <stddef.h>

#include "common/error.h"

/* ------------------------------------------------------------ the data folder ---- */

/* The variable naming the data folder (a directory holding rules/ and schemas/). */
#define RU_DATA_ENV "MLSUBMIT_DATA_DIR"
/* Deprecated alias: the rules/ folder itself (its parent is the data folder). */
#define RU_RULES_ENV_OLD "MLSUBMIT_RULES"

/* Finds the data folder, the directory holding rules/ (and schemas/), in this order, the first
 * that has a rules/ directory winning:
 *   1. given (a command's option), when not NULL: the only place looked at;
 *   2. $MLSUBMIT_DATA_DIR when set (the only place then; the deprecated $MLSUBMIT_RULES names
 *      the rules/ folder itself and stands for its parent when MLSUBMIT_DATA_DIR is unset);
 *   3. the working directory (./rules);
 *   4. <bindir>/.. (the build tree: build/mlsubmit finds rules/);
 *   5. <bindir>/../share/mlsubmit (make install).
 * bindir is the directory of exe (NULL: the running binary, /proc/self/exe), symbolic links
 * resolved. Returns a malloc'd path ("." for the working directory), or NULL with e
 * (MS_EINPUT) naming every place tried. */
char *ru_data_dir(const char *given, const char *exe, ms_err *e);

/* <data>/<sub>/<name> (malloc'd; "sub/name" when data is "."); NULL when out of memory. */
char *ru_data_path(const char *data, const char *sub, const char *name);

/* rules/<name> of the data folder found by ru_data_dir(NULL, NULL): malloc'd path of an
 * existing regular file, or NULL with e (MS_EINPUT) naming the places tried or the missing
 * file. */
char *ru_rules_file(const char *name, ms_err *e);

/* Finds the folder of a dataset (the one holding the file marker, e.g. digits/digits.csv.gz).
 * A data folder holds one folder per dataset (data/digits/). given (a command's --data DIR):
 * DIR is a data folder, so DIR/<dataset>; DIR itself is also accepted when it holds marker (the
 * dataset folder). An explicit DIR is the only place looked at. Without it: $MLSUBMIT_DATA/<dataset>
 * (when set), then the places of ru_data_dir: ./data/<dataset>, <bindir>/../data/<dataset> (the
 * build tree) and <bindir>/../share/mlsubmit/data/<dataset> (make install). Returns the folder
 * (malloc'd), or NULL with e (MS_EINPUT) naming every place tried. */
char *ru_dataset_dir(const char *given, const char *dataset, const char *marker, ms_err *e);

/* ------------------------------------------------------------------ rounds ---- */

/* The rounds of <data>/rules/ (the names of its v<major>.<minor>.json files without .json),
 * oldest first (v1.1 < v1.10 < v10.0): *names malloc'd, *n of them (free with ru_rounds_free).
 * MS_EINPUT when the folder cannot be listed. */
int ru_rounds(const char *data, char ***names, size_t *n, ms_err *e);
void ru_rounds_free(char **names, size_t n);
/* The newest round (highest vX.Y of <data>/rules/vX.Y.json), malloc'd; NULL with e if none. */
char *ru_newest_round(const char *data, ms_err *e);
/* Sets e (MS_EUSAGE, returned) for a version without a rules file (path), naming the rounds
 * that <data>/rules/ has. */
int ru_unknown_round(const char *data, const char *version, const char *path, ms_err *e);

/* A round's rules file, read with Jansson (not validated; `mlsubmit rules lint` validates). */
typedef struct ru_round {
    json_t *j;          /* the whole file */
    char *version;      /* v5.1, ... */
    char *data_dir;     /* the data folder it came from */
    char *path;         /* <data>/rules/<version>.json */
    int unified;        /* "profile": "unified" (v6 layout) */
} ru_round;

/* Loads rules/<version>.json of the data folder data (NULL: ru_data_dir(NULL, NULL)); version
 * NULL = the newest round. An unknown version is MS_EUSAGE, a bad file MS_EINPUT. */
int ru_round_load(ru_round *r, const char *data, const char *version, ms_err *e);
void ru_round_free(ru_round *r);

struct ms_buf;
/* Validates a rules document against schemas/rules.schema.json of the data folder: the whole
 * schema (a round's rules/<version>.json) or, with definition, its definitions/<definition>
 * ("compliance_rules" for rules/compliance.json). Each problem (at most 200) is appended to out
 * as "<JSON pointer>: <message> (<keyword>)\n". Returns the number of problems, or -1 with e when
 * the schema cannot be read. `mlsubmit rules lint` runs it before its cross-references. */
int ru_validate(const json_t *doc, const char *data, const char *definition, struct ms_buf *out, ms_err *e);

/* ------------------------------------------------------------- model mapping ---- */

/* 1 when the JSON array arr holds the string s (a round's lists: models, scenarios) */
int ru_list_has(const json_t *arr, const char *s);

/* The MLPerf model of a model directory (submission_checker.py get_mlperf_model): the name
 * itself when the round lists it in "models"; else a non-empty "model_mapping" entry; else a
 * non-empty entry of extra (the open division's model_mapping.json object, or NULL); else the
 * first "model_guesses" entry whose substrings the name contains ("contains") or that it starts
 * with ("prefix": model.startswith of the v0.7.1 checker), or the name itself, mapped again
 * through "model_mapping" (an empty mapping is returned as it is, as Python's
 * dict.get(model, model) does). extra_first: extra's entry wins over "model_mapping" (the round
 * switch extra_model_map_inline: the v1.0-v2.1 checkers merge --extra-model-benchmark-map into
 * the mapping). rules is a round's JSON. Points into rules, extra or dir. */
const char *ru_map_model(const json_t *rules, const char *dir, const json_t *extra, int extra_first);

/* ---------------------------------------------------------------- scenarios ---- */

typedef enum ru_scenario {
    RU_SINGLE_STREAM,
    RU_MULTI_STREAM,
    RU_SERVER,
    RU_OFFLINE,
    RU_INTERACTIVE,
    RU_NSCENARIOS
} ru_scenario;

/* "SingleStream", "MultiStream", "Server", "Offline", "Interactive" (static); NULL out of range */
const char *ru_scenario_name(int s);
/* The scenario of a canonical name (exact); -1 when it is none. */
int ru_scenario_parse(const char *name);
/* The scenario of a directory name: a canonical name, else an alias of the round's
 * "scenario_dir_aliases" (rules: a round's JSON), or, with rules NULL, the lower-case names
 * preprocess_submission.py writes. -1 when it is none. */
int ru_scenario_from_dir(const json_t *rules, const char *dir);
/* Like ru_scenario_from_dir, returning the canonical name (static) or NULL. */
const char *ru_scenario_canon(const json_t *rules, const char *dir);

#endif
