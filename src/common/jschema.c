#include "common/jschema.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/mllog.h"

#define MAX_DEPTH 200

struct re_entry {
    const void *owner;  /* the schema object ("pattern") or the patternProperties object */
    const char *key;    /* NULL for "pattern", else the patternProperties key */
    pcre2_code *code;   /* NULL if the pattern does not compile */
    char *errmsg;
};

struct id_entry {
    char *uri;  /* absolute URI (with "#name" for plain-name fragments) */
    const json_t *node;
    char *base; /* base URI in effect inside node */
};

/* The references resolved so far, shared by every validation against the schema, from any
 * thread: the same reference text (the schema's own string, compared by address) from the
 * same base resolves to the same target. Published entries never change (readers take the
 * count with acquire and read below it without the lock); the lock orders the writers. A
 * schema validates many documents of one kind (every system description of a round): each
 * used to resolve its references again, a URI resolution and two copies each time. */
#define REF_SHARED 64
/* A $ref resolved: the reference text (the schema's own string, compared by address), the
 * base it was resolved from, its target and the target's base; also the per-validation memo */
typedef struct ref_memo {
    const char *ref;
    char *base, *newbase;
    const json_t *target;
} ref_memo;
typedef ref_memo ref_shared;

typedef struct ref_cache {
    pthread_mutex_t mu;
    _Atomic size_t n;
    ref_shared v[REF_SHARED];
} ref_cache;

struct ms_jschema {
    json_t *root;
    ms_jschema_dialect dialect;
    char *name;
    char *root_base;
    struct re_entry *res;
    size_t nres, capres;
    struct id_entry *ids;
    size_t nids, capids;
    ref_cache *refs;           /* NULL: none (without memory) */
};

/* ------------------------------------------------------------------ URIs ---- */

static int has_scheme(const char *u)
{
    const char *p = u;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
        return 0;
    while (*p && *p != ':' && *p != '/' && *p != '#' && *p != '?')
        p++;
    return *p == ':';
}

/* The string built in b ("" when nothing was appended), handed to the caller; NULL (and b
 * freed) when failed or when out of memory. */
static char *buf_string(ms_buf *b, int failed)
{
    if (failed || (!b->data && ms_buf_puts(b, ""))) {
        ms_buf_free(b);
        return NULL;
    }
    return ms_buf_steal(b);
}

/* Resolves ref against base (RFC 3986, simplified: absolute refs as is, "#frag" appended to
 * the base without its fragment, "/path" against the authority, else the last segment of the
 * base path replaced). Result malloc'd. */
static char *uri_resolve(const char *base, const char *ref)
{
    if (has_scheme(ref) || !base || !*base)
        return strdup(ref);
    const char *hash = strchr(base, '#');
    size_t blen = hash ? (size_t)(hash - base) : strlen(base);
    ms_buf b = MS_BUF_INIT;
    if (ref[0] == '#' || ref[0] == '\0') {
        if (ms_buf_append(&b, base, blen) || ms_buf_puts(&b, ref))
            goto oom;
    } else if (ref[0] == '/') {
        /* keep the scheme and authority; a base without authority ("urn:x", "/a/b.json")
         * keeps only its scheme, if any */
        const char *auth = strstr(base, "://");
        const char *path = auth ? strchr(auth + 3, '/') : NULL;
        size_t keep = 0;
        if (path)
            keep = (size_t)(path - base);
        else if (auth)
            keep = blen;
        else if (has_scheme(base))
            keep = (size_t)(strchr(base, ':') - base) + 1;
        if (keep > blen)
            keep = blen;
        if (ms_buf_append(&b, base, keep) || ms_buf_puts(&b, ref))
            goto oom;
    } else {
        size_t keep = blen;
        while (keep > 0 && base[keep - 1] != '/')
            keep--;
        if (ms_buf_append(&b, base, keep) || ms_buf_puts(&b, ref))
            goto oom;
    }
    return buf_string(&b, 0);
oom:
    return buf_string(&b, 1);
}

/* Percent-decodes a URI fragment in place. */
static void pct_decode(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '%' && p[1] && p[2]) {
            char hx[3] = {p[1], p[2], 0};
            char *end;
            long v = strtol(hx, &end, 16);
            if (*end == '\0') {
                *o++ = (char)v;
                p += 2;
                continue;
            }
        }
        *o++ = *p;
    }
    *o = '\0';
}

char *ms_json_pointer_append(const char *base, const char *key)
{
    ms_buf b = MS_BUF_INIT;
    if (ms_buf_puts(&b, base ? base : "") || ms_buf_putc(&b, '/'))
        goto oom;
    for (const char *p = key; *p; p++) {
        int rc = *p == '~' ? ms_buf_puts(&b, "~0") : *p == '/' ? ms_buf_puts(&b, "~1")
                                                              : ms_buf_putc(&b, *p);
        if (rc)
            goto oom;
    }
    return ms_buf_steal(&b);
oom:
    ms_buf_free(&b);
    return NULL;
}

/* Child JSON pointer base + "/" + escaped key, written into buf (cap bytes) when it fits, else
 * into a malloc'd string returned in *heap (the caller frees it). NULL on allocation failure. */
static const char *child_ptr(char *buf, size_t cap, const char *base, const char *key, char **heap)
{
    *heap = NULL;
    size_t bl = strlen(base), kl = strlen(key), extra = 0;
    for (const char *p = key; *p; p++)
        extra += *p == '~' || *p == '/';
    size_t need = bl + 1 + kl + extra + 1;
    char *out = buf;
    if (need > cap) {
        out = *heap = malloc(need);
        if (!out)
            return NULL;
    }
    memcpy(out, base, bl);
    char *o = out + bl;
    *o++ = '/';
    for (const char *p = key; *p; p++) {
        if (*p == '~') {
            *o++ = '~';
            *o++ = '0';
        } else if (*p == '/') {
            *o++ = '~';
            *o++ = '1';
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* Follows a JSON pointer (already percent-decoded) from node. */
static const json_t *pointer_get(const json_t *node, const char *ptr)
{
    if (!*ptr)
        return node;
    if (*ptr != '/')
        return NULL;
    const char *p = ptr + 1;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char *tok = malloc(n + 1);
        if (!tok)
            return NULL;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1')) {
                tok[m++] = p[i + 1] == '0' ? '~' : '/';
                i++;
            } else {
                tok[m++] = p[i];
            }
        }
        tok[m] = '\0';
        if (json_is_object(node)) {
            node = json_object_get(node, tok);
        } else if (json_is_array(node)) {
            char *end;
            unsigned long idx = strtoul(tok, &end, 10);
            node = (*tok && *end == '\0') ? json_array_get(node, idx) : NULL;
        } else {
            node = NULL;
        }
        free(tok);
        if (!node || !slash)
            return node;
        p = slash + 1;
    }
}

/* ------------------------------------------------------------ loading ---- */

/* ECMA-262 accepts the long General_Category value names in \p{...}; PCRE2 (10.42) only the
 * short ones. */
static const char *const gc_names[][2] = {
    {"Cased_Letter", "LC"},         {"Close_Punctuation", "Pe"},
    {"Connector_Punctuation", "Pc"}, {"Control", "Cc"},
    {"Currency_Symbol", "Sc"},      {"Dash_Punctuation", "Pd"},
    {"Decimal_Number", "Nd"},       {"Enclosing_Mark", "Me"},
    {"Final_Punctuation", "Pf"},    {"Format", "Cf"},
    {"Initial_Punctuation", "Pi"},  {"Letter", "L"},
    {"Letter_Number", "Nl"},        {"Line_Separator", "Zl"},
    {"Lowercase_Letter", "Ll"},     {"Mark", "M"},
    {"Math_Symbol", "Sm"},          {"Modifier_Letter", "Lm"},
    {"Modifier_Symbol", "Sk"},      {"Nonspacing_Mark", "Mn"},
    {"Number", "N"},                {"Open_Punctuation", "Ps"},
    {"Other", "C"},                 {"Other_Letter", "Lo"},
    {"Other_Number", "No"},         {"Other_Punctuation", "Po"},
    {"Other_Symbol", "So"},         {"Paragraph_Separator", "Zp"},
    {"Private_Use", "Co"},          {"Punctuation", "P"},
    {"Separator", "Z"},             {"Space_Separator", "Zs"},
    {"Spacing_Mark", "Mc"},         {"Surrogate", "Cs"},
    {"Symbol", "S"},                {"Titlecase_Letter", "Lt"},
    {"Unassigned", "Cn"},           {"Uppercase_Letter", "Lu"},
};

/* The General_Category short name for the \p{...} body name[0..n), or NULL when it is not a
 * (possibly "General_Category="/"gc="-prefixed) long name or a prefixed short one. */
static const char *gc_short(const char *name, size_t n)
{
    static const char *const prefixes[] = {"General_Category=", "gc="};
    int prefixed = 0;
    for (size_t i = 0; i < 2 && !prefixed; i++) {
        size_t pl = strlen(prefixes[i]);
        if (n > pl && !strncmp(name, prefixes[i], pl)) {
            name += pl;
            n -= pl;
            prefixed = 1;
        }
    }
    for (size_t i = 0; i < sizeof gc_names / sizeof *gc_names; i++) {
        for (int j = 0; j < 2; j++) {
            if ((j == 1 && !prefixed) || strlen(gc_names[i][j]) != n ||
                strncmp(gc_names[i][j], name, n))
                continue;
            return gc_names[i][1];
        }
    }
    return NULL;
}

/* pattern with every \p{LongName} / \P{LongName} replaced by the short name (malloc'd; NULL
 * when out of memory). Escaped backslashes are skipped so "\\p{Letter}" stays as is. */
static char *pcre2_pattern(const char *pattern)
{
    ms_buf b = MS_BUF_INIT;
    for (const char *p = pattern; *p;) {
        const char *close;
        const char *sh = NULL;
        if (p[0] == '\\' && (p[1] == 'p' || p[1] == 'P') && p[2] == '{' &&
            (close = strchr(p + 3, '}')) && (sh = gc_short(p + 3, (size_t)(close - p - 3)))) {
            if (ms_buf_printf(&b, "\\%c{%s}", p[1], sh))
                goto oom;
            p = close + 1;
            continue;
        }
        size_t n = p[0] == '\\' && p[1] ? 2 : 1;
        if (ms_buf_append(&b, p, n))
            goto oom;
        p += n;
    }
    return buf_string(&b, 0);
oom:
    return buf_string(&b, 1);
}

static int add_re(ms_jschema *s, const void *owner, const char *key, const char *pattern)
{
    if (MS_GROW(s->res, s->capres, s->nres + 1, 16))
        return -1;
    struct re_entry *r = &s->res[s->nres++];
    memset(r, 0, sizeof *r);
    r->owner = owner;
    r->key = key;
    int errcode;
    PCRE2_SIZE erroff;
    char *pat = pcre2_pattern(pattern);
    if (!pat)
        return -1;
    r->code = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
                            PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &errcode, &erroff, NULL);
    free(pat);
    if (!r->code) {
        PCRE2_UCHAR msg[120];
        pcre2_get_error_message(errcode, msg, sizeof msg);
        char buf[300];
        snprintf(buf, sizeof buf, "pattern '%.100s': %s at offset %zu", pattern, (char *)msg,
                 (size_t)erroff);
        r->errmsg = strdup(buf);
        if (!r->errmsg)
            return -1;
    }
    return 0;
}

static int add_id(ms_jschema *s, const char *uri, const json_t *node, const char *base)
{
    if (MS_GROW(s->ids, s->capids, s->nids + 1, 8))
        return -1;
    struct id_entry *d = &s->ids[s->nids];
    d->uri = strdup(uri);
    d->base = strdup(base);
    d->node = node;
    if (!d->uri || !d->base) {
        free(d->uri);
        free(d->base);
        return -1;
    }
    s->nids++;
    return 0;
}

/* Compiles every "pattern" string and patternProperties key anywhere in the document. */
static int compile_all(ms_jschema *s, const json_t *node, int depth)
{
    if (depth > MAX_DEPTH)
        return 0;
    if (json_is_object(node)) {
        const json_t *pat = json_object_get(node, "pattern");
        if (json_is_string(pat) && add_re(s, node, NULL, json_string_value(pat)))
            return -1;
        const json_t *pp = json_object_get(node, "patternProperties");
        if (json_is_object(pp)) {
            const char *k;
            json_t *v;
            json_object_foreach((json_t *)pp, k, v)
                if (add_re(s, pp, k, k))
                    return -1;
        }
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)node, k, v)
            if (compile_all(s, v, depth + 1))
                return -1;
    } else if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (compile_all(s, json_array_get(node, i), depth + 1))
                return -1;
    }
    return 0;
}

/* Keywords whose values are schemas (single[]), arrays of schemas (arrays[]) or maps of schemas
 * (maps[]), per dialect: $id and $anchor are only looked for there, not in unknown keywords. */
struct schema_kw {
    const char *const *single, *const *arrays, *const *maps;
};

static const char *const d7_single[] = {"items", "additionalItems", "additionalProperties",
                                        "contains", "propertyNames", "not", "if", "then",
                                        "else", NULL};
static const char *const d7_arrays[] = {"items", "allOf", "anyOf", "oneOf", NULL};
static const char *const d7_maps[] = {"properties", "patternProperties", "definitions",
                                      "dependencies", NULL};
static const char *const d2020_single[] = {"items", "additionalProperties", "contains",
                                           "propertyNames", "not", "if", "then", "else", NULL};
static const char *const d2020_arrays[] = {"prefixItems", "allOf", "anyOf", "oneOf", NULL};
static const char *const d2020_maps[] = {"properties", "patternProperties", "$defs",
                                         "definitions", "dependentSchemas", NULL};
static const struct schema_kw schema_kws[] = {
    [MS_JSCHEMA_DRAFT7] = {d7_single, d7_arrays, d7_maps},
    [MS_JSCHEMA_DRAFT2020_12] = {d2020_single, d2020_arrays, d2020_maps},
};

/* Registers the $id (and, in 2020-12, $anchor) of schema positions. */
static int index_ids(ms_jschema *s, const json_t *node, const char *base, int depth)
{
    if (!json_is_object(node) || depth > MAX_DEPTH)
        return 0;
    int d2020 = s->dialect == MS_JSCHEMA_DRAFT2020_12;
    char *mybase = NULL;
    const json_t *id = json_object_get(node, "$id");
    /* draft-07 ignores an $id next to a $ref; 2020-12 does not */
    if (json_is_string(id) && (d2020 || !json_object_get(node, "$ref"))) {
        mybase = uri_resolve(base, json_string_value(id));
        if (!mybase)
            return -1;
        const char *hash = strchr(mybase, '#');
        if (hash && hash[1]) {
            /* plain-name fragment: "#foo" identifies node; the base stays */
            if (add_id(s, mybase, node, base))
                goto oom;
            free(mybase);
            mybase = strdup(base);
            if (!mybase)
                return -1;
        } else {
            if (hash)
                mybase[hash - mybase] = '\0';
            if (add_id(s, mybase, node, mybase))
                goto oom;
        }
        base = mybase;
    }
    const json_t *anchor = json_object_get(node, "$anchor");
    if (d2020 && json_is_string(anchor)) {
        /* "$anchor": "foo" names node base#foo, as "$id": "#foo" did in draft-07 */
        const char *name = json_string_value(anchor);
        size_t bl = strcspn(base, "#"), need = bl + strlen(name) + 2;
        char *uri = malloc(need);
        if (!uri)
            goto oom;
        snprintf(uri, need, "%.*s#%s", (int)bl, base, name);
        int rc = add_id(s, uri, node, base);
        free(uri);
        if (rc)
            goto oom;
    }
    const struct schema_kw *kw = &schema_kws[s->dialect];
    for (const char *const *k = kw->single; *k; k++)
        if (index_ids(s, json_object_get(node, *k), base, depth + 1))
            goto oom;
    for (const char *const *k = kw->arrays; *k; k++) {
        const json_t *a = json_object_get(node, *k);
        for (size_t j = 0; json_is_array(a) && j < json_array_size(a); j++)
            if (index_ids(s, json_array_get(a, j), base, depth + 1))
                goto oom;
    }
    for (const char *const *k = kw->maps; *k; k++) {
        const json_t *m = json_object_get(node, *k);
        const char *key;
        json_t *v;
        if (json_is_object(m))
            json_object_foreach((json_t *)m, key, v)
                if (index_ids(s, v, base, depth + 1))
                    goto oom;
    }
    free(mybase);
    return 0;
oom:
    free(mybase);
    return -1;
}

#define DRAFT2020_12_URI "https://json-schema.org/draft/2020-12/schema"

int ms_jschema_new_dialect(ms_jschema **out, json_t *schema, const char *name,
                           ms_jschema_dialect fallback, ms_err *e)
{
    *out = NULL;
    if (!json_is_object(schema) && !json_is_boolean(schema))
        return ms_err_set(e, MS_EINPUT, "%s: a schema must be an object or a boolean", name);
    if (fallback != MS_JSCHEMA_DRAFT7 && fallback != MS_JSCHEMA_DRAFT2020_12)
        return ms_err_set(e, MS_EINPUT, "%s: unknown JSON Schema dialect %d", name,
                          (int)fallback);
    ms_jschema *s = calloc(1, sizeof *s);
    if (!s)
        return ms_err_oom(e);
    s->root = json_incref(schema);
    s->dialect = fallback;
    const json_t *dollar_schema = json_object_get(schema, "$schema");
    if (json_is_string(dollar_schema)) {
        const char *u = json_string_value(dollar_schema);
        size_t n = strlen(u);
        if (n && u[n - 1] == '#')
            n--;
        s->dialect = n == strlen(DRAFT2020_12_URI) && !strncmp(u, DRAFT2020_12_URI, n)
                         ? MS_JSCHEMA_DRAFT2020_12
                         : MS_JSCHEMA_DRAFT7;
    }
    s->name = strdup(name ? name : "<schema>");
    const json_t *id = json_object_get(schema, "$id");
    s->root_base = strdup(json_is_string(id) ? json_string_value(id) : "");
    if (!s->name || !s->root_base)
        goto oom;
    char *h = strchr(s->root_base, '#');
    if (h)
        *h = '\0';
    if (add_id(s, s->root_base, schema, s->root_base) || compile_all(s, schema, 0) ||
        index_ids(s, schema, s->root_base, 0))
        goto oom;
    if ((s->refs = calloc(1, sizeof *s->refs)) && pthread_mutex_init(&s->refs->mu, NULL)) {
        free(s->refs);
        s->refs = NULL;
    }
    *out = s;
    return MS_OK;
oom:
    ms_jschema_free(s);
    return ms_err_oom(e);
}

int ms_jschema_new(ms_jschema **out, json_t *schema, const char *name, ms_err *e)
{
    return ms_jschema_new_dialect(out, schema, name, MS_JSCHEMA_DRAFT7, e);
}

ms_jschema_dialect ms_jschema_dialect_of(const ms_jschema *s)
{
    return s->dialect;
}

int ms_jschema_load(ms_jschema **out, const char *path, ms_err *e)
{
    json_error_t je;
    json_t *j = ms_json_load_path(path, JSON_DECODE_ANY, &je);
    if (!j)
        return ms_err_set(e, MS_EINPUT, "%s:%d:%d: invalid JSON schema: %s", path, je.line,
                          je.column, je.text);
    int rc = ms_jschema_new(out, j, path, e);
    json_decref(j);
    return rc;
}

void ms_jschema_free(ms_jschema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nres; i++) {
        if (s->res[i].code)
            pcre2_code_free(s->res[i].code);
        free(s->res[i].errmsg);
    }
    for (size_t i = 0; i < s->nids; i++) {
        free(s->ids[i].uri);
        free(s->ids[i].base);
    }
    free(s->res);
    free(s->ids);
    if (s->refs) {
        for (size_t i = 0; i < atomic_load(&s->refs->n); i++) {
            free(s->refs->v[i].base);
            free(s->refs->v[i].newbase);
        }
        pthread_mutex_destroy(&s->refs->mu);
        free(s->refs);
    }
    json_decref(s->root);
    free(s->name);
    free(s->root_base);
    free(s);
}

void ms_jschema_errors_free(ms_jschema_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        free(errs->v[i].pointer);
        free(errs->v[i].keyword);
        free(errs->v[i].message);
    }
    free(errs->v);
    memset(errs, 0, sizeof *errs);
}

/* ---------------------------------------------------------- validation ---- */

/* The keywords the validator reads, one bit each: validate() finds which of them a schema
 * object holds by going once through its keys (a schema object has a few), and asks Jansson
 * only for those (a hash lookup for each of forty keywords at every schema node was most of
 * the cost of validating a system description). */
#define JS_KEYWORDS(X) \
    X(REF, "$ref") \
    X(ID, "$id") \
    X(TYPE, "type") \
    X(ENUM, "enum") \
    X(CONST, "const") \
    X(ALLOF, "allOf") \
    X(ANYOF, "anyOf") \
    X(ONEOF, "oneOf") \
    X(NOT, "not") \
    X(IF, "if") \
    X(THEN, "then") \
    X(ELSE, "else") \
    X(MINIMUM, "minimum") \
    X(MAXIMUM, "maximum") \
    X(EXCLUSIVEMINIMUM, "exclusiveMinimum") \
    X(EXCLUSIVEMAXIMUM, "exclusiveMaximum") \
    X(MULTIPLEOF, "multipleOf") \
    X(MINLENGTH, "minLength") \
    X(MAXLENGTH, "maxLength") \
    X(PATTERN, "pattern") \
    X(ITEMS, "items") \
    X(PREFIXITEMS, "prefixItems") \
    X(ADDITIONALITEMS, "additionalItems") \
    X(CONTAINS, "contains") \
    X(MINCONTAINS, "minContains") \
    X(MAXCONTAINS, "maxContains") \
    X(MINITEMS, "minItems") \
    X(MAXITEMS, "maxItems") \
    X(UNIQUEITEMS, "uniqueItems") \
    X(REQUIRED, "required") \
    X(PROPERTIES, "properties") \
    X(PATTERNPROPERTIES, "patternProperties") \
    X(ADDITIONALPROPERTIES, "additionalProperties") \
    X(PROPERTYNAMES, "propertyNames") \
    X(DEPENDENCIES, "dependencies") \
    X(DEPENDENTREQUIRED, "dependentRequired") \
    X(DEPENDENTSCHEMAS, "dependentSchemas") \
    X(MINPROPERTIES, "minProperties") \
    X(MAXPROPERTIES, "maxProperties")
enum {
#define X(id, name) KW_##id,
    JS_KEYWORDS(X)
#undef X
    KW_COUNT
};
typedef uint64_t kwmask;

static kwmask keyword_mask(const json_t *sch)
{
    static const struct {
        const char *name;
        size_t len;
    } names[KW_COUNT] = {
#define X(id, name) {name, sizeof name - 1},
        JS_KEYWORDS(X)
#undef X
    };
    kwmask m = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)sch, key, v) {
        size_t n = strlen(key);
        for (int i = 0; i < KW_COUNT; i++)
            if (names[i].len == n && names[i].name[0] == key[0] && !memcmp(names[i].name, key, n)) {
                m |= (kwmask)1 << i;
                break;
            }
    }
    return m;
}

/* json_object_get(sch, name) for a keyword of the list, through the mask */
#define KW(sch, mask, id, name) (((mask) >> KW_##id & 1) ? json_object_get(sch, name) : NULL)

/* The $refs resolved during one validation (when the schema's shared table is full) */
#define REF_CACHE 32

typedef struct vctx {
    const ms_jschema *s;
    ms_jschema_errors *errs;
    size_t max;
    int collect;
    int oom;
    ms_err *e;
    ref_memo refs[REF_CACHE]; /* the first REF_CACHE references resolved */
    size_t nrefs;
} vctx;

static void add_err(vctx *c, const char *ptr, const char *kw, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Whether add_err records anything now (probes and a full list record nothing): messages
 * that cost work to build (a dump of the enum) are built only then. */
static int collecting(const vctx *c)
{
    return c->collect && c->errs && !(c->max && c->errs->n >= c->max);
}

static void add_err(vctx *c, const char *ptr, const char *kw, const char *fmt, ...)
{
    if (!collecting(c))
        return;
    ms_jschema_errors *v = c->errs;
    if (MS_GROW(v->v, v->cap, v->n + 1, 8)) {
        c->oom = 1;
        return;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ms_jschema_error *er = &v->v[v->n];
    er->pointer = strdup(ptr);
    er->keyword = strdup(kw);
    er->message = strdup(msg);
    if (!er->pointer || !er->keyword || !er->message) {
        free(er->pointer);
        free(er->keyword);
        free(er->message);
        c->oom = 1;
        return;
    }
    v->n++;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

static int is_integral(const json_t *v)
{
    if (json_is_integer(v))
        return 1;
    if (json_is_real(v)) {
        double d = json_real_value(v);
        return isfinite(d) && d == floor(d);
    }
    return 0;
}

static int type_matches(const json_t *v, const char *t)
{
    if (!strcmp(t, "integer"))
        return is_integral(v);
    if (!strcmp(t, "number"))
        return json_is_number(v);
    return !strcmp(t, type_name(v)) ||
           (!strcmp(t, "boolean") && json_is_boolean(v));
}

int ms_json_equal(const json_t *a, const json_t *b, int bool_as_number)
{
    if (!a || !b)
        return a == b;
    int an = json_is_number(a) || (bool_as_number && json_is_boolean(a));
    int bn = json_is_number(b) || (bool_as_number && json_is_boolean(b));
    if (an && bn) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        double x = json_is_boolean(a) ? json_is_true(a) : json_number_value(a);
        double y = json_is_boolean(b) ? json_is_true(b) : json_number_value(b);
        return x == y;
    }
    if (json_typeof(a) != json_typeof(b))
        return 0;
    if (json_is_string(a))
        return json_string_length(a) == json_string_length(b) &&
               !memcmp(json_string_value(a), json_string_value(b), json_string_length(a));
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!ms_json_equal(json_array_get(a, i), json_array_get(b, i), bool_as_number))
                return 0;
        return 1;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v)
            if (!ms_json_equal(v, json_object_get(b, k), bool_as_number))
                return 0;
        return 1;
    }
    return 1;  /* null, or the same boolean */
}

/* Equality as JSON Schema's enum, const and uniqueItems mean it: 1 == 1.0, true != 1. */
static int jequal(const json_t *a, const json_t *b)
{
    return ms_json_equal(a, b, 0);
}

static size_t utf8_len(const char *s, size_t n)
{
    size_t cps = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            cps++;
    return cps;
}

static const struct re_entry *find_re(const ms_jschema *s, const void *owner, const char *key)
{
    for (size_t i = 0; i < s->nres; i++) {
        const struct re_entry *r = &s->res[i];
        if (r->owner == owner && ((!key && !r->key) || (key && r->key && !strcmp(key, r->key))))
            return r;
    }
    return NULL;
}

/* 1 match, 0 no match, -1 error (unusable pattern or matching failure). */
static int re_search(vctx *c, const struct re_entry *r, const char *subj, size_t n)
{
    if (!r || !r->code) {
        if (r && r->errmsg)
            ms_err_set(c->e, MS_EINPUT, "%s: %s", c->s->name, r->errmsg);
        return -1;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(r->code, NULL);
    if (!md) {
        c->oom = 1;
        return -1;
    }
    int rc = pcre2_match(r->code, (PCRE2_SPTR)subj, n, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc < 0) {
        ms_err_set(c->e, MS_EINPUT, "%s: regular expression failed on the input (%d)",
                   c->s->name, rc);
        return -1;
    }
    return 1;
}

static int validate(vctx *c, const json_t *sch, const json_t *inst, const char *ptr,
                    const char *base, int depth);

/* Validates without recording errors (for anyOf/oneOf/not/if/contains probes). */
static int probe(vctx *c, const json_t *sch, const json_t *inst, const char *ptr,
                 const char *base, int depth)
{
    int saved = c->collect;
    c->collect = 0;
    int r = validate(c, sch, inst, ptr, base, depth);
    c->collect = saved;
    return r;
}

static const json_t *resolve_ref(vctx *c, const char *ref, const char *base, char **newbase)
{
    char *abs = uri_resolve(base, ref);
    if (!abs) {
        c->oom = 1;
        return NULL;
    }
    char *hash = strchr(abs, '#');
    char *frag = NULL;
    if (hash) {
        *hash = '\0';
        frag = hash + 1;
    }
    const json_t *doc = NULL;
    const char *docbase = NULL;
    for (size_t i = 0; i < c->s->nids; i++)
        if (!strcmp(c->s->ids[i].uri, abs)) {
            doc = c->s->ids[i].node;
            docbase = c->s->ids[i].base;
            break;
        }
    const json_t *target = NULL;
    if (doc && (!frag || !*frag)) {
        target = doc;
    } else if (doc && frag[0] == '/') {
        pct_decode(frag);
        target = pointer_get(doc, frag);
    } else if (frag && *frag) {
        /* plain-name fragment declared with "$id": "#name" */
        size_t need = strlen(abs) + strlen(frag) + 2;
        char *full = malloc(need);
        if (!full) {
            free(abs);
            c->oom = 1;
            return NULL;
        }
        snprintf(full, need, "%s#%s", abs, frag);
        for (size_t i = 0; i < c->s->nids; i++)
            if (!strcmp(c->s->ids[i].uri, full)) {
                target = c->s->ids[i].node;
                docbase = c->s->ids[i].base;
                break;
            }
        free(full);
    }
    *newbase = target ? strdup(docbase ? docbase : abs) : NULL;
    free(abs);
    if (target && !*newbase) {
        c->oom = 1;
        return NULL;
    }
    return target;
}

/* Validates inst against the target of the reference ref (resolved against base). */
/* The shared resolution of ref from base (ref_cache), NULL when not there yet */
static const ref_shared *shared_ref(const ref_cache *rc, const char *ref, const char *base)
{
    size_t n = rc ? atomic_load_explicit(&rc->n, memory_order_acquire) : 0;
    for (size_t i = 0; i < n; i++)
        if (rc->v[i].ref == ref && !strcmp(rc->v[i].base, base))
            return &rc->v[i];
    return NULL;
}

/* Publishes a resolution for every later validation (best effort: full, or out of memory) */
static void share_ref(ref_cache *rc, const char *ref, const char *base, const json_t *target,
                      const char *newbase)
{
    if (!rc)
        return;
    pthread_mutex_lock(&rc->mu);
    size_t n = atomic_load_explicit(&rc->n, memory_order_relaxed);
    if (n < REF_SHARED && !shared_ref(rc, ref, base)) {
        ref_shared *e = &rc->v[n];
        e->ref = ref;
        e->target = target;
        e->base = strdup(base);
        e->newbase = strdup(newbase);
        if (e->base && e->newbase) {
            atomic_store_explicit(&rc->n, n + 1, memory_order_release);
        } else {
            free(e->base);
            free(e->newbase);
        }
    }
    pthread_mutex_unlock(&rc->mu);
}

static int validate_ref(vctx *c, const char *ref, const json_t *inst, const char *ptr,
                        const char *base, int depth)
{
    const ref_shared *sh = shared_ref(c->s->refs, ref, base);
    if (sh)
        return validate(c, sh->target, inst, ptr, sh->newbase, depth + 1);
    for (size_t i = 0; i < c->nrefs; i++)
        if (c->refs[i].ref == ref && !strcmp(c->refs[i].base, base))
            return validate(c, c->refs[i].target, inst, ptr, c->refs[i].newbase, depth + 1);
    char *nb = NULL;
    const json_t *target = resolve_ref(c, ref, base, &nb);
    if (!target) {
        if (!c->oom)
            ms_err_set(c->e, MS_EINPUT, "%s: $ref '%s' cannot be resolved", c->s->name, ref);
        return -1;
    }
    share_ref(c->s->refs, ref, base, target, nb);
    if (c->nrefs < REF_CACHE) {
        ref_memo *m = &c->refs[c->nrefs];
        if ((m->base = strdup(base))) {
            m->ref = ref;
            m->newbase = nb;
            m->target = target;
            c->nrefs++;
            return validate(c, target, inst, ptr, nb, depth + 1);
        }
    }
    int r = validate(c, target, inst, ptr, nb, depth + 1);
    free(nb);
    return r;
}

static int kw_number(vctx *c, const json_t *sch, kwmask km, const json_t *inst, const char *ptr)
{
    int ok = 1;
    double x = json_number_value(inst);
    const json_t *k;
    const json_t *exmin = KW(sch, km, EXCLUSIVEMINIMUM, "exclusiveMinimum");
    const json_t *exmax = KW(sch, km, EXCLUSIVEMAXIMUM, "exclusiveMaximum");
    if ((k = KW(sch, km, MINIMUM, "minimum")) && json_is_number(k)) {
        double m = json_number_value(k);
        int excl = json_is_true(exmin);  /* draft-04 boolean form */
        if (excl ? !(x > m) : !(x >= m)) {
            add_err(c, ptr, "minimum", "%.17g is less than the minimum %s%.17g", x,
                    excl ? "(exclusive) " : "", m);
            ok = 0;
        }
    }
    if ((k = KW(sch, km, MAXIMUM, "maximum")) && json_is_number(k)) {
        double m = json_number_value(k);
        int excl = json_is_true(exmax);
        if (excl ? !(x < m) : !(x <= m)) {
            add_err(c, ptr, "maximum", "%.17g is greater than the maximum %s%.17g", x,
                    excl ? "(exclusive) " : "", m);
            ok = 0;
        }
    }
    if (json_is_number(exmin) && !(x > json_number_value(exmin))) {
        add_err(c, ptr, "exclusiveMinimum", "%.17g must be greater than %.17g", x,
                json_number_value(exmin));
        ok = 0;
    }
    if (json_is_number(exmax) && !(x < json_number_value(exmax))) {
        add_err(c, ptr, "exclusiveMaximum", "%.17g must be less than %.17g", x,
                json_number_value(exmax));
        ok = 0;
    }
    if ((k = KW(sch, km, MULTIPLEOF, "multipleOf")) && json_is_number(k)) {
        int mult;
        if (json_is_integer(k) && json_is_integer(inst) && json_integer_value(k) != 0)
            mult = json_integer_value(inst) % json_integer_value(k) == 0;
        else {
            double q = x / json_number_value(k);
            mult = isfinite(q) && q == floor(q);
        }
        if (!mult) {
            add_err(c, ptr, "multipleOf", "%.17g is not a multiple of %.17g", x,
                    json_number_value(k));
            ok = 0;
        }
    }
    return ok;
}

/* The bounds min (keyword min_kw) and max (max_kw) of a count n (characters, items, properties),
 * each NULL when the schema has none: 1 within them, else 0 with an error (too_few, too_many:
 * the messages, %zu the count and %.0f the bound). */
static int count_bounds(vctx *c, const json_t *min, const json_t *max, const char *ptr, size_t n,
                        const char *min_kw, const char *too_few, const char *max_kw,
                        const char *too_many)
{
    int ok = 1;
    const json_t *k;
    if ((k = min) && json_is_number(k) && (double)n < json_number_value(k)) {
        add_err(c, ptr, min_kw, too_few, n, json_number_value(k));
        ok = 0;
    }
    if ((k = max) && json_is_number(k) && (double)n > json_number_value(k)) {
        add_err(c, ptr, max_kw, too_many, n, json_number_value(k));
        ok = 0;
    }
    return ok;
}

static int kw_string(vctx *c, const json_t *sch, kwmask km, const json_t *inst, const char *ptr)
{
    const char *s = json_string_value(inst);
    size_t n = json_string_length(inst);
    size_t cps = utf8_len(s, n);
    int ok = count_bounds(c, KW(sch, km, MINLENGTH, "minLength"), KW(sch, km, MAXLENGTH, "maxLength"), ptr, cps, "minLength", "length %zu is less than minLength %.0f", "maxLength",
                          "length %zu is more than maxLength %.0f");
    const json_t *k;
    if ((k = KW(sch, km, PATTERN, "pattern")) && json_is_string(k)) {
        int m = re_search(c, find_re(c->s, sch, NULL), s, n);
        if (m < 0)
            return -1;
        if (!m) {
            add_err(c, ptr, "pattern", "'%.200s' does not match the pattern '%.200s'", s,
                    json_string_value(k));
            ok = 0;
        }
    }
    return ok;
}

/* Folds a sub-result r into *ok: -1 internal failure, 0 stop (invalid and not collecting
 * errors), 1 go on. */
static int fold(const vctx *c, int r, int *ok)
{
    if (r < 0)
        return -1;
    if (!r) {
        *ok = 0;
        if (!c->collect)
            return 0;
    }
    return 1;
}

/* Validates the items from..to of the array inst against sch, or, when per_index, each against
 * the schema at the same index of the array sch. 1 valid, 0 invalid, -1 internal failure. */
static int validate_range(vctx *c, const json_t *sch, int per_index, const json_t *inst,
                          size_t from, size_t to, const char *ptr, const char *base, int depth)
{
    int ok = 1;
    for (size_t i = from; i < to; i++) {
        char idx[32], pbuf[256], *heap;
        snprintf(idx, sizeof idx, "%zu", i);
        const char *p = child_ptr(pbuf, sizeof pbuf, ptr, idx, &heap);
        if (!p)
            return c->oom = 1, -1;
        int r = validate(c, per_index ? json_array_get(sch, i) : sch, json_array_get(inst, i), p,
                         base, depth + 1);
        free(heap);
        int f = fold(c, r, &ok);
        if (f <= 0)
            return f;
    }
    return ok;
}

static int kw_array(vctx *c, const json_t *sch, kwmask km, const json_t *inst, const char *ptr,
                    const char *base, int depth)
{
    size_t n = json_array_size(inst);
    int ok = count_bounds(c, KW(sch, km, MINITEMS, "minItems"), KW(sch, km, MAXITEMS, "maxItems"), ptr, n, "minItems", "%zu items, at least %.0f expected", "maxItems",
                      "%zu items, at most %.0f allowed");
    if (json_is_true(KW(sch, km, UNIQUEITEMS, "uniqueItems"))) {
        for (size_t i = 0; i < n && ok != -1; i++)
            for (size_t j = i + 1; j < n; j++)
                if (jequal(json_array_get(inst, i), json_array_get(inst, j))) {
                    add_err(c, ptr, "uniqueItems", "items %zu and %zu are equal", i, j);
                    ok = 0;
                    i = n;
                    break;
                }
    }
    int d2020 = c->s->dialect == MS_JSCHEMA_DRAFT2020_12;
    const json_t *items = KW(sch, km, ITEMS, "items");
    /* the items before index `covered` are checked per index (draft-07 array "items", 2020-12
     * "prefixItems"); `rest` is the schema of the others (draft-07 "additionalItems" after an
     * array "items", else "items") */
    const json_t *prefix = NULL, *rest = items;
    if (d2020) {
        prefix = KW(sch, km, PREFIXITEMS, "prefixItems");
        if (json_is_array(items))
            rest = NULL;  /* the array form of "items" is not 2020-12 */
    } else if (json_is_array(items)) {
        prefix = items;
        rest = KW(sch, km, ADDITIONALITEMS, "additionalItems");
    }
    size_t covered = 0;
    if (json_is_array(prefix)) {
        covered = json_array_size(prefix) < n ? json_array_size(prefix) : n;
        int f = fold(c, validate_range(c, prefix, 1, inst, 0, covered, ptr, base, depth), &ok);
        if (f <= 0)
            return f;
    }
    if (rest) {
        int f = fold(c, validate_range(c, rest, 0, inst, covered, n, ptr, base, depth), &ok);
        if (f <= 0)
            return f;
    }
    const json_t *contains = KW(sch, km, CONTAINS, "contains");
    if (contains) {
        /* draft-07: at least one match; 2020-12: minContains (default 1) to maxContains */
        const json_t *kmin = d2020 ? KW(sch, km, MINCONTAINS, "minContains") : NULL;
        const json_t *kmax = d2020 ? KW(sch, km, MAXCONTAINS, "maxContains") : NULL;
        double lo = json_is_number(kmin) ? json_number_value(kmin) : 1;
        int bounded = json_is_number(kmax);
        size_t found = 0;
        for (size_t i = 0; i < n && (bounded || (double)found < lo); i++) {
            int pr = probe(c, contains, json_array_get(inst, i), ptr, base, depth + 1);
            if (pr < 0)
                return -1;
            found += (size_t)pr;
        }
        if ((double)found < lo) {
            if (json_is_number(kmin))
                add_err(c, ptr, "minContains",
                        "%zu items match the 'contains' schema, at least %.0f expected", found,
                        lo);
            else
                add_err(c, ptr, "contains", "no item matches the 'contains' schema");
            ok = 0;
        }
        if (bounded && (double)found > json_number_value(kmax)) {
            add_err(c, ptr, "maxContains",
                    "%zu items match the 'contains' schema, at most %.0f allowed", found,
                    json_number_value(kmax));
            ok = 0;
        }
    }
    return ok;
}

static int kw_object(vctx *c, const json_t *sch, kwmask km, const json_t *inst, const char *ptr,
                     const char *base, int depth)
{
    size_t n = json_object_size(inst);
    int ok = count_bounds(c, KW(sch, km, MINPROPERTIES, "minProperties"), KW(sch, km, MAXPROPERTIES, "maxProperties"), ptr, n, "minProperties", "%zu properties, at least %.0f expected", "maxProperties",
                      "%zu properties, at most %.0f allowed");
    const json_t *req = KW(sch, km, REQUIRED, "required");
    for (size_t i = 0; json_is_array(req) && i < json_array_size(req); i++) {
        const char *name = json_string_value(json_array_get(req, i));
        if (name && !json_object_get(inst, name)) {
            add_err(c, ptr, "required", "required property '%s' is missing", name);
            ok = 0;
            if (!c->collect)
                return 0;
        }
    }
    const json_t *props = KW(sch, km, PROPERTIES, "properties");
    const json_t *pprops = KW(sch, km, PATTERNPROPERTIES, "patternProperties");
    const json_t *addl = KW(sch, km, ADDITIONALPROPERTIES, "additionalProperties");
    const json_t *pnames = KW(sch, km, PROPERTYNAMES, "propertyNames");
    int d2020 = c->s->dialect == MS_JSCHEMA_DRAFT2020_12;
    /* draft-07 "dependencies" (arrays or schemas); 2020-12 splits it in two */
    const json_t *deps = d2020 ? NULL : KW(sch, km, DEPENDENCIES, "dependencies");
    const json_t *dep_req = d2020 ? KW(sch, km, DEPENDENTREQUIRED, "dependentRequired") : NULL;
    const json_t *dep_sch = d2020 ? KW(sch, km, DEPENDENTSCHEMAS, "dependentSchemas") : NULL;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)inst, key, val) {
        char pbuf[256], *heap;
        const char *p = child_ptr(pbuf, sizeof pbuf, ptr, key, &heap);
        if (!p)
            return c->oom = 1, -1;
        int matched = 0, r;
        const json_t *ps = json_is_object(props) ? json_object_get(props, key) : NULL;
        if (ps) {
            matched = 1;
            r = validate(c, ps, val, p, base, depth + 1);
            if (r < 0)
                goto fail;
            if (!r)
                ok = 0;
        }
        if (json_is_object(pprops)) {
            const char *pk;
            json_t *pv;
            json_object_foreach((json_t *)pprops, pk, pv) {
                int m = re_search(c, find_re(c->s, pprops, pk), key, strlen(key));
                if (m < 0)
                    goto fail;
                if (m) {
                    matched = 1;
                    r = validate(c, pv, val, p, base, depth + 1);
                    if (r < 0)
                        goto fail;
                    if (!r)
                        ok = 0;
                }
            }
        }
        if (!matched && addl) {
            if (json_is_false(addl)) {
                add_err(c, p, "additionalProperties", "property '%s' is not allowed", key);
                ok = 0;
            } else {
                r = validate(c, addl, val, p, base, depth + 1);
                if (r < 0)
                    goto fail;
                if (!r)
                    ok = 0;
            }
        }
        if (pnames) {
            json_t *ks = json_string(key);
            if (!ks) {
                free(heap);
                return c->oom = 1, -1;
            }
            r = validate(c, pnames, ks, p, base, depth + 1);
            json_decref(ks);
            if (r < 0)
                goto fail;
            if (!r)
                ok = 0;
        }
        const json_t *dep = json_is_object(deps) ? json_object_get(deps, key) : NULL;
        const json_t *dreq = json_is_object(dep_req) ? json_object_get(dep_req, key) : NULL;
        const json_t *dsch = json_is_object(dep_sch) ? json_object_get(dep_sch, key) : NULL;
        if (json_is_array(dep) || json_is_array(dreq)) {
            const json_t *names = json_is_array(dep) ? dep : dreq;
            const char *kwname = json_is_array(dep) ? "dependencies" : "dependentRequired";
            for (size_t i = 0; i < json_array_size(names); i++) {
                const char *need = json_string_value(json_array_get(names, i));
                if (need && !json_object_get(inst, need)) {
                    add_err(c, ptr, kwname, "property '%s' requires property '%s'", key, need);
                    ok = 0;
                }
            }
        }
        if ((dep && !json_is_array(dep)) || dsch) {
            r = validate(c, dsch ? dsch : dep, inst, ptr, base, depth + 1);
            if (r < 0)
                goto fail;
            if (!r)
                ok = 0;
        }
        free(heap);
        if (!ok && !c->collect)
            return 0;
        continue;
    fail:
        free(heap);
        return -1;
    }
    return ok;
}

static int validate(vctx *c, const json_t *sch, const json_t *inst, const char *ptr,
                    const char *base, int depth)
{
    if (c->oom)
        return -1;
    if (depth > MAX_DEPTH) {
        ms_err_set(c->e, MS_EINPUT, "%s: schema recursion deeper than %d levels", c->s->name,
                   MAX_DEPTH);
        return -1;
    }
    if (json_is_true(sch))
        return 1;
    if (json_is_false(sch)) {
        add_err(c, ptr, "false", "no value is allowed here");
        return 0;
    }
    if (!json_is_object(sch))
        return 1;

    kwmask km = keyword_mask(sch);
    const json_t *ref = KW(sch, km, REF, "$ref");
    int d2020 = c->s->dialect == MS_JSCHEMA_DRAFT2020_12;
    if (json_is_string(ref) && !d2020)  /* draft-07: the siblings of $ref are ignored */
        return validate_ref(c, json_string_value(ref), inst, ptr, base, depth);
    char *mybase = NULL;
    const json_t *id = KW(sch, km, ID, "$id");
    if (json_is_string(id) && json_string_value(id)[0] != '#') {
        mybase = uri_resolve(base, json_string_value(id));
        if (!mybase)
            return c->oom = 1, -1;
        char *h = strchr(mybase, '#');
        if (h)
            *h = '\0';
        base = mybase;
    }
    int ok = 1, r;
    const json_t *k;

    if (json_is_string(ref)) {
        /* 2020-12: the target applies next to the sibling keywords, resolved against the base
         * this schema's own $id set */
        r = validate_ref(c, json_string_value(ref), inst, ptr, base, depth);
        if (r < 0)
            goto internal;
        if (!r) {
            ok = 0;
            if (!c->collect)
                goto done;
        }
    }
    if ((k = KW(sch, km, TYPE, "type"))) {
        int tm = 0;
        if (json_is_string(k))
            tm = type_matches(inst, json_string_value(k));
        else if (json_is_array(k))
            for (size_t i = 0; i < json_array_size(k) && !tm; i++) {
                const char *t = json_string_value(json_array_get(k, i));
                tm = t && type_matches(inst, t);
            }
        else
            tm = 1;
        if (!tm) {
            char want[160] = "";
            if (json_is_string(k))
                snprintf(want, sizeof want, "%s", json_string_value(k));
            else
                for (size_t i = 0; i < json_array_size(k); i++) {
                    const char *t = json_string_value(json_array_get(k, i));
                    size_t l = strlen(want);
                    snprintf(want + l, sizeof want - l, "%s%s", i ? " or " : "", t ? t : "?");
                }
            add_err(c, ptr, "type", "expected %s, found %s", want, type_name(inst));
            ok = 0;
            goto done;  /* the other keywords would only repeat the type mismatch */
        }
    }
    if ((k = KW(sch, km, ENUM, "enum")) && json_is_array(k)) {
        int found = 0;
        for (size_t i = 0; i < json_array_size(k) && !found; i++)
            found = jequal(json_array_get(k, i), inst);
        if (!found) {
            if (collecting(c)) {
                char *txt = json_dumps(k, JSON_COMPACT | JSON_ENCODE_ANY);
                add_err(c, ptr, "enum", "value is not one of %.300s", txt ? txt : "the enum");
                free(txt);
            }
            ok = 0;
        }
    }
    if ((k = KW(sch, km, CONST, "const")) && !jequal(k, inst)) {
        if (collecting(c)) {
            char *txt = json_dumps(k, JSON_COMPACT | JSON_ENCODE_ANY);
            add_err(c, ptr, "const", "value must be %.300s", txt ? txt : "the constant");
            free(txt);
        }
        ok = 0;
    }
    if (!ok && !c->collect)
        goto done;
    if (json_is_number(inst) && !kw_number(c, sch, km, inst, ptr))
        ok = 0;
    if (json_is_string(inst)) {
        r = kw_string(c, sch, km, inst, ptr);
        if (r < 0)
            goto internal;
        if (!r)
            ok = 0;
    }
    if (json_is_array(inst)) {
        r = kw_array(c, sch, km, inst, ptr, base, depth);
        if (r < 0)
            goto internal;
        if (!r)
            ok = 0;
    }
    if (json_is_object(inst)) {
        r = kw_object(c, sch, km, inst, ptr, base, depth);
        if (r < 0)
            goto internal;
        if (!r)
            ok = 0;
    }
    if (!ok && !c->collect)
        goto done;
    if ((k = KW(sch, km, ALLOF, "allOf")) && json_is_array(k)) {
        for (size_t i = 0; i < json_array_size(k); i++) {
            r = validate(c, json_array_get(k, i), inst, ptr, base, depth + 1);
            if (r < 0)
                goto internal;
            if (!r)
                ok = 0;
        }
    }
    if ((k = KW(sch, km, ANYOF, "anyOf")) && json_is_array(k)) {
        int any = 0;
        for (size_t i = 0; i < json_array_size(k) && !any; i++) {
            r = probe(c, json_array_get(k, i), inst, ptr, base, depth + 1);
            if (r < 0)
                goto internal;
            any = r;
        }
        if (!any) {
            add_err(c, ptr, "anyOf", "value matches none of the anyOf alternatives");
            ok = 0;
        }
    }
    if ((k = KW(sch, km, ONEOF, "oneOf")) && json_is_array(k)) {
        int count = 0;
        for (size_t i = 0; i < json_array_size(k); i++) {
            r = probe(c, json_array_get(k, i), inst, ptr, base, depth + 1);
            if (r < 0)
                goto internal;
            count += r;
        }
        if (count != 1) {
            add_err(c, ptr, "oneOf", "value matches %d of the oneOf alternatives, exactly 1 expected",
                    count);
            ok = 0;
        }
    }
    if ((k = KW(sch, km, NOT, "not"))) {
        r = probe(c, k, inst, ptr, base, depth + 1);
        if (r < 0)
            goto internal;
        if (r) {
            add_err(c, ptr, "not", "value matches the schema it must not match");
            ok = 0;
        }
    }
    if ((k = KW(sch, km, IF, "if"))) {
        r = probe(c, k, inst, ptr, base, depth + 1);
        if (r < 0)
            goto internal;
        const json_t *branch = r ? KW(sch, km, THEN, "then") : KW(sch, km, ELSE, "else");
        if (branch) {
            r = validate(c, branch, inst, ptr, base, depth + 1);
            if (r < 0)
                goto internal;
            if (!r)
                ok = 0;
        }
    }
done:
    free(mybase);
    return c->oom ? -1 : ok;
internal:
    free(mybase);
    return -1;
}

int ms_jschema_validate(const ms_jschema *s, const json_t *instance, ms_jschema_errors *errs,
                        size_t max_errors, ms_err *e)
{
    vctx c = {s, errs, max_errors, errs != NULL, 0, e, {{0}}, 0};
    int r = validate(&c, s->root, instance, "", s->root_base, 0);
    for (size_t i = 0; i < c.nrefs; i++) {
        free(c.refs[i].base);
        free(c.refs[i].newbase);
    }
    if (c.oom) {
        ms_err_oom(e);
        return -1;
    }
    return r;
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* members of the object text[0..len) into out; 0, or -1 when the text is not one object that
 * the scanner walks (the caller then parses it whole) */
static int load_members(const char *text, size_t len, const char *const *names, json_t *out)
{
    const char *p = text, *end = text + len;
    char msg[128];
    int simd = ms_simd_level();
    p = skip_ws(p, end);
    if (p == end || *p != '{')
        return -1;
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}')
        return skip_ws(p + 1, end) == end ? 0 : -1;
    for (;;) {
        const char *k = p;
        if (p == end || *p != '"' || ms_json_scan_value_simd(&p, end, 64, simd, msg, sizeof msg) < 0)
            return -1;
        size_t kl;
        char *key = ms_json_decode_string(k, (size_t)(p - k), &kl);
        if (!key)
            return -1;
        p = skip_ws(p, end);
        if (p == end || *p != ':') {
            free(key);
            return -1;
        }
        const char *v = skip_ws(p + 1, end);
        p = v;
        if (ms_json_scan_value_simd(&p, end, 2048, simd, msg, sizeof msg) < 0) {
            free(key);
            return -1;
        }
        int want = 0;
        for (size_t i = 0; names[i] && !want; i++)
            want = strlen(names[i]) == kl && !memcmp(names[i], key, kl);
        if (want) {
            json_error_t je;
            json_t *val = json_loadb(v, (size_t)(p - v), JSON_DECODE_ANY, &je);
            if (!val || json_object_set_new(out, key, val)) {
                free(key);
                return -1;
            }
        }
        free(key);
        p = skip_ws(p, end);
        if (p < end && *p == ',') {
            p = skip_ws(p + 1, end);
            continue;
        }
        if (p < end && *p == '}')
            return skip_ws(p + 1, end) == end ? 0 : -1;
        return -1;
    }
}

json_t *ms_json_load_members(const char *path, const char *const *names)
{
    char *text;
    size_t len;
    ms_err e;
    if (ms_read_file(path, 0, &text, &len, &e) != MS_OK)
        return NULL;
    json_t *out = json_object();
    if (out && load_members(text, len, names, out) != 0) {
        /* not walked: the whole text through Jansson, then the members taken from it */
        json_decref(out);
        json_error_t je;
        json_t *all = json_loadb(text, len, 0, &je);
        out = json_is_object(all) ? json_object() : NULL;
        for (size_t i = 0; out && names[i]; i++) {
            json_t *m = json_object_get(all, names[i]);
            if (m && json_object_set(out, names[i], m)) {
                json_decref(out);
                out = NULL;
            }
        }
        json_decref(all);
    }
    free(text);
    return out;
}

json_t *ms_json_load_path(const char *path, size_t flags, json_error_t *je)
{
    char *text;
    size_t len;
    ms_err e;
    if (ms_read_file(path, 0, &text, &len, &e) != MS_OK)
        return json_load_file(path, flags, je);
    json_t *j = json_loadb(text, len, flags, je);
    free(text);
    return j;
}
