/* W6 (v6.1): the design (nameplate) power of a system from systems/<sys>_power.yaml, read with
 * libyaml the way the unified checker reads it with PyYAML's safe_load: one document; plain
 * scalars resolved as YAML 1.1 (int, float, bool, null, else str); then the sum over the leaves
 * (mappings having both "PSUs" and "Min PSUs Needed", keys compared case-insensitively) of the
 * "Min PSUs Needed" largest "PowerCapacityWatts" values, other mappings and lists summed
 * recursively. A file that safe_load would reject (syntax, several documents, an empty
 * document) or a structure the summation would raise on is an error. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "checker/internal.h"
#include "common/pyfmt.h"
#include "common/pytext.h"

#define NP_MAX_DEPTH 200

typedef struct npnum {
    int is_float;
    int big;            /* an integer beyond 64 bits: Python would hold it, we refuse it */
    long long i;
    double d;
} npnum;

typedef enum { NP_STR, NP_INT, NP_FLOAT, NP_BOOL, NP_NULL } nptype;

typedef struct npctx {
    yaml_document_t *doc;
    pcre2_code *re[4];          /* int, float, bool, null */
    pcre2_match_data *md;
    char *err;
    size_t errlen;
} npctx;

static const char *const np_patterns[4] = {
    /* PyYAML's implicit resolvers (YAML 1.1) */
    "^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    "|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
    "^(?:[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|\\.[0-9_]+(?:[eE][-+][0-9]+)?"
    "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$",
    "^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
    "^(?:~|null|Null|NULL|)$",
};

static void np_fail(npctx *c, const yaml_node_t *n, const char *what)
{
    if (c->err[0])
        return;
    if (n)
        snprintf(c->err, c->errlen, "line %lu: %s", (unsigned long)n->start_mark.line + 1, what);
    else
        snprintf(c->err, c->errlen, "%s", what);
}

static int np_match(const npctx *c, int k, const char *s, size_t n)
{
    return pcre2_match(c->re[k], (PCRE2_SPTR)s, n, 0, 0, c->md, NULL) >= 0;
}

/* the resolved type of a scalar node and, for numbers, its value */
static nptype np_scalar(npctx *c, const yaml_node_t *n, npnum *v)
{
    const char *s = (const char *)n->data.scalar.value;
    size_t len = n->data.scalar.length;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return NP_STR;   /* quoted scalars are strings; plain ones are resolved implicitly */
    if (np_match(c, 2, s, len)) {
        v->is_float = 0;
        v->i = (s[0] == 'y' || s[0] == 'Y' || s[0] == 't' || s[0] == 'T' ||
                ((s[0] == 'o' || s[0] == 'O') && len == 2));
        return NP_BOOL;
    }
    if (np_match(c, 3, s, len))
        return NP_NULL;
    int isint = np_match(c, 0, s, len);
    if (!isint && !np_match(c, 1, s, len))
        return NP_STR;
    /* the constructor: underscores dropped, sign, then the base or the sexagesimal form */
    char *buf = malloc(len + 1);
    if (!buf) {
        np_fail(c, n, "out of memory");
        return NP_STR;
    }
    size_t k = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] != '_')
            buf[k++] = s[i];
    buf[k] = '\0';
    char *p = buf;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    v->big = 0;
    if (isint) {
        v->is_float = 0;
        errno = 0;
        if (strchr(p, ':')) {
            long long acc = 0;
            for (char *tok = strtok(p, ":"); tok; tok = strtok(NULL, ":")) {
                long long d = strtoll(tok, NULL, 10);
                if (__builtin_mul_overflow(acc, 60LL, &acc) || __builtin_add_overflow(acc, d, &acc))
                    v->big = 1;
            }
            v->i = acc;
        } else if (!strcmp(p, "0")) {
            v->i = 0;
        } else if (!strncmp(p, "0b", 2)) {
            v->i = strtoll(p + 2, NULL, 2);
        } else if (!strncmp(p, "0x", 2)) {
            v->i = strtoll(p + 2, NULL, 16);
        } else if (p[0] == '0') {
            v->i = strtoll(p + 1, NULL, 8);
        } else {
            v->i = strtoll(p, NULL, 10);
        }
        if (errno == ERANGE)
            v->big = 1;
        if (v->big)
            v->i = 0;
        else if (neg)
            v->i = -v->i;
        free(buf);
        return NP_INT;
    }
    v->is_float = 1;
    for (char *q = p; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    if (!strcmp(p, ".inf")) {
        v->d = INFINITY;
    } else if (!strcmp(p, ".nan")) {
        v->d = NAN;
    } else if (strchr(p, ':')) {
        double acc = 0;
        for (char *tok = strtok(p, ":"); tok; tok = strtok(NULL, ":"))
            acc = acc * 60 + strtod(tok, NULL);
        v->d = acc;
    } else {
        v->d = strtod(p, NULL);
    }
    if (neg)
        v->d = -v->d;
    free(buf);
    return NP_FLOAT;
}

static double np_val(const npnum *a)
{
    return a->is_float ? a->d : (double)a->i;
}

/* Python a + b for int/float; -1 when an integer sum leaves 64 bits */
static int np_add(npnum *acc, const npnum *b)
{
    if (acc->is_float || b->is_float) {
        acc->d = np_val(acc) + np_val(b);
        acc->is_float = 1;
        return 0;
    }
    return __builtin_add_overflow(acc->i, b->i, &acc->i) ? -1 : 0;
}

static int np_sum(npctx *c, const yaml_node_t *n, int depth, npnum *out);

/* a mapping key as Python would hold it: a str, else the summation raises on .lower() */
static int np_key(npctx *c, const yaml_node_t *k, char *low, size_t cap)
{
    npnum v;
    if (!k || k->type != YAML_SCALAR_NODE || np_scalar(c, k, &v) != NP_STR) {
        np_fail(c, k, "a mapping key is not a string");
        return -1;
    }
    size_t n = k->data.scalar.length < cap - 1 ? k->data.scalar.length : cap - 1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower(k->data.scalar.value[i]);
    low[n] = '\0';
    return 0;
}

static int np_leaf(npctx *c, const yaml_node_t *minn, const yaml_node_t *psus, npnum *out)
{
    npnum mv = {0};
    long long take;
    int all = 0;
    nptype mt = minn && minn->type == YAML_SCALAR_NODE ? np_scalar(c, minn, &mv) : NP_STR;
    if (mt == NP_NULL)
        all = 1;
    else if (mt != NP_INT && mt != NP_BOOL) {
        np_fail(c, minn, "'Min PSUs Needed' is not an integer");
        return -1;
    }
    if (mv.big) {
        np_fail(c, minn, "'Min PSUs Needed' is an integer beyond 64 bits");
        return -1;
    }
    take = mv.i;
    if (!psus || psus->type != YAML_SEQUENCE_NODE) {
        np_fail(c, psus, "'PSUs' is not a list of PSUs");
        return -1;
    }
    size_t n = (size_t)(psus->data.sequence.items.top - psus->data.sequence.items.start);
    npnum *cap = calloc(n ? n : 1, sizeof *cap);
    if (!cap) {
        np_fail(c, NULL, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *psu = yaml_document_get_node(c->doc, psus->data.sequence.items.start[i]);
        if (!psu || psu->type != YAML_MAPPING_NODE) {
            np_fail(c, psu, "a PSU entry is not a mapping");
            free(cap);
            return -1;
        }
        cap[i].is_float = 0;
        cap[i].i = 0;  /* .get("PowerCapacityWatts", 0): the last such key */
        for (yaml_node_pair_t *pr = psu->data.mapping.pairs.start; pr < psu->data.mapping.pairs.top; pr++) {
            const yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
            const yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
            if (!k || k->type != YAML_SCALAR_NODE || k->data.scalar.length != 18 ||
                memcmp(k->data.scalar.value, "PowerCapacityWatts", 18))
                continue;
            nptype t = v && v->type == YAML_SCALAR_NODE ? np_scalar(c, v, &cap[i]) : NP_STR;
            if (t != NP_INT && t != NP_FLOAT && t != NP_BOOL) {
                np_fail(c, v, "'PowerCapacityWatts' is not a number");
                free(cap);
                return -1;
            }
            if (cap[i].big) {
                np_fail(c, v, "'PowerCapacityWatts' is an integer beyond 64 bits");
                free(cap);
                return -1;
            }
        }
    }
    /* sorted(reverse=True) keeps equal values in their order: a stable insertion sort */
    for (size_t i = 1; i < n; i++) {
        npnum x = cap[i];
        size_t j = i;
        while (j > 0 && np_val(&cap[j - 1]) < np_val(&x)) {
            cap[j] = cap[j - 1];
            j--;
        }
        cap[j] = x;
    }
    long long k = all ? (long long)n : take;
    if (k < 0)
        k = (long long)n + k < 0 ? 0 : (long long)n + k;
    if (k > (long long)n)
        k = (long long)n;
    for (long long i = 0; i < k; i++)
        if (np_add(out, &cap[i])) {
            np_fail(c, psus, "the sum of 'PowerCapacityWatts' is beyond 64 bits");
            free(cap);
            return -1;
        }
    free(cap);
    return 0;
}

static int np_sum(npctx *c, const yaml_node_t *n, int depth, npnum *out)
{
    if (!n)
        return 0;
    if (depth > NP_MAX_DEPTH) {
        np_fail(c, n, "the structure is nested too deeply (or refers to itself)");
        return -1;
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
            if (np_sum(c, yaml_document_get_node(c->doc, *it), depth + 1, out))
                return -1;
        return 0;
    }
    if (n->type != YAML_MAPPING_NODE)
        return 0;
    const yaml_node_t *minn = NULL, *psus = NULL;
    int have_min = 0, have_psus = 0;
    for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
        char low[64];
        if (np_key(c, yaml_document_get_node(c->doc, pr->key), low, sizeof low))
            return -1;
        if (!strcmp(low, "psus")) {
            psus = yaml_document_get_node(c->doc, pr->value);
            have_psus = 1;
        } else if (!strcmp(low, "min psus needed")) {
            minn = yaml_document_get_node(c->doc, pr->value);
            have_min = 1;
        }
    }
    if (have_min && have_psus)
        return np_leaf(c, minn, psus, out);
    for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++)
        if (np_sum(c, yaml_document_get_node(c->doc, pr->value), depth + 1, out))
            return -1;
    return 0;
}

static int np_compile(npctx *c)
{
    for (int i = 0; i < 4; i++) {
        int e;
        PCRE2_SIZE o;
        c->re[i] = pcre2_compile((PCRE2_SPTR)np_patterns[i], PCRE2_ZERO_TERMINATED, 0, &e, &o, NULL);
        if (!c->re[i])
            return -1;
    }
    c->md = pcre2_match_data_create_from_pattern(c->re[0], NULL);
    return c->md ? 0 : -1;
}

int ck_nameplate_yaml(const char *path, char **value, char *err, size_t errlen)
{
    *value = NULL;
    err[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open the file");
        return -1;
    }
    yaml_parser_t parser;
    yaml_document_t doc, next;
    npctx c;
    memset(&c, 0, sizeof c);
    c.doc = &doc;
    c.err = err;
    c.errlen = errlen;
    int rc = -1, have_doc = 0, have_next = 0;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "line %lu: %s", (unsigned long)parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "YAML syntax error");
        goto out;
    }
    have_doc = 1;
    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        snprintf(err, errlen, "the file holds no YAML document");
        goto out;
    }
    if (!yaml_parser_load(&parser, &next)) {
        snprintf(err, errlen, "line %lu: %s", (unsigned long)parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "YAML syntax error");
        goto out;
    }
    have_next = 1;
    if (yaml_document_get_root_node(&next)) {
        snprintf(err, errlen, "the file holds more than one YAML document");
        goto out;
    }
    if (np_compile(&c)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (root->type == YAML_SCALAR_NODE) {
        /* a lone null scalar is what safe_load returns for an empty document */
        npnum v;
        if (np_scalar(&c, root, &v) == NP_NULL) {
            snprintf(err, errlen, "the YAML document is empty (null)");
            goto out;
        }
        *value = strdup("0");
        rc = *value ? 0 : -1;
        goto out;
    }
    npnum sum = {0};
    if (np_sum(&c, root, 0, &sum))
        goto out;
    char buf[64];
    if (sum.is_float)
        ms_py_float_repr(sum.d, buf);
    else
        snprintf(buf, sizeof buf, "%lld", sum.i);
    *value = strdup(buf);
    rc = *value ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "out of memory");
out:
    for (int i = 0; i < 4; i++)
        pcre2_code_free(c.re[i]);
    pcre2_match_data_free(c.md);
    if (have_next)
        yaml_document_delete(&next);
    if (have_doc)
        yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}
