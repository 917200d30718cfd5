/* The checker's hook for the text detail log of LoadGen 0.5/0.7 (common/textlog.h): the one
 * place where a detail log in that format enters the checker (load_dlog in scenario.c calls it
 * when the :::MLLOG reader found no record). Its ERROR records become the log's error texts. */
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"
#include "common/textlog.h"

int ck_dlog_text_errors(ck_dlog *d, const char *path, ms_err *e)
{
    char *text = NULL;
    size_t len = 0;
    if (ck_read_text(path, (size_t)256 << 20, &text, &len, e))
        return MS_EINPUT;
    if (ms_log_detect(text, len) != MS_LOGFMT_TEXT) {
        free(text);
        return MS_OK;
    }
    ms_textlog t;
    int rc = ms_textlog_parse(&t, text, len, e);
    free(text);
    if (rc)
        return rc;
    for (size_t i = 0; i < t.nrecs; i++) {
        const ms_textlog_rec *r = &t.recs[i];
        if (!r->is_error)
            continue;
        d->n_error_recs++;
        char **nv = realloc(d->errors, (d->nerror_texts + 1) * sizeof *nv);
        /* the message as the line shows it: "key : value" or the bare message */
        char *msg = nv ? malloc(r->key_len + r->value_len + 4) : NULL;
        if (!nv || !msg) {
            if (nv)
                d->errors = nv;
            free(msg);
            ms_textlog_free(&t);
            return ms_err_oom(e);
        }
        d->errors = nv;
        memcpy(msg, r->key, r->key_len);
        size_t n = r->key_len;
        if (r->has_value) {
            memcpy(msg + n, " : ", 3);
            n += 3;
            memcpy(msg + n, r->value, r->value_len);
            n += r->value_len;
        }
        msg[n] = '\0';
        d->errors[d->nerror_texts++] = msg;
    }
    ms_textlog_free(&t);
    return MS_OK;
}
