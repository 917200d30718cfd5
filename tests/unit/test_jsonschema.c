/* JSON Schema validator (src/common/jschema.c): the official JSON-Schema-Test-Suite (Debian
 * package json-schema-test-suite; the packaged version ships draft3..draft7, so the draft-07
 * files are used) for every supported keyword, plus error reporting details. */
#include <dirent.h>

#include "common/jschema.h"
#include "testutil.h"

static const char *suite_dir(void)
{
    const char *env = getenv("MLSUBMIT_JSTS");
    const char *d = env && *env ? env : "/usr/share/json-schema-test-suite/tests/draft7";
    struct stat st;
    return stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL;
}

/* Files of keywords the validator supports; every case in them must pass except the groups
 * listed in skipped_group (they need remote references, which the validator does not fetch). */
static const char *const files[] = {
    "additionalItems.json", "additionalProperties.json", "allOf.json", "anyOf.json",
    "boolean_schema.json", "const.json", "contains.json", "default.json",
    "dependencies.json", "enum.json", "exclusiveMaximum.json", "exclusiveMinimum.json",
    "if-then-else.json", "items.json", "maxItems.json", "maxLength.json",
    "maxProperties.json", "maximum.json", "minItems.json", "minLength.json",
    "minProperties.json", "minimum.json", "multipleOf.json", "not.json", "oneOf.json",
    "pattern.json", "patternProperties.json", "properties.json", "propertyNames.json",
    "ref.json", "required.json", "type.json", "uniqueItems.json",
};

static int skipped_group(const char *file, const char *desc)
{
    return !strcmp(file, "ref.json") && !strcmp(desc, "remote ref, containing refs itself");
}

START_TEST(official_suite_draft7)
{
    const char *dir = suite_dir();
    if (!dir) {
        fprintf(stderr, "SKIP %s: json-schema-test-suite is not installed\n", __func__);
        return;
    }
    int cases = 0, failures = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        json_error_t je;
        json_t *groups = json_load_file(path, 0, &je);
        ck_assert_msg(groups != NULL, "%s: %s", path, je.text);
        for (size_t g = 0; g < json_array_size(groups); g++) {
            json_t *grp = json_array_get(groups, g);
            const char *gdesc = json_string_value(json_object_get(grp, "description"));
            if (skipped_group(files[f], gdesc))
                continue;
            ms_jschema *s;
            ms_err e;
            ck_assert_msg(ms_jschema_new(&s, json_object_get(grp, "schema"), gdesc, &e) == MS_OK,
                          "%s: %s", gdesc, e.msg);
            json_t *tests = json_object_get(grp, "tests");
            for (size_t t = 0; t < json_array_size(tests); t++) {
                json_t *tc = json_array_get(tests, t);
                int want = json_is_true(json_object_get(tc, "valid"));
                ms_jschema_errors errs = {0};
                int got = ms_jschema_validate(s, json_object_get(tc, "data"), &errs, 0, &e);
                cases++;
                if (got != want) {
                    failures++;
                    fprintf(stderr, "FAIL %s / %s / %s: expected %d got %d %s\n", files[f],
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
    ck_assert_int_gt(cases, 300);
    ck_assert_int_eq(failures, 0);
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

static Suite *suite(void)
{
    Suite *s = suite_create("jsonschema");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, official_suite_draft7);
    tcase_add_test(tc, errors_carry_pointer_and_keyword);
    tcase_add_test(tc, bad_pattern_and_dangling_ref_are_errors);
    tcase_add_test(tc, project_schemas_are_valid_and_accept_samples);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
