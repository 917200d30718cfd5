/* Rendering a checker run: the text report (findings grouped by submitter, system, benchmark,
 * scenario; colour on a terminal), the JSON report, summary.csv, and the reference's summary
 * lines (Results=..., Systems=..., SUMMARY: ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/pyfmt.h"
#include "common/pytext.h"

const ck_state *ck_report_state(const ck_report *r);

typedef struct totals {
    size_t results, noresults, power_results;
    size_t div_results[3], div_power[3];
    size_t systems, power_systems, div_systems[3], div_power_systems[3];
    size_t errors, warnings, infos, waived;
} totals;

static int seen_id(char **list, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], id))
            return 1;
    return 0;
}

/* Whether a result key counts in Results= and the verdict: a truthy value, or with
 * result_counts_unless_none any value (main() of tag v0.7.1 tests `v is None`). */
static int key_counts(const ck_state *run, const ck_key *k)
{
    return k->truthy || (run->rules.sw.result_counts_unless_none && k->has_value);
}

static void compute_totals(const ck_state *run, totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < run->nkeys; i++) {
        if (key_counts(run, &run->keys[i]))
            t->results++;
        else
            t->noresults++;
    }
    const ck_counts *c = &run->counts;
    size_t cap = 0;
    for (int d = 0; d < 3; d++)
        for (int p = 0; p < 2; p++)
            cap += c->n[d][p];
    char **all = calloc(cap ? cap : 1, sizeof *all), **pw = calloc(cap ? cap : 1, sizeof *pw);
    size_t nall = 0, npw = 0;
    for (int d = 0; d < 3; d++) {
        for (int p = 0; p < 2; p++) {
            for (size_t i = 0; i < c->n[d][p]; i++) {
                t->div_results[d] += c->cnt[d][p][i];
                if (p)
                    t->div_power[d] += c->cnt[d][p][i];
                if (all && !seen_id(all, nall, c->ids[d][p][i]))
                    all[nall++] = c->ids[d][p][i];
                if (p && pw && !seen_id(pw, npw, c->ids[d][p][i]))
                    pw[npw++] = c->ids[d][p][i];
            }
        }
        t->div_systems[d] = c->n[d][0] + c->n[d][1];
        t->div_power_systems[d] = c->n[d][1];
        t->power_results += t->div_power[d];
    }
    t->systems = nall;
    t->power_systems = npw;
    free(all);
    free(pw);
    for (size_t i = 0; i < run->findings.n; i++) {
        const ck_finding *f = &run->findings.v[i];
        if (f->waived)
            t->waived++;
        else if (f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict))
            t->errors++;
        else if (f->sev == CK_SEV_WARNING)
            t->warnings++;
        else
            t->infos++;
    }
}

static const char *sev_name(const ck_state *run, const ck_finding *f)
{
    if (f->waived)
        return "WAIVED";
    if (f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict))
        return "ERROR";
    return f->sev == CK_SEV_WARNING ? "WARNING" : "INFO";
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* prints a string replacing bytes that are not valid UTF-8 or are control characters */
static void put_safe(FILE *out, const char *s)
{
    if (!s)
        return;
    size_t n = strlen(s), off;
    if (ms_utf8_valid(s, n, &off)) {
        for (const char *p = s; *p; p++)
            fputc(((unsigned char)*p < 0x20 && *p != '\t') ? '?' : *p, out);
        return;
    }
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p >= 0x80)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
}

static void summary_lines(const ck_state *run, const totals *t, FILE *out, int color)
{
    static const char *const dn[3] = {"Closed", "Open", "Network"};
    fprintf(out, "---\n");
    for (size_t i = 0; i < run->nkeys; i++) {
        if (run->keys[i].has_value || run->keys[i].truthy)
            continue;
        fprintf(out, "NoResults ");
        put_safe(out, run->keys[i].key);
        fputc('\n', out);
    }
    if (!run->rules.sw.summary_power_counts) {
        /* main() of the checkers before v4.0: the two result counts only */
        fprintf(out, "---\nResults=%zu, NoResults=%zu\n", t->results, t->noresults);
        goto verdict;
    }
    fprintf(out, "---\nResults=%zu, NoResults=%zu, Power Results=%zu\n---\n", t->results,
            t->noresults, t->power_results);
    for (int d = 0; d < 3; d++)
        fprintf(out, "%s Results=%zu, %s Power Results=%zu\n", dn[d], t->div_results[d], dn[d],
                t->div_power[d]);
    fprintf(out, "---\nSystems=%zu, Power Systems=%zu\n", t->systems, t->power_systems);
    for (int d = 0; d < 3; d++)
        fprintf(out, "%s Systems=%zu, %s Power Systems=%zu\n", dn[d], t->div_systems[d], dn[d],
                t->div_power_systems[d]);
verdict:
    fprintf(out, "---\n");
    int ok = 1;
    for (size_t i = 0; i < run->nkeys; i++)
        ok &= key_counts(run, &run->keys[i]);
    ok &= t->errors == 0;
    if (ok)
        fprintf(out, "%sSUMMARY: submission looks OK%s\n", color ? "\033[32m" : "",
                color ? "\033[0m" : "");
    else
        fprintf(out, "%sSUMMARY: submission has errors%s\n", color ? "\033[31m" : "",
                color ? "\033[0m" : "");
}

int ck_report_write_text(const ck_report *rep, FILE *out, unsigned flags)
{
    const ck_state *run = ck_report_state(rep);
    int color = (flags & CK_TEXT_COLOR) != 0, quiet = (flags & CK_TEXT_QUIET) != 0;
    totals t;
    compute_totals(run, &t);
    fprintf(out, "mlsubmit check ");
    put_safe(out, run->root);
    fprintf(out, ": rules %s (%s profile)%s%s\n", run->rules.version,
            run->rules.unified ? "unified" : "legacy", run->o->strict ? ", strict" : "",
            run->rules.smoke ? "" : "");
    if (run->rules.smoke)
        fprintf(out, "%sPROFILE %s: %s -- NOT an official verdict%s\n", color ? "\033[35m" : "",
                run->o->profile,
                json_string_value(json_object_get(run->rules.smoke, "description")) ?: "",
                color ? "\033[0m" : "");
    const char *g[5] = {NULL, NULL, NULL, NULL, NULL};
    int first = 1;
    for (size_t i = 0; i < run->findings.n; i++) {
        const ck_finding *f = &run->findings.v[i];
        if (quiet && strcmp(sev_name(run, f), "ERROR"))
            continue;
        int changed = first;
        for (int k = 0; k < 5; k++)
            if (!same(g[k], f->group[k]))
                changed = 1;
        first = 0;
        if (changed) {
            int k0 = 0;
            while (k0 < 5 && same(g[k0], f->group[k0]))
                k0++;
            if (k0 <= 1) {
                fputc('\n', out);
                if (f->group[0]) {
                    fprintf(out, "%s", color ? "\033[1m" : "");
                    put_safe(out, f->group[0]);
                    if (f->group[1]) {
                        fputc('/', out);
                        put_safe(out, f->group[1]);
                    }
                    fprintf(out, "%s\n", color ? "\033[0m" : "");
                } else {
                    fprintf(out, "%s(submission root)%s\n", color ? "\033[1m" : "",
                            color ? "\033[0m" : "");
                }
            }
            if (f->group[2] && (k0 <= 2)) {
                fprintf(out, "  system ");
                put_safe(out, f->group[2]);
                fputc('\n', out);
            }
            if (f->group[3] && k0 <= 4) {
                fprintf(out, "    ");
                put_safe(out, f->group[3]);
                if (f->group[4]) {
                    fprintf(out, " / ");
                    put_safe(out, f->group[4]);
                }
                fputc('\n', out);
            }
            for (int k = 0; k < 5; k++)
                g[k] = f->group[k];
        }
        const char *sev = sev_name(run, f);
        const char *col = !color ? "" : !strcmp(sev, "ERROR") ? "\033[31m"
                                      : !strcmp(sev, "WARNING") ? "\033[33m"
                                      : !strcmp(sev, "WAIVED") ? "\033[36m" : "\033[2m";
        fprintf(out, "      %s%-7s%s %-4s ", col, sev, color ? "\033[0m" : "", f->id);
        if (f->file) {
            put_safe(out, f->file);
            if (f->line)
                fprintf(out, ":%ld", f->line);
            if (f->pointer && *f->pointer) {
                fputc('#', out);
                put_safe(out, f->pointer);
            }
            fprintf(out, ": ");
        }
        put_safe(out, f->message);
        fputc('\n', out);
        if (f->expected || f->found) {
            fprintf(out, "              expected: ");
            put_safe(out, f->expected ? f->expected : "-");
            fprintf(out, "; found: ");
            put_safe(out, f->found ? f->found : "-");
            fputc('\n', out);
        }
        const ck_check_info *ci = ck_check_find(f->id);
        if (f->waived) {
            fprintf(out, "              waived: ");
            put_safe(out, f->waiver);
            fputc('\n', out);
        } else if (ci && f->sev != CK_SEV_INFO) {
            fprintf(out, "              hint: %s\n", ci->hint);
        }
    }
    for (size_t i = 0; i < run->nwaivers && !quiet; i++) {
        int used = 0;
        for (size_t k = 0; k < run->findings.n && !used; k++)
            used = run->findings.v[k].waived && run->findings.v[k].waiver &&
                   !strcmp(run->findings.v[k].waiver, run->waivers[i].why);
        if (!used)
            fprintf(out, "\nnote: waiver at line %ld (%s %s) matched no finding\n",
                    run->waivers[i].line, run->waivers[i].id, run->waivers[i].path);
    }
    for (size_t i = 0; i < run->nnotes && !quiet; i++)
        fprintf(out, "\nnote: %s\n", run->notes[i]);
    fprintf(out, "\n%zu error(s), %zu warning(s), %zu waived", t.errors, t.warnings, t.waived);
    if (run->o->nskip || run->o->skip_power_check || run->o->skip_compliance)
        fprintf(out, "; some checks skipped");
    fprintf(out, "\n");
    summary_lines(run, &t, out, color);
    return ferror(out) ? -1 : 0;
}

/* ---------------------------------------------------------------- JSON ---- */

static json_t *jstr(const char *s)
{
    if (!s)
        return json_null();
    size_t n = strlen(s), off;
    if (ms_utf8_valid(s, n, &off))
        return json_stringn(s, n);
    ms_buf b = MS_BUF_INIT;
    for (size_t i = 0; i < n;) {
        size_t bad;
        if (ms_utf8_valid(s + i, 1, &bad) || (unsigned char)s[i] < 0x80) {
            ms_buf_putc(&b, s[i]);
            i++;
            continue;
        }
        /* copy a valid multi-byte sequence, or replace the byte with U+FFFD */
        size_t len = ((unsigned char)s[i] >= 0xF0) ? 4 : ((unsigned char)s[i] >= 0xE0) ? 3 : 2;
        if (i + len <= n && ms_utf8_valid(s + i, len, &bad)) {
            ms_buf_append(&b, s + i, len);
            i += len;
        } else {
            ms_buf_puts(&b, "\xEF\xBF\xBD");
            i++;
        }
    }
    json_t *j = json_stringn(b.data ? b.data : "", b.len);
    ms_buf_free(&b);
    return j;
}

json_t *ck_report_document(const ck_report *rep, ms_err *e)
{
    const ck_state *run = ck_report_state(rep);
    totals t;
    compute_totals(run, &t);
    json_t *root = json_object();
    json_t *findings = json_array(), *results = json_array();
    if (!root || !findings || !results) {
        json_decref(root);
        json_decref(findings);
        json_decref(results);
        ms_err_oom(e);
        return NULL;
    }
    json_object_set_new(root, "tool", json_string("mlsubmit check"));
    json_object_set_new(root, "root", jstr(run->root));
    json_object_set_new(root, "rules_version", json_string(run->rules.version));
    json_object_set_new(root, "profile", json_string(run->rules.unified ? "unified" : "legacy"));
    json_object_set_new(root, "smoke_profile", run->rules.smoke ? jstr(run->o->profile) : json_null());
    json_object_set_new(root, "strict", json_boolean(run->o->strict));
    int code = ck_report_exit_code(rep);
    json_object_set_new(root, "verdict", json_string(code ? "submission has errors"
                                                          : "submission looks OK"));
    json_object_set_new(root, "exit_code", json_integer(code));
    json_t *counts = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "results", (json_int_t)t.results,
                               "noresults", (json_int_t)t.noresults, "power_results",
                               (json_int_t)t.power_results, "systems", (json_int_t)t.systems,
                               "power_systems", (json_int_t)t.power_systems, "errors",
                               (json_int_t)t.errors, "warnings", (json_int_t)t.warnings);
    static const char *const dn[3] = {"closed", "open", "network"};
    for (int d = 0; counts && d < 3; d++)
        json_object_set_new(counts, dn[d],
                            json_pack("{s:I,s:I,s:I,s:I}", "results", (json_int_t)t.div_results[d],
                                      "power_results", (json_int_t)t.div_power[d], "systems",
                                      (json_int_t)t.div_systems[d], "power_systems",
                                      (json_int_t)t.div_power_systems[d]));
    json_object_set_new(root, "counts", counts ? counts : json_null());
    json_object_set_new(root, "waived", json_integer((json_int_t)t.waived));
    for (size_t i = 0; i < run->findings.n; i++) {
        const ck_finding *f = &run->findings.v[i];
        const ck_check_info *ci = ck_check_find(f->id);
        json_t *o = json_object();
        if (!o)
            continue;
        json_object_set_new(o, "id", json_string(f->id));
        json_object_set_new(o, "title", ci ? json_string(ci->title) : json_null());
        json_object_set_new(o, "severity", json_string(f->sev == CK_SEV_ERROR ? "error"
                                                       : f->sev == CK_SEV_WARNING ? "warning" : "info"));
        json_object_set_new(o, "counts", json_boolean(!f->waived && (f->sev == CK_SEV_ERROR ||
                                                      (f->sev == CK_SEV_WARNING && run->o->strict))));
        json_object_set_new(o, "waived", json_boolean(f->waived));
        if (f->waived)
            json_object_set_new(o, "waiver", jstr(f->waiver));
        json_object_set_new(o, "file", jstr(f->file));
        json_object_set_new(o, "line", f->line ? json_integer(f->line) : json_null());
        json_object_set_new(o, "pointer", jstr(f->pointer));
        json_object_set_new(o, "expected", jstr(f->expected));
        json_object_set_new(o, "found", jstr(f->found));
        json_object_set_new(o, "message", jstr(f->message));
        json_object_set_new(o, "hint", ci ? json_string(ci->hint) : json_null());
        static const char *const gn[5] = {"division", "submitter", "system", "benchmark",
                                          "scenario"};
        for (int k = 0; k < 5; k++)
            json_object_set_new(o, gn[k], jstr(f->group[k]));
        json_array_append_new(findings, o);
    }
    for (size_t i = 0; i < run->nkeys; i++) {
        const ck_key *k = &run->keys[i];
        json_array_append_new(results, json_pack("{s:o,s:o,s:b}", "key", jstr(k->key), "value",
                                                 jstr(k->value), "valid", k->truthy));
    }
    json_object_set_new(root, "findings", findings);
    json_object_set_new(root, "results", results);
    return root;
}

int ck_report_write_json(const ck_report *rep, const char *path, ms_err *e)
{
    json_t *root = ck_report_document(rep, e);
    if (!root)
        return MS_ERUNTIME;
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);
    json_decref(root);
    if (!text)
        return ms_err_oom(e);
    ms_buf b = MS_BUF_INIT;
    int rc = ms_buf_puts(&b, text) || ms_buf_putc(&b, '\n') ? ms_err_oom(e)
                                                             : ms_write_file_atomic(path, b.data, b.len, e);
    ms_buf_free(&b);
    free(text);
    return rc;
}

/* One finding per line: effective severity, ID, file, line, JSON pointer, message (tabs and
 * newlines in fields replaced by spaces) -- for shell scripts and grep. */
static int tsv_field(ms_buf *b, const char *s, int last)
{
    for (const char *p = s ? s : ""; *p; p++)
        if (ms_buf_putc(b, (*p == '\t' || *p == '\n' || *p == '\r') ? ' ' : *p))
            return -1;
    return ms_buf_putc(b, last ? '\n' : '\t');
}

int ck_report_write_tsv(const ck_report *rep, const char *path, ms_err *e)
{
    const ck_state *run = ck_report_state(rep);
    ms_buf b = MS_BUF_INIT;
    for (size_t i = 0; i < run->findings.n; i++) {
        const ck_finding *f = &run->findings.v[i];
        char line[32];
        snprintf(line, sizeof line, "%ld", f->line);
        if (tsv_field(&b, sev_name(run, f), 0) || tsv_field(&b, f->id, 0) ||
            tsv_field(&b, f->file, 0) || tsv_field(&b, f->line ? line : "", 0) ||
            tsv_field(&b, f->pointer, 0) || tsv_field(&b, f->message, 1)) {
            ms_buf_free(&b);
            return ms_err_oom(e);
        }
    }
    int rc = ms_write_file_atomic(path, b.data ? b.data : "", b.len, e);
    ms_buf_free(&b);
    return rc;
}

/* ----------------------------------------------------------------- CSV ---- */

/* summary.csv as text: the round's header, then one line per row */
/* summary.csv; reader: each row as a CSV reader must split it (rows[].reader when set). */
static int csv_text(const ck_report *rep, int reader, ms_buf *out, ms_err *e)
{
    const ck_state *run = ck_report_state(rep);
    const json_t *head = ck_rget(&run->rules, run->rules.unified ? "csv_header_unified"
                                                                 : "csv_header_legacy");
    ms_buf b = MS_BUF_INIT;
    for (size_t i = 0; i < json_array_size(head); i++)
        if ((i && ms_buf_putc(&b, ',')) || ms_buf_puts(&b, json_string_value(json_array_get(head, i))))
            goto oom;
    if (ms_buf_putc(&b, '\n'))
        goto oom;
    for (size_t i = 0; i < run->nrows; i++)
        if (ms_buf_puts(&b, reader && run->rows[i].reader ? run->rows[i].reader : run->rows[i].text) ||
            ms_buf_putc(&b, '\n'))
            goto oom;
    *out = b;
    return MS_OK;
oom:
    ms_buf_free(&b);
    return ms_err_oom(e);
}

int ck_report_write_csv(const ck_report *rep, const char *path, ms_err *e)
{
    ms_buf b = MS_BUF_INIT;
    int rc = csv_text(rep, 0, &b, e);
    if (rc == MS_OK)
        rc = ms_write_file_atomic(path, b.data, b.len, e);
    ms_buf_free(&b);
    return rc;
}

int ck_report_rows(const ck_report *rep, ms_csv *out, ms_err *e)
{
    memset(out, 0, sizeof *out);
    ms_buf b = MS_BUF_INIT;
    int rc = csv_text(rep, 1, &b, e);
    if (rc == MS_OK)
        rc = ms_csv_parse(b.data, b.len, "summary.csv", out, e);
    ms_buf_free(&b);
    return rc;
}

void ck_row_unit_result(const ck_rules *r, const ck_scen *s, const char *scen, int power_row, const char **unit,
                        const char **punit, char result[64])
{
    *unit = json_string_value(json_object_get(ck_rget3(r, "units", "overrides", s->mlperf_model), scen));
    if (!*unit)
        *unit = json_string_value(json_object_get(ck_rget2(r, "units", "default"), scen));
    *punit = json_string_value(ck_rget2(r, "power_units", scen));
    if (power_row)
        ms_py_float_repr(s->power_metric, result);
    else
        snprintf(result, 64, "%s", s->row_result_set ? s->row_result : s->value.text);
}
