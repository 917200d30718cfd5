/* One way to build a LoadGen run (lg_run_setup_build, loadgen.h): the settings a submission's
 * harness would have (TestSettings defaults, then TestSettings::FromConfig for mlperf.conf and
 * user.conf in loadgen/test_settings_internal.cc's order, then the command line's --set) and the
 * SUT. Used by `loadgen run` (src/cli/loadgen.c) and the audits (src/audit/run.c). */
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

int lg_run_setup_build(const lg_run_spec *sp, lg_run_setup *r, ms_err *e)
{
    memset(r, 0, sizeof *r);
    lg_test_settings *s = &r->settings;
    lg_settings_default(s);
    s->scenario = sp->scenario;
    const char *sname = lg_scenario_name(sp->scenario);
    if (!(r->conf = lg_conf_session_new(sp->compat, sp->mlperf_conf, e)))
        return e->code;
    if (sp->user_conf) {
        if (lg_settings_from_config(r->conf, s, sp->user_conf, sp->model ? sp->model : "", sname, 1) != 0) {
            const char *why = "";
            for (size_t i = 0; i < lg_conf_session_nfindings(r->conf); i++)
                if (lg_conf_session_finding(r->conf, i)->kind == LG_CONF_MALFORMED) {
                    why = lg_conf_session_finding(r->conf, i)->text;
                    break;
                }
            r->user_conf_rejected = 1;
            return ms_err_set(e, MS_EINPUT, "%s was not applied (the LoadGen rejects the whole file): %s",
                              sp->user_conf, why);
        }
    } else if (sp->model || sp->mlperf_conf) {
        lg_settings_apply_mlperf_conf(r->conf, s, sp->model ? sp->model : "", sname);
    }
    if (!sp->lock_scenario_mode && sp->mode >= 0)
        s->mode = (lg_mode)sp->mode;
    int rc = apply_sets(sp, s, e);
    if (rc != MS_OK) {
        r->bad_set = 1;
        return rc;
    }
    if (sp->lock_scenario_mode) {
        s->scenario = sp->scenario;
        if (sp->mode >= 0)
            s->mode = (lg_mode)sp->mode;
    }
    size_t total = sp->total_samples;
    lg_sut_env env = {s, sp->data_dir, total, sp->performance_samples ? sp->performance_samples : total};
    if (!(r->sut = lg_sut_create(sp->sut_spec, &env, e)))
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
