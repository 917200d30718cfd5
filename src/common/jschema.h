/* JSON Schema validation (draft-07 keywords) on Jansson, with PCRE2 for "pattern" and
 * "patternProperties". Supported: type, enum, const, required, properties,
 * patternProperties, additionalProperties, propertyNames, dependencies, min/maxProperties,
 * items (schema or array), additionalItems, contains, min/maxItems, uniqueItems, minimum,
 * maximum, exclusiveMinimum, exclusiveMaximum (number or draft-04 boolean), multipleOf,
 * minLength/maxLength (code points), pattern, allOf, anyOf, oneOf, not, if/then/else,
 * boolean schemas, definitions, and $ref within the document (JSON pointers, "#", and $id
 * base-URI resolution to subschemas of the same document). Not supported: remote $ref,
 * "format" (ignored, as draft-07 allows), content* keywords.
 * A loaded schema is immutable and may be shared by threads. */
#ifndef MS_JSCHEMA_H
#define MS_JSCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "common/error.h"

typedef struct ms_jschema ms_jschema;

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
void ms_jschema_free(ms_jschema *s);

/* Validates instance. Returns 1 if valid, 0 if not (errors appended to errs when given, at most
 * max_errors of them; 0 = no limit), -1 on an internal failure (out of memory; e set). */
int ms_jschema_validate(const ms_jschema *s, const json_t *instance, ms_jschema_errors *errs,
                        size_t max_errors, ms_err *e);

void ms_jschema_errors_free(ms_jschema_errors *errs);

/* Appends a JSON-pointer token for key (escaping ~ and /) to a malloc'd pointer. */
char *ms_json_pointer_append(const char *base, const char *key);

#endif
