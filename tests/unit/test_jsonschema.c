/* JSON Schema validator (src/common/jschema.c): the official JSON-Schema-Test-Suite for every
 * supported keyword, in two dialects, plus error reporting details and our own 2020-12 cases.
 * Draft-07: Debian's json-schema-test-suite package (it ships draft3..draft7), or $MLSUBMIT_JSTS.
 * Draft 2020-12: the package has no such directory, so $MLSUBMIT_JSTS_2020 names one (the
 * tests/draft2020-12 folder of a JSON-Schema-Test-Suite checkout); skipped when absent. */
#include <dirent.h>
#include <pthread.h>

#include "common/jschema.h"
#include "testutil.h"

static const char *existing_dir(const char *env_name, const char *dflt)
{
    const char *env = getenv(env_name);
    const char *d = env && *env ? env : dflt;
    struct stat st;
    return stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL;
}

/* Draft-07 files of keywords the validator supports; every case in them must pass except the
 * groups listed in skipped_group7 (they need remote references, which the validator does not
 * fetch). */
static const char *const files7[] = {
    "additionalItems.json", "additionalProperties.json", "allOf.json", "anyOf.json",
    "boolean_schema.json", "const.json", "contains.json", "default.json",
    "dependencies.json", "enum.json", "exclusiveMaximum.json", "exclusiveMinimum.json",
    "if-then-else.json", "items.json", "maxItems.json", "maxLength.json",
    "maxProperties.json", "maximum.json", "minItems.json", "minLength.json",
    "minProperties.json", "minimum.json", "multipleOf.json", "not.json", "oneOf.json",
    "pattern.json", "patternProperties.json", "properties.json", "propertyNames.json",
    "ref.json", "required.json", "type.json", "uniqueItems.json",
};

static int skipped_group7(const char *file, const char *desc)
{
    return !strcmp(file, "ref.json") && !strcmp(desc, "remote ref, containing refs itself");
}

/* Draft 2020-12 files of the keywords the validator supports in that dialect. Left out:
 * refRemote.json (remote $ref), dynamicRef.json, unevaluatedItems.json,
 * unevaluatedProperties.json, vocabulary.json (not implemented), format.json and content.json
 * (annotations only), optional/. */
static const char *const files2020[] = {
    "additionalProperties.json", "allOf.json", "anchor.json", "anyOf.json",
    "boolean_schema.json", "const.json", "contains.json", "default.json", "defs.json",
    "dependentRequired.json", "dependentSchemas.json", "enum.json", "exclusiveMaximum.json",
    "exclusiveMinimum.json", "id.json", "if-then-else.json", "infinite-loop-detection.json",
    "items.json", "maxContains.json", "maxItems.json", "maxLength.json", "maxProperties.json",
    "maximum.json", "minContains.json", "minItems.json", "minLength.json", "minProperties.json",
    "minimum.json", "multipleOf.json", "not.json", "oneOf.json", "pattern.json",
    "patternProperties.json", "prefixItems.json", "properties.json", "propertyNames.json",
    "ref.json", "required.json", "type.json", "uniqueItems.json", "unknownKeyword.json",
};

/* 2020-12 groups left out, by file and description. */
static const struct {
    const char *file, *desc;
} skips2020[] = {
    /* their schema is, or $refs, the 2020-12 metaschema: remote references are not fetched */
    {"anchor.json", "anchor validity"},
    {"defs.json", "valid definition"},
    {"defs.json", "invalid definition"},
    {"id.json", "Invalid use of fragments in location-independent $id"},
    {"id.json", "Valid use of empty fragments in location-independent $id"},
    {"id.json", "Unnormalized $ids are allowed but discouraged"},
    {"ref.json", "remote ref, containing refs itself"},
    {"ref.json", "URN base URI with f-component"},
    /* they test unevaluatedProperties, which is not implemented (an unknown keyword, ignored) */
    {"dependentSchemas.json", "dependent schema with unevaluatedProperties"},
    {"not.json", "collect annotations inside a 'not', even if collection is disabled"},
    {"propertyNames.json", "propertyNames with unevaluatedProperties"},
    {"ref.json", "ref creates new scope when adjacent to keywords"},
    /* a $ref cycle that never reaches an assertion: the validator stops at its depth limit and
     * reports a broken schema (ms_jschema_validate returns -1, "schema recursion deeper than
     * 200 levels") where the suite wants the instance declared invalid */
    {"infinite-loop-detection.json", "guard against infinite recursion"},
};

static int skipped_group2020(const char *file, const char *desc)
{
    for (size_t i = 0; i < sizeof skips2020 / sizeof *skips2020; i++)
        if (!strcmp(file, skips2020[i].file) && !strcmp(desc, skips2020[i].desc))
            return 1;
    return 0;
}

struct suite_run {
    int files, files_missing, groups, groups_skipped, cases, failures;
};

/* Runs every group of the listed files of an official-suite directory. A missing file fails
 * the test unless missing_ok (then it is named on stderr and skipped). */
static void run_official(const char *dir, const char *const *names, size_t nnames,
                         int (*skipped)(const char *, const char *), ms_jschema_dialect fallback,
                         int missing_ok, struct suite_run *run)
{
    memset(run, 0, sizeof *run);
    for (size_t f = 0; f < nnames; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        struct stat st;
        if (missing_ok && stat(path, &st) != 0) {
            fprintf(stderr, "SKIP %s: not in %s\n", names[f], dir);
            run->files_missing++;
            continue;
        }
        json_error_t je;
        json_t *groups = json_load_file(path, JSON_ALLOW_NUL, &je);
        ck_assert_msg(groups != NULL, "%s: %s", path, je.text);
        run->files++;
        for (size_t g = 0; g < json_array_size(groups); g++) {
            json_t *grp = json_array_get(groups, g);
            const char *gdesc = json_string_value(json_object_get(grp, "description"));
            if (skipped(names[f], gdesc)) {
                run->groups_skipped++;
                continue;
            }
            run->groups++;
            ms_jschema *s;
            ms_err e;
            ck_assert_msg(ms_jschema_new_dialect(&s, json_object_get(grp, "schema"), gdesc,
                                                 fallback, &e) == MS_OK,
                          "%s: %s", gdesc, e.msg);
            json_t *tests = json_object_get(grp, "tests");
            for (size_t t = 0; t < json_array_size(tests); t++) {
                json_t *tc = json_array_get(tests, t);
                int want = json_is_true(json_object_get(tc, "valid"));
                ms_jschema_errors errs = {0};
                int got = ms_jschema_validate(s, json_object_get(tc, "data"), &errs, 0, &e);
                run->cases++;
                if (got != want) {
                    run->failures++;
                    fprintf(stderr, "FAIL %s / %s / %s: expected %d got %d %s\n", names[f],
                            gdesc, json_string_value(json_object_get(tc, "description")), want,
                            got, got < 0 ? e.msg : "");
                }
                /* an invalid instance always comes with at least one explanation */
                if (got == 0)
                    ck_assert_uint_gt(errs.n, 0);
                ms_jschema_errors_free(&errs);
            }
            ms_jschema_free(s);
        }
        json_decref(groups);
    }
}

START_TEST(official_suite_draft7)
{
    const char *dir =
        existing_dir("MLSUBMIT_JSTS", "/usr/share/json-schema-test-suite/tests/draft7");
    if (!dir) {
        fprintf(stderr, "SKIP %s: json-schema-test-suite is not installed\n", __func__);
        return;
    }
    struct suite_run run;
    run_official(dir, files7, sizeof files7 / sizeof *files7, skipped_group7, MS_JSCHEMA_DRAFT7,
                 0, &run);
    fprintf(stderr, "draft7: %d files, %d groups, %d of %d cases pass (%d groups skipped)\n",
            run.files, run.groups, run.cases - run.failures, run.cases, run.groups_skipped);
    ck_assert_int_gt(run.cases, 300);
    ck_assert_int_eq(run.failures, 0);
}
END_TEST

START_TEST(official_suite_draft2020_12)
{
    const char *dir = existing_dir("MLSUBMIT_JSTS_2020",
                                   "/usr/share/json-schema-test-suite/tests/draft2020-12");
    if (!dir) {
        fprintf(stderr,
                "SKIP %s: no draft2020-12 directory of the JSON-Schema-Test-Suite (set "
                "MLSUBMIT_JSTS_2020)\n",
                __func__);
        return;
    }
    struct suite_run run;
    /* the 2020-12 files leave "$schema" out of some schemas: they are 2020-12 all the same */
    run_official(dir, files2020, sizeof files2020 / sizeof *files2020, skipped_group2020,
                 MS_JSCHEMA_DRAFT2020_12, 1, &run);
    if (!run.files) {
        fprintf(stderr, "SKIP %s: none of the listed files is in %s\n", __func__, dir);
        return;
    }
    fprintf(stderr,
            "draft2020-12: %d files (%d missing), %d groups, %d of %d cases pass "
            "(%d groups skipped)\n",
            run.files, run.files_missing, run.groups, run.cases - run.failures, run.cases,
            run.groups_skipped);
    ck_assert_int_eq(run.failures, 0);
}
END_TEST

static json_t *J(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &je);
    ck_assert_msg(j != NULL, "%s", je.text);
    return j;
}

START_TEST(errors_carry_pointer_and_keyword)
{
    json_t *sch = J("{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{"
                    "\"b\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"minLength\":2}},"
                    "\"c/d\":{\"enum\":[1,2]}},\"additionalProperties\":false}");
    ms_jschema *s;
    ms_err e;
    ck_assert_int_eq(ms_jschema_new(&s, sch, "t", &e), MS_OK);
    json_t *inst = J("{\"b\":[\"ok\",\"x\",3],\"c/d\":3,\"zz\":1}");
    ms_jschema_errors errs = {0};
    ck_assert_int_eq(ms_jschema_validate(s, inst, &errs, 0, &e), 0);
    int seen_req = 0, seen_len = 0, seen_type = 0, seen_enum = 0, seen_add = 0;
    for (size_t i = 0; i < errs.n; i++) {
        const ms_jschema_error *x = &errs.v[i];
        if (!strcmp(x->keyword, "required") && !strcmp(x->pointer, ""))
            seen_req = strstr(x->message, "'a'") != NULL;
        if (!strcmp(x->keyword, "minLength") && !strcmp(x->pointer, "/b/1"))
            seen_len = 1;
        if (!strcmp(x->keyword, "type") && !strcmp(x->pointer, "/b/2"))
            seen_type = 1;
        if (!strcmp(x->keyword, "enum") && !strcmp(x->pointer, "/c~1d"))
            seen_enum = 1;
        if (!strcmp(x->keyword, "additionalProperties") && !strcmp(x->pointer, "/zz"))
            seen_add = 1;
    }
    ck_assert(seen_req && seen_len && seen_type && seen_enum && seen_add);
    ck_assert_uint_eq(errs.n, 5);
    /* max_errors bounds the list */
    ms_jschema_errors few = {0};
    ck_assert_int_eq(ms_jschema_validate(s, inst, &few, 2, &e), 0);
    ck_assert_uint_eq(few.n, 2);
    ms_jschema_errors_free(&few);
    ms_jschema_errors_free(&errs);
    json_decref(inst);
    ms_jschema_free(s);
    json_decref(sch);
}
END_TEST

START_TEST(bad_pattern_and_dangling_ref_are_errors)
{
    ms_err e;
    ms_jschema *s;
    json_t *sch = J("{\"pattern\":\"(\"}");
    ck_assert_int_eq(ms_jschema_new(&s, sch, "t", &e), MS_OK);
    json_t *str = json_string("x");
    ck_assert_int_eq(ms_jschema_validate(s, str, NULL, 0, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "pattern"));
    ms_jschema_free(s);
    json_decref(sch);
    sch = J("{\"$ref\":\"#/definitions/nope\"}");
    ck_assert_int_eq(ms_jschema_new(&s, sch, "t", &e), MS_OK);
    ck_assert_int_eq(ms_jschema_validate(s, str, NULL, 0, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "cannot be resolved"));
    ms_jschema_free(s);
    json_decref(sch);
    /* a self-referencing schema stops at the depth limit instead of overflowing the stack */
    sch = J("{\"$ref\":\"#\"}");
    ck_assert_int_eq(ms_jschema_new(&s, sch, "t", &e), MS_OK);
    ck_assert_int_eq(ms_jschema_validate(s, str, NULL, 0, &e), -1);
    ms_jschema_free(s);
    json_decref(sch);
    json_decref(str);
}
END_TEST

START_TEST(project_schemas_are_valid_and_accept_samples)
{
    /* the repository's own schemas load (every pattern compiles, every $ref resolves) */
    const char *names[] = {"schemas/rules.schema.json", "schemas/system_desc.schema.json",
                           "schemas/measurements.schema.json",
                           "schemas/model_mapping.schema.json"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        ms_jschema *s;
        ms_err e;
        ck_assert_msg(ms_jschema_load(&s, names[i], &e) == MS_OK, "%s", e.msg);
        ms_jschema_free(s);
    }
    ms_jschema *rs;
    ms_err e;
    ck_assert_int_eq(ms_jschema_load(&rs, "schemas/rules.schema.json", &e), MS_OK);
    const char *rounds[] = {"rules/v5.0.json", "rules/v5.1.json", "rules/v6.0.json",
                            "rules/v6.1.json"};
    for (size_t i = 0; i < 4; i++) {
        json_error_t je;
        json_t *r = json_load_file(rounds[i], 0, &je);
        ck_assert_msg(r != NULL, "%s: %s", rounds[i], je.text);
        ms_jschema_errors errs = {0};
        int v = ms_jschema_validate(rs, r, &errs, 5, &e);
        ck_assert_msg(v == 1, "%s: %s %s", rounds[i], errs.n ? errs.v[0].pointer : "",
                      errs.n ? errs.v[0].message : e.msg);
        ms_jschema_errors_free(&errs);
        json_decref(r);
    }
    ms_jschema_free(rs);
}
END_TEST

/* ---- our own draft 2020-12 cases (no external files) ---------------------------------- */

#define S2020 "\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
#define S07 "\"$schema\":\"http://json-schema.org/draft-07/schema#\","

static ms_jschema *schema_of(const char *text)
{
    json_t *j = J(text);
    ms_jschema *s;
    ms_err e;
    ck_assert_msg(ms_jschema_new(&s, j, "t", &e) == MS_OK, "%s", e.msg);
    json_decref(j);
    return s;
}

/* An instance against a schema: valid when kw is NULL, else invalid with (at least) an error of
 * keyword kw at JSON pointer ptr. */
struct own_case {
    const char *schema, *inst, *kw, *ptr;
};

static void run_cases(const char *table, const struct own_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct own_case *oc = &cases[i];
        ms_jschema *s = schema_of(oc->schema);
        json_t *j = J(oc->inst);
        ms_jschema_errors errs = {0};
        ms_err e;
        int r = ms_jschema_validate(s, j, &errs, 0, &e);
        ck_assert_msg(r >= 0, "%s: %s / %s: %s", table, oc->schema, oc->inst, e.msg);
        int seen = 0;
        for (size_t k = 0; oc->kw && k < errs.n; k++)
            seen |= !strcmp(errs.v[k].keyword, oc->kw) && !strcmp(errs.v[k].pointer, oc->ptr);
        if (oc->kw)
            ck_assert_msg(r == 0 && seen, "%s: %s / %s: expected a '%s' error at '%s' (%d, %zu)",
                          table, oc->schema, oc->inst, oc->kw, oc->ptr, r, errs.n);
        else
            ck_assert_msg(r == 1, "%s: %s / %s: expected valid (%zu errors, first: %s)", table,
                          oc->schema, oc->inst, errs.n, errs.n ? errs.v[0].message : "");
        ms_jschema_errors_free(&errs);
        json_decref(j);
        ms_jschema_free(s);
    }
}


START_TEST(dialect_selection)
{
    static const struct {
        const char *schema;
        ms_jschema_dialect fallback, want;
    } cases[] = {
        {"{" S2020 "\"type\":\"object\"}", MS_JSCHEMA_DRAFT7, MS_JSCHEMA_DRAFT2020_12},
        {"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema#\"}", MS_JSCHEMA_DRAFT7,
         MS_JSCHEMA_DRAFT2020_12},
        {"{" S07 "\"type\":\"object\"}", MS_JSCHEMA_DRAFT7, MS_JSCHEMA_DRAFT7},
        {"{\"$schema\":\"https://json-schema.org/draft/2019-09/schema\"}", MS_JSCHEMA_DRAFT7,
         MS_JSCHEMA_DRAFT7},
        /* no $schema: the caller's fallback; a $schema wins over it */
        {"{}", MS_JSCHEMA_DRAFT7, MS_JSCHEMA_DRAFT7},
        {"true", MS_JSCHEMA_DRAFT2020_12, MS_JSCHEMA_DRAFT2020_12},
        {"{" S07 "\"type\":\"object\"}", MS_JSCHEMA_DRAFT2020_12, MS_JSCHEMA_DRAFT7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *j = J(cases[i].schema);
        ms_jschema *s;
        ms_err e;
        ck_assert_int_eq(ms_jschema_new_dialect(&s, j, "t", cases[i].fallback, &e), MS_OK);
        ck_assert_msg(ms_jschema_dialect_of(s) == cases[i].want, "%s", cases[i].schema);
        ms_jschema_free(s);
        json_decref(j);
    }
    /* ms_jschema_new falls back on draft-07, and the project's schemas stay draft-07 */
    ms_jschema *s = schema_of("{}");
    ck_assert_int_eq(ms_jschema_dialect_of(s), MS_JSCHEMA_DRAFT7);
    ms_jschema_free(s);
    ms_err e;
    ck_assert_int_eq(ms_jschema_load(&s, "schemas/system_desc.schema.json", &e), MS_OK);
    ck_assert_int_eq(ms_jschema_dialect_of(s), MS_JSCHEMA_DRAFT7);
    ms_jschema_free(s);
}
END_TEST

#define TUPLE "{" S2020 "\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"boolean\"}]," \
    "\"items\":{\"type\":\"integer\"}}"
#define CLOSED "{" S2020 "\"prefixItems\":[{},{}],\"items\":false}"
static const struct own_case prefix_items_then_items_2020[] = {
    {TUPLE, "[\"x\", true, 1, 2]", NULL, NULL},
    {TUPLE, "[\"x\"]", NULL, NULL},
    {TUPLE, "[]", NULL, NULL},
    {TUPLE, "[1, true]", "type", "/0"},           /* prefixItems/0 */
    {TUPLE, "[\"x\", true, \"y\"]", "type", "/2"}, /* items, after the prefix */
    {CLOSED, "[1, \"a\"]", NULL, NULL},            /* items: false closes the tuple */
    {CLOSED, "[1, \"a\", null]", "false", "/2"},
    /* the array form of items, and additionalItems, are not 2020-12 keywords: ignored */
    {"{" S2020 "\"items\":[{\"type\":\"integer\"}],\"additionalItems\":false}",
     "[\"a\", \"b\"]", NULL, NULL},
};
#undef TUPLE
#undef CLOSED

#define TUPLE7 "{\"items\":[{\"type\":\"integer\"},{\"type\":\"string\"}]," \
    "\"additionalItems\":false,\"prefixItems\":[{\"type\":\"null\"}]}"
#define ALL7 "{" S07 "\"items\":{\"type\":\"integer\"},\"additionalItems\":false}"
static const struct own_case draft7_array_items_unchanged[] = {
    {TUPLE7, "[1, \"a\"]", NULL, NULL}, /* no $schema: draft-07, prefixItems means nothing */
    {TUPLE7, "[1]", NULL, NULL},
    {TUPLE7, "[\"a\"]", "type", "/0"},
    {TUPLE7, "[1, \"a\", 3]", "false", "/2"}, /* additionalItems */
    /* a schema "items" applies to every item, and additionalItems is then ignored */
    {ALL7, "[1, 2, 3]", NULL, NULL},
    {ALL7, "[1, \"x\"]", "type", "/1"},
};
#undef TUPLE7
#undef ALL7

/* $ref by JSON pointer into $defs, by the $id of a $defs entry, and by $anchor */
#define DEFS "{" S2020 "\"$id\":\"https://example.com/root.json\"," \
    "\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1}," \
    "\"name\":{\"$id\":\"name.json\",\"type\":\"string\",\"minLength\":2}," \
    "\"flag\":{\"$anchor\":\"flag\",\"type\":\"boolean\"}}," \
    "\"properties\":{\"n\":{\"$ref\":\"#/$defs/pos\"}," \
    "\"who\":{\"$ref\":\"name.json\"},\"on\":{\"$ref\":\"#flag\"}," \
    "\"abs\":{\"$ref\":\"https://example.com/root.json#flag\"}}}"
/* a root $id that is an absolute path: $refs resolve against it, not a doubled one */
#define ABSPATH "{" S2020 "\"$id\":\"/schemas/base.json\",\"$ref\":\"int.json\"," \
    "\"$defs\":{\"i\":{\"$id\":\"int.json\",\"maximum\":10}}}"
static const struct own_case defs_and_anchor_refs_2020[] = {
    {DEFS, "{\"n\":3,\"who\":\"ab\",\"on\":true,\"abs\":false}", NULL, NULL},
    {DEFS, "{\"n\":0}", "minimum", "/n"},
    {DEFS, "{\"who\":\"a\"}", "minLength", "/who"},
    {DEFS, "{\"on\":1}", "type", "/on"},
    {DEFS, "{\"abs\":\"yes\"}", "type", "/abs"},
    {ABSPATH, "5", NULL, NULL},
    {ABSPATH, "50", "maximum", ""},
};
#undef DEFS
#undef ABSPATH

#define DEP "{" S2020 "\"dependentRequired\":{\"card\":[\"billing\",\"name\"]}," \
    "\"dependentSchemas\":{\"billing\":{\"properties\":{\"billing\":{\"type\":\"string\"}}," \
    "\"required\":[\"zip\"]}}}"
static const struct own_case dependent_required_and_schemas_2020[] = {
    {DEP, "{}", NULL, NULL},
    {DEP, "{\"name\":1}", NULL, NULL},
    {DEP, "{\"card\":1,\"name\":2,\"billing\":\"b\",\"zip\":3}", NULL, NULL},
    {DEP, "{\"card\":1,\"name\":2}", "dependentRequired", ""},
    {DEP, "{\"billing\":\"b\"}", "required", ""}, /* from dependentSchemas */
    {DEP, "{\"billing\":7,\"zip\":1}", "type", "/billing"},
    /* unknown keywords in draft-07; and 2020-12 has no "dependencies" */
    {"{" S07 "\"dependentRequired\":{\"card\":[\"billing\"]},"
     "\"dependentSchemas\":{\"card\":false}}",
     "{\"card\":1}", NULL, NULL},
    {"{" S2020 "\"dependencies\":{\"card\":[\"billing\"]}}", "{\"card\":1}", NULL, NULL},
};
#undef DEP

#define BODY "\"contains\":{\"const\":1},\"minContains\":2,\"maxContains\":3}"
#define MIN0 "{" S2020 "\"contains\":{\"const\":1},\"minContains\":0}"
#define MAX1 "{" S2020 "\"contains\":{\"const\":1},\"maxContains\":1}"
static const struct own_case min_max_contains_2020[] = {
    {"{" S2020 BODY, "[1, 2, 1]", NULL, NULL},
    {"{" S2020 BODY, "[1, 1, 1]", NULL, NULL},
    {"{" S2020 BODY, "\"not an array\"", NULL, NULL},
    {"{" S2020 BODY, "[1, 2]", "minContains", ""},
    {"{" S2020 BODY, "[1, 1, 1, 1]", "maxContains", ""},
    /* draft-07 has neither: one match is enough, and any number is fine */
    {"{" S07 BODY, "[1, 2]", NULL, NULL},
    {"{" S07 BODY, "[1, 1, 1, 1]", NULL, NULL},
    {"{" S07 BODY, "[2]", "contains", ""},
    /* minContains 0 makes contains always pass; maxContains alone keeps the minimum 1 */
    {MIN0, "[]", NULL, NULL},
    {MIN0, "[2]", NULL, NULL},
    {MAX1, "[]", "contains", ""},
    {MAX1, "[1, 1]", "maxContains", ""},
};
#undef BODY
#undef MIN0
#undef MAX1

#define BODY "\"definitions\":{\"arr\":{\"type\":\"array\"}}," \
    "\"properties\":{\"foo\":{\"$ref\":\"#/definitions/arr\",\"maxItems\":2}}}"
/* 2020-12: an $id next to a $ref sets the base the $ref resolves against (reached by a
 * pointer, /$defs/b would otherwise resolve num.json against the root's base) */
#define IDREF "{" S2020 "\"$id\":\"https://example.com/a/root.json\"," \
    "\"$defs\":{\"n\":{\"$id\":\"https://example.com/b/num.json\",\"type\":\"number\"}," \
    "\"b\":{\"$id\":\"https://example.com/b/\",\"$ref\":\"num.json\"}}," \
    "\"$ref\":\"#/$defs/b\"}"
static const struct own_case ref_siblings_2020_vs_draft7[] = {
    {"{" S2020 BODY, "{\"foo\":[1, 2]}", NULL, NULL},
    {"{" S2020 BODY, "{\"foo\":[1, 2, 3]}", "maxItems", "/foo"}, /* the sibling counts */
    {"{" S2020 BODY, "{\"foo\":\"x\"}", "type", "/foo"},         /* and so does the target */
    {"{" S07 BODY, "{\"foo\":[1, 2, 3]}", NULL, NULL},           /* draft-07: only the target */
    {"{" S07 BODY, "{\"foo\":\"x\"}", "type", "/foo"},
    {IDREF, "1", NULL, NULL},
    {IDREF, "\"x\"", "type", ""},
};
#undef BODY
#undef IDREF

/* ECMA-262 long General_Category names, which PCRE2 does not know, in both dialects */
#define LETTERS "{\"pattern\":\"^\\\\p{Letter}+$\"}"
#define UPDIGIT "{" S2020 "\"pattern\":\"^[\\\\p{Uppercase_Letter}\\\\p{gc=Nd}]+$\"}"
static const struct own_case unicode_property_names_in_patterns[] = {
    {LETTERS, "\"Hello\\u03c0\"", NULL, NULL},
    {LETTERS, "\"abc1\"", "pattern", ""},
    {UPDIGIT, "\"AB12\"", NULL, NULL},
    {UPDIGIT, "\"Ab\"", "pattern", ""},
    /* an escaped backslash before "p{" is a literal backslash, left alone */
    {"{\"pattern\":\"^\\\\\\\\p\\\\{Letter\\\\}$\"}", "\"\\\\p{Letter}\"", NULL, NULL},
};
#undef LETTERS
#undef UPDIGIT

#define OWN_TABLE(t) {#t, t, sizeof t / sizeof *t}
static const struct {
    const char *name;
    const struct own_case *cases;
    size_t n;
} own_tables[] = {
    OWN_TABLE(prefix_items_then_items_2020),
    OWN_TABLE(draft7_array_items_unchanged),
    OWN_TABLE(defs_and_anchor_refs_2020),
    OWN_TABLE(dependent_required_and_schemas_2020),
    OWN_TABLE(min_max_contains_2020),
    OWN_TABLE(ref_siblings_2020_vs_draft7),
    OWN_TABLE(unicode_property_names_in_patterns),
};
#undef OWN_TABLE

/* one loop iteration per table */
START_TEST(own_cases)
{
    run_cases(own_tables[_i].name, own_tables[_i].cases, own_tables[_i].n);
}
END_TEST

/* ms_json_load_path gives what Jansson's json_load_file gives: the value, or the same error text,
 * line and column (a missing file included). */
/* The references a schema resolves are shared by every validation against it, from any thread
 * (the first resolutions race): each thread's verdicts and error counts are those of a fresh
 * copy of the schema validating alone */
#define REFS_THREADS 4
#define REFS_DOCS 64
typedef struct refs_job {
    const ms_jschema *s;
    json_t **docs;
    int verdict[REFS_DOCS];
    size_t nerr[REFS_DOCS];
} refs_job;

static void *refs_worker(void *arg)
{
    refs_job *j = arg;
    for (int i = 0; i < REFS_DOCS; i++) {
        ms_jschema_errors errs = {0};
        ms_err e;
        j->verdict[i] = ms_jschema_validate(j->s, j->docs[i], &errs, 0, &e);
        j->nerr[i] = errs.n;
        ms_jschema_errors_free(&errs);
    }
    return NULL;
}

START_TEST(refs_shared_across_threads)
{
    static const char schema[] =
        "{\"$id\": \"https://example.com/root.json\", \"type\": \"object\","
        " \"properties\": {\"a\": {\"$ref\": \"#/definitions/pos\"},"
        "  \"b\": {\"$ref\": \"item.json\"}, \"c\": {\"type\": \"array\", \"items\": {\"$ref\": \"#\"}},"
        "  \"d\": {\"$ref\": \"#/definitions/nested\"}},"
        " \"required\": [\"a\"],"
        " \"definitions\": {\"pos\": {\"type\": \"integer\", \"minimum\": 1},"
        "  \"item\": {\"$id\": \"item.json\", \"type\": \"object\","
        "   \"properties\": {\"n\": {\"$ref\": \"#/definitions/s\"}},"
        "   \"definitions\": {\"s\": {\"type\": \"string\", \"minLength\": 2}}},"
        "  \"nested\": {\"type\": \"object\", \"properties\": {\"x\": {\"$ref\": \"#/definitions/pos\"}}}}}";
    json_error_t je;
    json_t *sch = json_loads(schema, 0, &je);
    ck_assert_ptr_nonnull(sch);
    json_t *docs[REFS_DOCS];
    unsigned seed = 5;
    for (int i = 0; i < REFS_DOCS; i++) {
        seed = seed * 1103515245u + 12345u;
        char text[300];
        snprintf(text, sizeof text,
                 "{\"a\": %d, \"b\": {\"n\": \"%s\"}, \"c\": [{\"a\": %d}, {\"a\": 2, \"d\": {\"x\": %d}}],"
                 " \"d\": {\"x\": %d}}",
                 (int)(seed >> 8) % 3, (seed >> 12) % 2 ? "ok" : "x", (int)(seed >> 14) % 3 - 1,
                 (int)(seed >> 16) % 3, (int)(seed >> 18) % 2);
        docs[i] = json_loads(text, 0, &je);
        ck_assert_ptr_nonnull(docs[i]);
    }
    ms_jschema *shared, *alone;
    ms_err e;
    ck_assert_int_eq(ms_jschema_new(&shared, sch, "shared", &e), MS_OK);
    ck_assert_int_eq(ms_jschema_new(&alone, sch, "alone", &e), MS_OK);
    refs_job jobs[REFS_THREADS], ref = {.s = alone, .docs = docs};
    pthread_t th[REFS_THREADS];
    for (int t = 0; t < REFS_THREADS; t++) {
        jobs[t] = (refs_job){.s = shared, .docs = docs};
        ck_assert_int_eq(pthread_create(&th[t], NULL, refs_worker, &jobs[t]), 0);
    }
    for (int t = 0; t < REFS_THREADS; t++)
        pthread_join(th[t], NULL);
    /* the reference: a schema of its own, one document at a time, resolving afresh */
    int nvalid = 0;
    for (int i = 0; i < REFS_DOCS; i++) {
        ms_jschema *fresh;
        ck_assert_int_eq(ms_jschema_new(&fresh, sch, "fresh", &e), MS_OK);
        ms_jschema_errors errs = {0};
        ref.verdict[i] = ms_jschema_validate(fresh, docs[i], &errs, 0, &e);
        ref.nerr[i] = errs.n;
        ms_jschema_errors_free(&errs);
        ms_jschema_free(fresh);
        nvalid += ref.verdict[i] == 0;
        for (int t = 0; t < REFS_THREADS; t++) {
            ck_assert_int_eq(jobs[t].verdict[i], ref.verdict[i]);
            ck_assert_uint_eq(jobs[t].nerr[i], ref.nerr[i]);
        }
    }
    ck_assert_int_gt(nvalid, 0);
    ck_assert_int_lt(nvalid, REFS_DOCS);
    for (int i = 0; i < REFS_DOCS; i++)
        json_decref(docs[i]);
    ms_jschema_free(shared);
    ms_jschema_free(alone);
    json_decref(sch);
}
END_TEST

START_TEST(json_load_path_matches_json_load_file)
{
    char dir[512], path[600];
    ms_test_tmpdir(dir, sizeof dir);
    static const char *const docs[] = {
        "{\"a\": [1, 2.5, \"x\"], \"b\": {\"c\": null}}\n",
        "{\"a\": 1,\n \"b\": [1, 2,,]}\n",
        "[1, 2]\n\n  {",
        "",
        "{\"s\": \"bad \xff byte\"}",
        "{\"nul\": \"a\\u0000b\"}",
    };
    for (size_t i = 0; i <= sizeof docs / sizeof *docs; i++) {
        snprintf(path, sizeof path, "%s/f%zu.json", dir, i);
        if (i < sizeof docs / sizeof *docs) {
            FILE *f = fopen(path, "wb");
            ck_assert_ptr_nonnull(f);
            fputs(docs[i], f);
            fclose(f);
        } /* else: a file that does not exist */
        for (size_t flags = 0; flags <= JSON_ALLOW_NUL; flags += JSON_ALLOW_NUL) {
            json_error_t e1, e2;
            json_t *a = json_load_file(path, flags, &e1);
            json_t *b = ms_json_load_path(path, flags, &e2);
            ck_assert_int_eq(a == NULL, b == NULL);
            if (a) {
                ck_assert(json_equal(a, b));
            } else {
                ck_assert_str_eq(e1.text, e2.text);
                ck_assert_int_eq(e1.line, e2.line);
                ck_assert_int_eq(e1.column, e2.column);
            }
            json_decref(a);
            json_decref(b);
        }
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

/* path's members names[] as a full parse (json_load_file) gives them, against
 * ms_json_load_members */
static void members_match(const char *path, const char *const *names)
{
    json_error_t je;
    json_t *all = json_load_file(path, 0, &je), *want = json_object();
    ck_assert_ptr_nonnull(all);
    for (size_t k = 0; names[k]; k++)
        if (json_object_get(all, names[k]))
            json_object_set(want, names[k], json_object_get(all, names[k]));
    json_t *got = ms_json_load_members(path, names);
    ck_assert_msg(got && json_equal(got, want), "%s", path);
    json_decref(all);
    json_decref(want);
    json_decref(got);
}

/* ms_json_load_members: the wanted members of an object, as a full parse would give them (the
 * last of a repeated key, an escaped key, nested keys of the same name ignored), the others only
 * scanned; every rules file of the repository gives the same members as a full parse; what is
 * not one object, or not JSON, is NULL */
START_TEST(json_load_members_matches_a_full_parse)
{
    char dir[512], path[600];
    ms_test_tmpdir(dir, sizeof dir);
    static const char *const names[] = {"detect", "layout", "models", NULL};
    static const char *const docs[] = {
        "{\"a\": {\"detect\": 1}, \"detect\": {\"x\": [1, 2]}, \"layout\": \"unified\"}",
        " {\"detect\": 1, \"detect\": 2}\n",
        "{\"de\\u0074ect\": true, \"models\": [\"a\", \"b\"], \"z\": [[[]], {}, \"}\"]}",
        "{}",
        "{\"other\": 1}",
    };
    static const char *const bad[] = {"[1, 2]", "{\"detect\": 1} x", "{\"detect\": }", "", "{\"a\" 1}"};
    size_t ngood = sizeof docs / sizeof *docs;
    for (size_t i = 0; i < ngood + sizeof bad / sizeof *bad; i++) {
        snprintf(path, sizeof path, "%s/m%zu.json", dir, i);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        fputs(i < ngood ? docs[i] : bad[i - ngood], f);
        fclose(f);
        if (i < ngood) {
            members_match(path, names);
        } else {
            json_t *got = ms_json_load_members(path, names);
            ck_assert_msg(got == NULL, "bad doc %zu", i - ngood);
        }
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/none.json", dir);
    ck_assert_ptr_null(ms_json_load_members(path, names));
    rmdir(dir);
    /* the repository's rules files */
    static const char *const rnames[] = {"detect", "layout", "models", "model_mapping", NULL};
    DIR *d = opendir("rules");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
            continue;
        snprintf(path, sizeof path, "rules/%s", de->d_name);
        members_match(path, rnames);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 14);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("jsonschema");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, official_suite_draft7);
    tcase_add_test(tc, official_suite_draft2020_12);
    tcase_add_test(tc, dialect_selection);
    tcase_add_loop_test(tc, own_cases, 0, (int)(sizeof own_tables / sizeof *own_tables));
    tcase_add_test(tc, errors_carry_pointer_and_keyword);
    tcase_add_test(tc, bad_pattern_and_dangling_ref_are_errors);
    tcase_add_test(tc, project_schemas_are_valid_and_accept_samples);
    tcase_add_test(tc, refs_shared_across_threads);
    tcase_add_test(tc, json_load_path_matches_json_load_file);
    tcase_add_test(tc, json_load_members_matches_a_full_parse);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
