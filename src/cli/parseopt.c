/* The subcommands' option parser over getopt_long (see parseopt.h). */
#include "cli/parseopt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"

/* The options of a table and its nested tables, flattened in listing order. */
typedef struct flat {
    const cli_opt **v;
    size_t n, cap;
} flat;

static int flatten(flat *f, const cli_opt *opts)
{
    for (const cli_opt *o = opts; o && o->kind != CLI_OPT_END; o++) {
        if (o->kind == CLI_OPT_TABLE) {
            if (flatten(f, o->value))
                return -1;
            continue;
        }
        if (o->kind == CLI_OPT_TEXT)
            continue;
        if (MS_GROW(f->v, f->cap, f->n + 1, 32))
            return -1;
        f->v[f->n++] = o;
    }
    return 0;
}

static int apply(const cli_opt *o, const char *arg, const char *cmd)
{
    switch (o->kind) {
    case CLI_OPT_FLAG:
        *(int *)o->value = 1;
        return 0;
    case CLI_OPT_STRING:
        *(const char **)o->value = arg;
        return 0;
    case CLI_OPT_CALLBACK:
        return o->cb(o, arg, cmd);
    default:
        return 0;
    }
}

/* "--name" or "-o" of an option, for messages */
static void opt_name(const cli_opt *o, char *buf, size_t n)
{
    if (o->long_name)
        snprintf(buf, n, "--%s", o->long_name);
    else
        snprintf(buf, n, "-%c", o->short_name);
}

int cli_parse(const char *cmd, const char *usage, const cli_opt *opts, int argc, char **argv, char ***pos)
{
    if (cli_wants_help(argc, argv)) {
        if (usage)
            fputs(usage, stdout);
        cli_print_options(stdout, opts);
        return CLI_PARSE_HELP;
    }
    flat f = {0};
    if (flatten(&f, opts)) {
        free(f.v);
        fprintf(stderr, "mlsubmit %s: out of memory\n", cmd);
        return CLI_PARSE_ERROR;
    }
    /* getopt_long's tables: val 256 + index for long options, the short letter otherwise */
    struct option *lo = calloc(f.n + 1, sizeof *lo);
    char *shorts = malloc(2 + 2 * f.n + 1);
    if (!lo || !shorts) {
        free(lo);
        free(shorts);
        free(f.v);
        fprintf(stderr, "mlsubmit %s: out of memory\n", cmd);
        return CLI_PARSE_ERROR;
    }
    size_t nl = 0, ns = 0;
    shorts[ns++] = ':'; /* a missing value returns ':' */
    for (size_t i = 0; i < f.n; i++) {
        const cli_opt *o = f.v[i];
        if (o->long_name)
            lo[nl++] = (struct option){o->long_name, o->argh ? required_argument : no_argument, NULL,
                                       256 + (int)i};
        if (o->short_name) {
            shorts[ns++] = (char)o->short_name;
            if (o->argh)
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = 0;
    int rc = 0;
    opterr = 0;
    optind = 0; /* GNU: a full reinitialisation (the parser may have run before) */
    for (;;) {
        int c = getopt_long(argc, argv, shorts, lo, NULL);
        if (c == -1)
            break;
        const char *word = argv[optind > 1 ? optind - 1 : 1];
        if (c == '?' || c == ':') {
            char name[128];
            if (optopt >= 256) {
                opt_name(f.v[optopt - 256], name, sizeof name);
            } else if (optopt) {
                snprintf(name, sizeof name, "-%c", optopt);
            } else {
                /* an unknown long option: the word up to '=' */
                const char *eq = strchr(word, '=');
                snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - word) : (int)strlen(word), word);
            }
            if (c == ':')
                cli_usage_error(cmd, "%s needs a value", name);
            else if (optopt >= 256)
                cli_usage_error(cmd, "%s takes no value", name);
            else if (optopt == 0 && word[0] == '-' && word[1] == '-')
                cli_usage_error(cmd, "unknown option '%s'", name);
            else
                cli_usage_error(cmd, "unknown option '%s'", optopt ? name : word);
            rc = CLI_PARSE_ERROR;
            break;
        }
        const cli_opt *o = NULL;
        if (c >= 256)
            o = f.v[c - 256];
        else
            for (size_t i = 0; i < f.n && !o; i++)
                if (f.v[i]->short_name == c)
                    o = f.v[i];
        if (!o)
            continue;
        if (apply(o, o->argh ? optarg : NULL, cmd)) {
            rc = CLI_PARSE_ERROR;
            break;
        }
    }
    free(lo);
    free(shorts);
    free(f.v);
    if (rc)
        return rc;
    *pos = argv + optind;
    return argc - optind;
}

int cli_parse_no_args(const char *cmd, const char *usage, const cli_opt *opts, int argc, char **argv)
{
    char **pos;
    int npos = cli_parse(cmd, usage, opts, argc, argv, &pos);
    if (npos > 0) {
        cli_usage_error(cmd, "unexpected argument '%s'", pos[0]);
        return CLI_PARSE_ERROR;
    }
    return npos;
}

int cli_parse_exit(int r)
{
    return r == CLI_PARSE_HELP ? MS_OK : MS_EUSAGE;
}

int cli_root_arg(const char *cmd, int npos, char **pos, const char **root)
{
    for (int i = 0; i < npos; i++) {
        if (*root) {
            cli_usage_error(cmd, "only one ROOT may be given ('%s')", pos[i]);
            return -1;
        }
        *root = pos[i];
    }
    return 0;
}

#define HELP_COL 24

static void print_help_lines(FILE *f, const char *help, int col)
{
    for (const char *l = help; *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        if (l != help)
            fprintf(f, "%*s", col, "");
        fprintf(f, "%.*s\n", (int)n, l);
        l += n + (nl ? 1 : 0);
    }
}

void cli_print_options(FILE *f, const cli_opt *opts)
{
    for (const cli_opt *o = opts; o && o->kind != CLI_OPT_END; o++) {
        if (o->kind == CLI_OPT_TABLE) {
            cli_print_options(f, o->value);
            continue;
        }
        if (!o->help)
            continue;
        if (o->kind == CLI_OPT_TEXT) {
            print_help_lines(f, o->help, 0);
            continue;
        }
        char head[128];
        int n = snprintf(head, sizeof head, "  ");
        if (o->short_name)
            n += snprintf(head + n, sizeof head - (size_t)n, "-%c%s", o->short_name, o->long_name ? ", " : "");
        if (o->long_name && n < (int)sizeof head)
            n += snprintf(head + n, sizeof head - (size_t)n, "--%s", o->long_name);
        if (o->argh && n < (int)sizeof head)
            n += snprintf(head + n, sizeof head - (size_t)n, " %s", o->argh);
        if (n + 1 < HELP_COL)
            fprintf(f, "%-*s", HELP_COL, head);
        else
            fprintf(f, "%s\n%*s", head, HELP_COL, "");
        print_help_lines(f, o->help, HELP_COL);
    }
}
