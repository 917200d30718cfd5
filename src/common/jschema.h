/* JSON Schema validation on Jansson, with PCRE2 for "pattern" and "patternProperties".
 *
 * Two dialects. Draft-07 (the default, and what every schema in schemas/ uses): type, enum,
 * const, required, properties, patternProperties, additionalProperties, propertyNames,
 * dependencies, min/maxProperties, items (schema or array), additionalItems, contains,
 * min/maxItems, uniqueItems, minimum, maximum, exclusiveMinimum, exclusiveMaximum (number or
 * draft-04 boolean), multipleOf, minLength/maxLength (code points), pattern, allOf, anyOf,
 * oneOf, not, if/then/else, boolean schemas, definitions, and $ref within the document (JSON
 * pointers, "#", and $id base-URI resolution to subschemas of the same document); the siblings
 * of a $ref are ignored, as draft-07 says.
 * Draft 2020-12, selected by the root's "$schema": "https://json-schema.org/draft/2020-12/schema"
 * (or by the fallback of ms_jschema_new_dialect when the root has no "$schema"): the same
 * assertions, with prefixItems + items (items = the schema for the items after prefixItems; no
 * array form, no additionalItems), contains with minContains/maxContains, dependentRequired and
 * dependentSchemas (no "dependencies"), $defs (and definitions), $anchor, and $ref evaluated
 * alongside its sibling keywords (an $id next to it sets the base the $ref resolves against).
 * Both: regular expressions are PCRE2 in UTF mode, with ECMA-262's long General_Category names
 * (\p{Letter}, \p{gc=Lu}, ...) mapped to the short ones PCRE2 knows. Unknown keywords are
 * ignored. Not supported: remote $ref (and so the metaschemas), unevaluatedProperties,
 * unevaluatedItems, $dynamicRef/$dynamicAnchor, $vocabulary, "format" (an annotation only, as
 * both drafts allow), content* keywords.
 * A loaded schema is immutable and may be shared by threads. */
#ifndef MS_JSCHEMA_H
#define MS_JSCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "common/error.h"

typedef struct ms_jschema ms_jschema;

typedef enum ms_jschema_dialect {
    MS_JSCHEMA_DRAFT7 = 0,
    MS_JSCHEMA_DRAFT2020_12 = 1,
} ms_jschema_dialect;

typedef struct ms_jschema_error {
    char *pointer;  /* JSON pointer into the instance ("" = the whole document) */
    char *keyword;  /* schema keyword that failed ("required", "type", ...) */
    char *message;  /* what was expected and what was found */
} ms_jschema_error;

typedef struct ms_jschema_errors {
    ms_jschema_error *v;
    size_t n, cap;
} ms_jschema_errors;

/* Loads a schema file (JSON). Compiles every pattern; a bad regex or $ref target is reported
 * when the schema is loaded. */
int ms_jschema_load(ms_jschema **out, const char *path, ms_err *e);
/* Same from a Jansson value (a reference is taken). name is used in messages. */
int ms_jschema_new(ms_jschema **out, json_t *schema, const char *name, ms_err *e);
/* Same; fallback is the dialect of a schema whose root has no "$schema" (ms_jschema_new and
 * ms_jschema_load use draft-07). A root "$schema" naming draft 2020-12 selects it; any other
 * "$schema" selects draft-07. */
int ms_jschema_new_dialect(ms_jschema **out, json_t *schema, const char *name,
                           ms_jschema_dialect fallback, ms_err *e);
ms_jschema_dialect ms_jschema_dialect_of(const ms_jschema *s);
void ms_jschema_free(ms_jschema *s);

/* Deep equality of two JSON values (either may be NULL), numbers compared by value (1 == 1.0).
 * With bool_as_number, booleans equal the numbers 0 and 1 (Python's ==); without, a boolean
 * equals only itself (JSON Schema's enum/const/uniqueItems). */
int ms_json_equal(const json_t *a, const json_t *b, int bool_as_number);

/* Validates instance. Returns 1 if valid, 0 if not (errors appended to errs when given, at most
 * max_errors of them; 0 = no limit), -1 on an internal failure (out of memory; e set). */
int ms_jschema_validate(const ms_jschema *s, const json_t *instance, ms_jschema_errors *errs,
                        size_t max_errors, ms_err *e);

void ms_jschema_errors_free(ms_jschema_errors *errs);

/* Appends a JSON-pointer token for key (escaping ~ and /) to a malloc'd pointer. */
char *ms_json_pointer_append(const char *base, const char *key);

/* json_load_file with one read of the whole file and json_loadb (Jansson's own json_load_file
 * reads a character at a time through fgetc): the same value, and the same error text and line
 * (a file that cannot be read is left to json_load_file, for its message). */
json_t *ms_json_load_path(const char *path, size_t flags, json_error_t *je);

/* The members names[] (NULL-terminated) of the JSON object in the file path, as a new object
 * holding only them (a member the file lacks is absent; of a repeated key the last, as Jansson
 * keeps it): the other members' values are scanned (common/mllog.h ms_json_scan_value), not
 * built, so a few small members of a large file cost little more than reading it. A text the
 * scanner does not walk as one object is parsed whole instead. NULL when the file cannot be
 * read or parsed. */
json_t *ms_json_load_members(const char *path, const char *const *names);

#endif
