/* Build-time generator: compiles rules/loadgen.json (the LoadGen version table) into a C array of
 * lg_version_rules, so that the LoadGen, the CLI and the Python module carry the facts without a
 * runtime lookup. Usage: gen-lgversions rules/loadgen.json > lg_versions.c
 *
 * The translation is generic: an object becomes a designated initializer whose members are its
 * keys (so a key that is not a field of lg_version_rules fails the C build, naming it), an array
 * becomes a braced list, a string a C string literal, true/false 1/0, numbers as written. Keys
 * starting with '_' or '$' are notes and are left out. Checked here: the shape (a non-empty
 * "versions" array of objects with name, major, minor, patch), unique names, and the order
 * (oldest first), with a message naming the file and JSON path. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *g_file;

static int fail(const char *path, const char *msg)
{
    fprintf(stderr, "%s: %s: %s\n", g_file, path, msg);
    return 1;
}

static void emit_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            printf("\\%03o", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static int emit(json_t *v, const char *path)
{
    char sub[512];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *x;
        printf("{");
        json_object_foreach(v, k, x) {
            if (k[0] == '_' || k[0] == '$')
                continue;
            for (const char *c = k; *c; c++)
                if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) {
                    snprintf(sub, sizeof sub, "%s.%s", path, k);
                    return fail(sub, "a key must be a lower-case C identifier (a field of lg_version_rules)");
                }
            snprintf(sub, sizeof sub, "%s.%s", path, k);
            printf(".%s = ", k);
            if (emit(x, sub))
                return 1;
            printf(", ");
        }
        printf("}");
        return 0;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *x;
        printf("{");
        json_array_foreach(v, i, x) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (emit(x, sub))
                return 1;
            printf(", ");
        }
        printf("}");
        return 0;
    }
    case JSON_STRING:
        emit_string(json_string_value(v));
        return 0;
    case JSON_INTEGER:
        printf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return 0;
    case JSON_REAL:
        printf("%.17g", json_real_value(v));
        return 0;
    case JSON_TRUE:
        printf("1");
        return 0;
    case JSON_FALSE:
    case JSON_NULL:
        printf("0");
        return 0;
    }
    return fail(path, "unexpected JSON value");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen-lgversions rules/loadgen.json > lg_versions.c\n");
        return 2;
    }
    g_file = argv[1];
    json_error_t je;
    json_t *root = json_load_file(argv[1], 0, &je);
    if (!root) {
        fprintf(stderr, "%s:%d:%d: %s\n", argv[1], je.line, je.column, je.text);
        return 1;
    }
    json_t *vs = json_object_get(root, "versions");
    if (!json_is_array(vs) || json_array_size(vs) == 0)
        return fail("$.versions", "expected a non-empty array of LoadGen versions");
    long long prev = -1;
    size_t i;
    json_t *v;
    char path[64];
    json_array_foreach(vs, i, v) {
        snprintf(path, sizeof path, "$.versions[%zu]", i);
        if (!json_is_object(v))
            return fail(path, "expected an object");
        json_t *nm = json_object_get(v, "name");
        json_t *a = json_object_get(v, "major"), *b = json_object_get(v, "minor"),
               *c = json_object_get(v, "patch");
        if (!json_is_string(nm) || !json_is_integer(a) || !json_is_integer(b) || !json_is_integer(c))
            return fail(path, "expected \"name\" (a string) and \"major\", \"minor\", \"patch\" (integers)");
        long long key = json_integer_value(a) * 1000000 + json_integer_value(b) * 1000 + json_integer_value(c);
        if (key <= prev)
            return fail(path, "versions must be listed oldest first, each once");
        prev = key;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(vs, j), "name")), json_string_value(nm)))
                return fail(path, "a version name appears twice");
    }
    printf("/* Generated from %s by tools/gen-lgversions.c; do not edit. */\n", argv[1]);
    printf("#include <stddef.h>\n#include \"loadgen/loadgen.h\"\n\n");
    printf("const lg_version_rules lg_version_table[] = {\n");
    json_array_foreach(vs, i, v) {
        snprintf(path, sizeof path, "$.versions[%zu]", i);
        printf("    ");
        if (emit(v, path))
            return 1;
        printf(",\n");
    }
    printf("};\nconst size_t lg_version_table_len = %zu;\n", json_array_size(vs));
    json_decref(root);
    return 0;
}
