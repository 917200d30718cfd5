/* libFuzzer harness: the accuracy.txt regex layer (universal newlines + Python re.match on
 * PCRE2) with every accuracy pattern of the v5.1 and v6.1 rules, plus the hash= line pattern. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/pytext.h"

#define MAXRE 64
typedef struct fuzz_state {
    ms_pyre re[MAXRE];
    int n;
} fuzz_state;

/* libFuzzer's entry points have no context argument: the compiled patterns live here for the
 * life of the fuzzing process (test code, not library code). */
static fuzz_state *state;

static void add_patterns(fuzz_state *st, const char *rules)
{
    json_error_t je;
    json_t *root = json_load_file(rules, 0, &je);
    if (!root)
        return;
    json_t *pats = json_object_get(root, "accuracy_patterns");
    const char *k;
    json_t *v;
    json_object_foreach(pats, k, v)
    {
        ms_err e;
        if (st->n < MAXRE && json_is_string(v) && ms_pyre_compile(&st->re[st->n], json_string_value(v), &e) == MS_OK)
            st->n++;
    }
    json_t *h = json_object_get(root, "hash_line_regex");
    ms_err e;
    if (st->n < MAXRE && json_is_string(h) && ms_pyre_compile(&st->re[st->n], json_string_value(h), &e) == MS_OK)
        st->n++;
    json_decref(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    state = calloc(1, sizeof *state);
    if (!state)
        abort();
    add_patterns(state, "rules/v5.1.json");
    add_patterns(state, "rules/v6.1.json");
    if (state->n == 0)
        abort(); /* run from the repository root */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_lines it;
    ms_lines_init(&it, (const char *)data, size);
    const char *line;
    size_t len;
    int had_nl;
    char *scratch = NULL;
    size_t cap = 0;
    size_t bad;
    (void)ms_utf8_valid((const char *)data, size, &bad);
    while (ms_lines_next(&it, &line, &len, &had_nl)) {
        size_t n = len;
        (void)ms_py_strip(line, &n);
        for (int i = 0; i < state->n; i++) {
            const char *g;
            size_t gl;
            ms_err e;
            (void)ms_pyre_match_line(&state->re[i], line, len, had_nl, &scratch, &cap, &g, &gl, &e);
        }
    }
    free(scratch);
    return 0;
}
