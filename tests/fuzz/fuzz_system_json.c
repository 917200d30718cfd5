/* libFuzzer harness: system description JSON through Jansson and the JSON Schema validator
 * (schemas/system_desc.schema.json); the input is also compiled as a schema itself. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/jschema.h"

/* The compiled schema for the whole fuzzing process (libFuzzer entry points take no context;
 * test code, not library code). */
static ms_jschema *system_schema;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    ms_err e;
    if (ms_jschema_load(&system_schema, "schemas/system_desc.schema.json", &e) != MS_OK)
        abort(); /* run from the repository root */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *doc = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return 0;
    ms_jschema_errors errs = {0};
    ms_err e;
    (void)ms_jschema_validate(system_schema, doc, &errs, 0, &e);
    ms_jschema_errors_free(&errs);
    ms_jschema *s = NULL; /* ms_jschema_new takes its own reference */
    if (ms_jschema_new(&s, doc, "fuzz-schema", &e) == MS_OK) {
        json_t *inst = json_pack("{s:s,s:i,s:[i,s]}", "a", "b", "n", 3, "l", 1, "x");
        ms_jschema_errors errs2 = {0};
        if (inst)
            (void)ms_jschema_validate(s, inst, &errs2, 0, &e);
        ms_jschema_errors_free(&errs2);
        json_decref(inst);
        ms_jschema_free(s);
    }
    json_decref(doc);
    return 0;
}
