/* The rules module (src/rules/rules.h): the data-folder lookup and its one order, the newest
 * round, loading a round, model mapping (empty mappings as the official checker treats them),
 * the scenario enum and its directory aliases. */
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "rules/rules.h"
#include "testutil.h"

static json_t *jparse(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    ck_assert_msg(j != NULL, "%s", je.text);
    return j;
}

START_TEST(data_dir_order)
{
    ms_err e;
    unsetenv(RU_RULES_ENV_OLD);
    setenv(RU_DATA_ENV, ".", 1);
    char *d = ru_data_dir(NULL, NULL, &e);
    ck_assert_ptr_nonnull(d);
    char *v = ru_newest_round(d, &e);
    ck_assert_str_eq(v, "v6.1");
    free(v);
    free(d);
    /* set: the only place looked at */
    setenv(RU_DATA_ENV, "/nonexistent", 1);
    ck_assert_ptr_null(ru_data_dir(NULL, NULL, &e));
    ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent (" RU_DATA_ENV ")"));
    /* a given folder comes first */
    d = ru_data_dir(".", NULL, &e);
    ck_assert_str_eq(d, ".");
    free(d);
    unsetenv(RU_DATA_ENV);
    /* the deprecated MLSUBMIT_RULES names the rules folder itself */
    setenv(RU_RULES_ENV_OLD, "rules", 1);
    d = ru_data_dir(NULL, NULL, &e);
    ck_assert_str_eq(d, "rules/..");
    free(d);
    unsetenv(RU_RULES_ENV_OLD);
    /* the working directory, then beside the binary: <repo>/build/x -> <repo>, <prefix>/bin/x
     * -> <prefix>/share/mlsubmit; laid out in a temporary folder (no build tree needed) */
    char t[256], p[512], real[PATH_MAX], cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ms_test_tmpdir(t, sizeof t);
    ck_assert_ptr_nonnull(realpath(t, real));
    const char *dirs[] = {"build", "rules", "prefix", "prefix/bin", "prefix/share", "prefix/share/mlsubmit",
                          "prefix/share/mlsubmit/rules", "bare", "bare/bin", "wd", "wd/rules"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", t, dirs[i]);
        ck_assert_int_eq(mkdir(p, 0755), 0);
    }
    const char *exes[] = {"build/x", "prefix/bin/x", "bare/bin/x"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", t, exes[i]);
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/bare", t);
    ck_assert_int_eq(chdir(p), 0);
    char want[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/build/x", t);
    d = ru_data_dir(NULL, p, &e);
    snprintf(want, sizeof want, "%s/build/..", real);
    ck_assert_str_eq(d, want);
    free(d);
    snprintf(p, sizeof p, "%s/prefix/bin/x", t);
    d = ru_data_dir(NULL, p, &e);
    snprintf(want, sizeof want, "%s/prefix/bin/../share/mlsubmit", real);
    ck_assert_str_eq(d, want);
    free(d);
    snprintf(p, sizeof p, "%s/bare/bin/x", t);
    ck_assert_ptr_null(ru_data_dir(NULL, p, &e));
    ck_assert_ptr_nonnull(strstr(e.msg, ". (working directory), "));
    ck_assert_ptr_nonnull(strstr(e.msg, "share/mlsubmit (installation)"));
    /* the working directory before the binary's places */
    snprintf(p, sizeof p, "%s/wd", t);
    ck_assert_int_eq(chdir(p), 0);
    snprintf(p, sizeof p, "%s/build/x", t);
    d = ru_data_dir(NULL, p, &e);
    ck_assert_str_eq(d, ".");
    free(d);
    char *f = ru_data_path(".", "rules", "v1.0.json");
    ck_assert_str_eq(f, "rules/v1.0.json");
    free(f);
    ck_assert_int_eq(chdir(cwd), 0);
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", t, exes[i]);
        unlink(p);
    }
    for (size_t i = sizeof dirs / sizeof *dirs; i-- > 0;) {
        snprintf(p, sizeof p, "%s/%s", t, dirs[i]);
        rmdir(p);
    }
    rmdir(t);
}
END_TEST

START_TEST(round_load)
{
    ms_err e;
    ru_round r;
    ck_assert_int_eq(ru_round_load(&r, ".", "v5.1", &e), MS_OK);
    ck_assert(!r.unified);
    ck_assert_str_eq(r.path, "rules/v5.1.json");
    ru_round_free(&r);
    ck_assert_int_eq(ru_round_load(&r, ".", NULL, &e), MS_OK);
    ck_assert_str_eq(r.version, "v6.1");
    ck_assert(r.unified);
    ru_round_free(&r);
    ck_assert_int_eq(ru_round_load(&r, ".", "v0.1", &e), MS_EUSAGE);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown version 'v0.1'"));
    /* the message names the rounds there, oldest first */
    ck_assert_ptr_nonnull(strstr(e.msg, "(the rounds there: v0.5, v0.7, v1.0, v1.1, v2.0, "));
    ck_assert_ptr_nonnull(strstr(e.msg, ", v6.1)"));
}
END_TEST

/* the rounds of a data folder: only v<major>.<minor>.json files, in version order (v1.9 before
 * v1.10, v10.0 last), the newest the last of them; an empty folder and a missing one */
START_TEST(rounds_in_version_order)
{
    char t[256], p[512];
    ms_test_tmpdir(t, sizeof t);
    snprintf(p, sizeof p, "%s/rules", t);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    ms_err e;
    char **v;
    size_t n;
    ck_assert_int_eq(ru_rounds(t, &v, &n, &e), MS_OK);
    ck_assert_uint_eq(n, 0);
    ru_rounds_free(v, n);
    ck_assert_ptr_null(ru_newest_round(t, &e));
    ck_assert_ptr_nonnull(strstr(e.msg, "holds no v<major>.<minor>.json rules file"));
    const char *files[] = {"v1.10.json", "v10.0.json", "v1.9.json", "v2.0.json", "demo.json",
                           "v3.json", "v4.0.json.bak", "vx.1.json", "v0.5.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(p, sizeof p, "%s/rules/%s", t, files[i]);
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fputs("{}", f);
        fclose(f);
    }
    ck_assert_int_eq(ru_rounds(t, &v, &n, &e), MS_OK);
    const char *want[] = {"v0.5", "v1.9", "v1.10", "v2.0", "v10.0"};
    ck_assert_uint_eq(n, sizeof want / sizeof *want);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(v[i], want[i]);
    ru_rounds_free(v, n);
    char *newest = ru_newest_round(t, &e);
    ck_assert_str_eq(newest, "v10.0");
    free(newest);
    ru_round r;
    ck_assert_int_eq(ru_round_load(&r, t, "v9.0", &e), MS_EUSAGE);
    ck_assert_ptr_nonnull(strstr(e.msg, "(the rounds there: v0.5, v1.9, v1.10, v2.0, v10.0)"));
    snprintf(p, sizeof p, "%s/none", t);
    ck_assert_int_eq(ru_rounds(p, &v, &n, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "cannot list the rules"));
}
END_TEST

/* validation against schemas/rules.schema.json: a round, the compliance definition, problems */
START_TEST(validate_against_the_schema)
{
    ms_err e;
    ru_round r;
    ck_assert_int_eq(ru_round_load(&r, ".", "v5.1", &e), MS_OK);
    ms_buf b = MS_BUF_INIT;
    ck_assert_int_eq(ru_validate(r.j, ".", NULL, &b, &e), 0);
    ru_round_free(&r);
    json_error_t je;
    json_t *c = json_load_file("rules/compliance.json", 0, &je);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(ru_validate(c, ".", "compliance_rules", &b, &e), 0);
    ck_assert_ptr_null(b.data);
    json_object_del(c, "tests");
    ck_assert_int_ge(ru_validate(c, ".", "compliance_rules", &b, &e), 1);
    ck_assert_ptr_nonnull(strstr(b.data, "tests"));
    json_decref(c);
    ms_buf_reset(&b);
    json_t *bad = jparse("{\"version\": 5}");
    ck_assert_int_ge(ru_validate(bad, ".", NULL, &b, &e), 1);
    ck_assert_ptr_nonnull(strstr(b.data, "/version: "));
    json_decref(bad);
    ms_buf_free(&b);
    ck_assert_int_eq(ru_validate(NULL, "/nonexistent", NULL, &b, &e), -1);
}
END_TEST

/* submission_checker.py get_mlperf_model: "if mlperf_model:" skips an empty mapping (of the
 * round or of the submitter), the final dict.get(model, model) returns it as it is */
START_TEST(model_mapping_empty_entries)
{
    json_t *r = jparse("{\"models\": [\"resnet\", \"bert-99\"], \"model_mapping\": {\"resnet50\": \"resnet\","
                       " \"empty\": \"\", \"bert-99\": \"x\"},"
                       " \"model_guesses\": [{\"contains\": [\"mobilenet\", \"resnet50\"], \"model\": \"resnet\"},"
                       " {\"contains\": [\"bert-99\"], \"model\": \"bert-99\"}, {\"contains\": [\"nomodel\"]}]}");
    json_t *x = jparse("{\"mine\": \"bert-99\", \"blank\": \"\", \"empty\": \"resnet\"}");
    ck_assert_str_eq(ru_map_model(r, "resnet", NULL, 0), "resnet");
    ck_assert_str_eq(ru_map_model(r, "resnet50", x, 0), "resnet");
    ck_assert_str_eq(ru_map_model(r, "mine", x, 0), "bert-99");
    /* the round's empty mapping is skipped: the submitter's mapping wins */
    ck_assert_str_eq(ru_map_model(r, "empty", x, 0), "resnet");
    /* without one, the final lookup returns the empty mapping */
    ck_assert_str_eq(ru_map_model(r, "empty", NULL, 0), "");
    /* an empty submitter mapping is skipped too: the name itself */
    ck_assert_str_eq(ru_map_model(r, "blank", x, 0), "blank");
    ck_assert_str_eq(ru_map_model(r, "my-mobilenet-v2", NULL, 0), "resnet");
    /* a guess is mapped again */
    ck_assert_str_eq(ru_map_model(r, "large-bert-99", NULL, 0), "x");
    /* a guess without a model is no guess */
    ck_assert_str_eq(ru_map_model(r, "nomodel-1", NULL, 0), "nomodel-1");
    json_decref(x);
    json_decref(r);
}
END_TEST

/* v0.7.1 get_mlperf_model guesses by model.startswith ("prefix"); the v1.0-v2.1 checkers merge
 * --extra-model-benchmark-map into the mapping, so the submitter's entry wins (extra_first) */
START_TEST(model_mapping_prefix_and_extra_first)
{
    json_t *r = jparse("{\"models\": [\"resnet\", \"ssd-small\"], \"model_mapping\": {\"mine\": \"resnet\"},"
                       " \"model_guesses\": [{\"prefix\": [\"ssd-mobilenet\"], \"model\": \"ssd-small\"}]}");
    json_t *x = jparse("{\"mine\": \"ssd-small\"}");
    ck_assert_str_eq(ru_map_model(r, "ssd-mobilenet-v1", NULL, 0), "ssd-small");
    ck_assert_str_eq(ru_map_model(r, "my-ssd-mobilenet", NULL, 0), "my-ssd-mobilenet");
    ck_assert_str_eq(ru_map_model(r, "mine", x, 0), "resnet");
    ck_assert_str_eq(ru_map_model(r, "mine", x, 1), "ssd-small");
    json_decref(x);
    json_decref(r);
}
END_TEST

START_TEST(scenarios)
{
    ck_assert_int_eq(RU_NSCENARIOS, 5);
    ck_assert_str_eq(ru_scenario_name(RU_SERVER), "Server");
    ck_assert_ptr_null(ru_scenario_name(RU_NSCENARIOS));
    ck_assert_ptr_null(ru_scenario_name(-1));
    for (int s = 0; s < RU_NSCENARIOS; s++)
        ck_assert_int_eq(ru_scenario_parse(ru_scenario_name(s)), s);
    ck_assert_int_eq(ru_scenario_parse("offline"), -1);
    ck_assert_int_eq(ru_scenario_parse(NULL), -1);
    /* without rules: the lower-case names preprocess_submission.py writes */
    ck_assert_int_eq(ru_scenario_from_dir(NULL, "singlestream"), RU_SINGLE_STREAM);
    ck_assert_int_eq(ru_scenario_from_dir(NULL, "interactive"), RU_INTERACTIVE);
    ck_assert_int_eq(ru_scenario_from_dir(NULL, "OFFLINE"), -1);
    ck_assert_int_eq(ru_scenario_from_dir(NULL, "Offline2"), -1);
    /* with rules: the round's aliases only */
    json_t *r = jparse("{\"scenario_dir_aliases\": {\"offline\": \"Offline\", \"bad\": \"Nope\"}}");
    ck_assert_str_eq(ru_scenario_canon(r, "offline"), "Offline");
    ck_assert_str_eq(ru_scenario_canon(r, "MultiStream"), "MultiStream");
    ck_assert_ptr_null(ru_scenario_canon(r, "server"));
    ck_assert_ptr_null(ru_scenario_canon(r, "bad"));
    json_decref(r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, data_dir_order);
    tcase_add_test(tc, round_load);
    tcase_add_test(tc, rounds_in_version_order);
    tcase_add_test(tc, validate_against_the_schema);
    tcase_add_test(tc, model_mapping_empty_entries);
    tcase_add_test(tc, model_mapping_prefix_and_extra_first);
    tcase_add_test(tc, scenarios);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
