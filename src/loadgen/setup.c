/* One way to build a LoadGen run (lg_run_setup_build, loadgen.h): the settings a submission's
 * harness would have (TestSettings defaults, then TestSettings::FromConfig for mlperf.conf and
 * user.conf in loadgen/test_settings_internal.cc's order, then the command line's --set) and the
 * SUT. Used by `loadgen run` and `loadgen check-conf` (src/cli/loadgen.c), `sut serve`
 * (src/cli/sut.c) and the audits (src/audit/run.c). */
#include <stdlib.h>
#include <string.h>

#include "loadgen/loadgen.h"

static int apply_sets(const lg_run_spec *sp, lg_test_settings *s, ms_err *e)
{
    for (size_t i = 0; i < sp->nsets; i++) {
        const char *eq = strchr(sp->sets[i], '=');
        if (!eq)
            return ms_err_set(e, MS_EUSAGE, "--set '%s': expected KEY=VALUE", sp->sets[i]);
        char *name = strndup(sp->sets[i], (size_t)(eq - sp->sets[i]));
        if (!name)
            return ms_err_oom(e);
        int rc = lg_settings_set(s, name, eq + 1, e);
        free(name);
        if (rc != MS_OK)
            return ms_err_prefix(e, "--set");
    }
    return MS_OK;
}

static int is_audit_config(const char *path)
{
    const char *b = strrchr(path, '/');
    return !strcmp(b ? b + 1 : path, "audit.config");
}

/* A user.conf: its model's lines (the first user.conf of the session brings mlperf.conf); the
 * LoadGen rejects a malformed file whole. */
static int apply_user_conf(const lg_run_spec *sp, lg_run_setup *r, const char *path, ms_err *e)
{
    const char *sname = lg_scenario_name(sp->scenario);
    if (lg_settings_from_config(r->conf, &r->settings, path, sp->model ? sp->model : "", sname, 1) == 0 ||
        sp->check_files)
        return MS_OK;
    const char *why = "";
    for (size_t i = 0; i < lg_conf_session_nfindings(r->conf); i++)
        if (lg_conf_session_finding(r->conf, i)->kind == LG_CONF_MALFORMED) {
            why = lg_conf_session_finding(r->conf, i)->text;
            break;
        }
    r->user_conf_rejected = 1;
    return ms_err_set(e, MS_EINPUT, "%s was not applied (the LoadGen rejects the whole file): %s", path, why);
}

int lg_run_settings_build(const lg_run_spec *sp, lg_run_setup *r, ms_err *e)
{
    memset(r, 0, sizeof *r);
    lg_test_settings *s = &r->settings;
    lg_settings_default(s);
    lg_settings_release_defaults(s, lg_version_rules_of_compat(sp->compat));
    s->scenario = sp->scenario;
    const char *sname = lg_scenario_name(sp->scenario);
    if (!(r->conf = lg_conf_session_new(sp->compat, sp->mlperf_conf, e)))
        return e->code;
    int rc, any = 0;
    if (sp->user_conf) {
        if ((rc = apply_user_conf(sp, r, sp->user_conf, e)) != MS_OK)
            return rc;
        any = 1;
    }
    for (size_t i = 0; i < sp->nconf_files; i++) {
        const char *f = sp->conf_files[i];
        if (is_audit_config(f)) {
            if (!any) /* an audit.config applies on top of mlperf.conf */
                lg_settings_apply_mlperf_conf(r->conf, s, sp->model ? sp->model : "", sname);
            lg_settings_from_config(r->conf, s, f, "*", sname, 2);
        } else if ((rc = apply_user_conf(sp, r, f, e)) != MS_OK) {
            return rc;
        }
        any = 1;
    }
    if (!any && !sp->check_files && (sp->model || sp->mlperf_conf))
        lg_settings_apply_mlperf_conf(r->conf, s, sp->model ? sp->model : "", sname);
    if (!sp->lock_scenario_mode && sp->mode >= 0)
        s->mode = (lg_mode)sp->mode;
    rc = apply_sets(sp, s, e);
    if (rc != MS_OK) {
        r->bad_set = 1;
        return rc;
    }
    if (sp->lock_scenario_mode) {
        s->scenario = sp->scenario;
        if (sp->mode >= 0)
            s->mode = (lg_mode)sp->mode;
    }
    return MS_OK;
}

int lg_run_setup_build(const lg_run_spec *sp, lg_run_setup *r, ms_err *e)
{
    int rc = lg_run_settings_build(sp, r, e);
    if (rc != MS_OK)
        return rc;
    size_t total = sp->total_samples;
    lg_sut_env env = {&r->settings, sp->data_dir, total, sp->performance_samples ? sp->performance_samples : total};
    r->sut = lg_sut_create(sp->sut_spec, &env, e);
    if (!r->sut && !total && sp->fallback_samples) {
        /* a SUT with its own dataset (digits) uses it whole; others get a counting QSL */
        ms_err e2;
        env.total_sample_count = env.performance_sample_count = sp->fallback_samples;
        r->sut = lg_sut_create(sp->sut_spec, &env, &e2);
        if (!r->sut && e2.code != MS_EUSAGE)
            *e = e2;
    }
    if (!r->sut)
        return e->code;
    return MS_OK;
}

void lg_run_setup_free(lg_run_setup *r)
{
    lg_sut_destroy(r->sut);
    lg_conf_session_free(r->conf);
    r->sut = NULL;
    r->conf = NULL;
}
