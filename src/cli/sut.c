/* mlsubmit sut serve: a reference SUT as a network node (src/net/node.c, docs/NETWORK.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/parseopt.h"
#include "common/fsutil.h"
#include "common/pmqos.h"
#include "loadgen/loadgen.h"
#include "net/net.h"

static const char usage_text[] =
    "usage: mlsubmit sut serve --sut SPEC --listen [ADDR:]PORT [--name NAME] [--token-file F]\n"
    "                          [--total-samples N] [--max-connections N] [--max-body BYTES]\n"
    "                          [--port-file F] [--data DIR] [--low-latency]\n"
    "\n"
    "Serves a reference SUT (the --sut of `mlsubmit loadgen run`: null, latency, batch, digits,\n"
    "tokens, ...) to a LoadGen on another system, which reaches it with\n"
    "    mlsubmit loadgen run --sut network:http://HOST:PORT[,http://HOST2:PORT2...] ...\n"
    "over HTTP/1.1 keep-alive (wire format: docs/NETWORK.md). Runs until SIGINT or SIGTERM,\n"
    "then stops cleanly (exit 0).\n"
    "\n";

static int parse_u64_arg(const char *s, unsigned long long max, unsigned long long *v)
{
    char *end;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || x > max)
        return -1;
    *v = x;
    return 0;
}

/* a number from min to max */
typedef struct bounded_arg {
    unsigned long long *v;
    unsigned long long min, max;
    const char *expected; /* the usage error's "expected ..." */
} bounded_arg;

static int bounded_cb(const cli_opt *opt, const char *arg, const char *cmd)
{
    const bounded_arg *b = opt->ctx;
    if (parse_u64_arg(arg, b->max, b->v) || *b->v < b->min)
        return cli_usage_error(cmd, "--%s: expected %s, got '%s'", opt->long_name, b->expected, arg);
    return 0;
}

/* The options of sut serve, one table: parsed into the arguments, listed by --help. */
#define SERVE_NOPTS 12
typedef struct serve_args {
    const char *spec, *listen, *name, *token_file, *port_file, *data;
    unsigned long long total, maxconn, maxbody;
    bounded_arg total_b, maxconn_b, maxbody_b;
    int low_latency;
} serve_args;

static void serve_options(serve_args *a, cli_opt opts[SERVE_NOPTS])
{
    a->total_b = (bounded_arg){&a->total, 1, 1ull << 40, "a positive integer"};
    a->maxconn_b = (bounded_arg){&a->maxconn, 1, 100000, "1..100000"};
    a->maxbody_b = (bounded_arg){&a->maxbody, 64, 1ull << 32, "64..4294967296 bytes"};
    const cli_opt t[SERVE_NOPTS] = {
        CLI_STRING(0, "sut", &a->spec, "SPEC", "the SUT (mlsubmit loadgen suts lists them)"),
        CLI_STRING(0, "listen", &a->listen, "[ADDR:]PORT",
                   "IPv4 address and port (ADDR defaults to 127.0.0.1; port 0 = any free\n"
                   "port, written to --port-file)"),
        CLI_STRING(0, "name", &a->name, "NAME",
                   "the node's name (GET /name; every node of a run needs its own);\n"
                   "default: the SUT's name and the port"),
        CLI_STRING(0, "token-file", &a->token_file, "F", "require \"Authorization: Bearer <first line of F>\" (else 401)"),
        CLI_CALLBACK(0, "total-samples", "N", "QSL size for SUTs without a dataset (default 1048576)", bounded_cb,
                     &a->total_b),
        CLI_CALLBACK(0, "max-connections", "N", "concurrent connections (default 64)", bounded_cb, &a->maxconn_b),
        CLI_CALLBACK(0, "max-body", "BYTES", "largest request body (default 67108864); bigger ones get 413",
                     bounded_cb, &a->maxbody_b),
        CLI_STRING(0, "port-file", &a->port_file, "F", "write the port listened on to F once ready"),
        CLI_STRING(0, "data", &a->data, "DIR", CLI_DATA_OPT_HELP),
        CLI_FLAG(0, "low-latency", &a->low_latency, CLI_LOW_LATENCY_OPT_HELP),
        CLI_TEXT("\nExit status: 0 stopped by a signal, 2 usage, 3 bad token file, 4 cannot listen or start the SUT."),
        CLI_END,
    };
    memcpy(opts, t, sizeof t);
}

static void usage(FILE *out)
{
    serve_args a = {0};
    cli_opt opts[SERVE_NOPTS];
    serve_options(&a, opts);
    fputs(usage_text, out);
    cli_print_options(out, opts);
}

static int sut_cmd_serve(int argc, char **argv)
{
    const char *cmd = "sut serve";
    serve_args args = {.maxconn = 64, .maxbody = 64ull << 20};
    cli_opt opts[SERVE_NOPTS];
    serve_options(&args, opts);
    int pr = cli_parse_no_args(cmd, usage_text, opts, argc, argv);
    if (pr < 0)
        return cli_parse_exit(pr);
    const char *spec = args.spec, *listen = args.listen, *name = args.name, *token_file = args.token_file,
               *port_file = args.port_file, *data = args.data;
    unsigned long long total = args.total, maxconn = args.maxconn, maxbody = args.maxbody;
    if (!spec || !listen)
        return cli_usage_error(cmd, "--sut and --listen are required");
    char addr[64] = "127.0.0.1";
    const char *colon = strrchr(listen, ':');
    const char *portstr = colon ? colon + 1 : listen;
    if (colon) {
        size_t l = (size_t)(colon - listen);
        if (l == 0 || l >= sizeof addr)
            return cli_usage_error(cmd, "--listen '%s': expected [ADDR:]PORT", listen);
        memcpy(addr, listen, l);
        addr[l] = '\0';
    }
    unsigned long long port;
    if (parse_u64_arg(portstr, 65535, &port))
        return cli_usage_error(cmd, "--listen '%s': expected [ADDR:]PORT with PORT 0..65535", listen);
    ms_err e;
    char *token = NULL;
    if (token_file) {
        size_t tl;
        if (ms_read_file(token_file, 1 << 16, &token, &tl, &e) != MS_OK)
            return cli_fail(cmd, &e);
        token[strcspn(token, "\r\n")] = '\0';
        if (!*token) {
            free(token);
            fprintf(stderr, "mlsubmit %s: --token-file %s: the first line (the token) is empty\n", cmd, token_file);
            return MS_EINPUT;
        }
    }
    /* the default settings (no config: the node's client sends the queries), the SUT: one with
     * its own dataset (digits) uses it whole, others get a counting QSL */
    lg_run_spec sp = {.scenario = LG_SINGLE_STREAM, .mode = -1, .compat = LG_COMPAT_LATEST, .sut_spec = spec,
                      .data_dir = data, .total_samples = (size_t)total, .fallback_samples = 1u << 20};
    lg_run_setup rs;
    if (lg_run_setup_build(&sp, &rs, &e) != MS_OK) {
        lg_run_setup_free(&rs);
        free(token);
        return cli_fail(cmd, &e);
    }
    lg_sut_instance *si = rs.sut;
    char defname[300];
    if (!name) {
        snprintf(defname, sizeof defname, "%s @ %s:%llu", lg_sut_instance_sut(si)->name(lg_sut_instance_sut(si)->ctx),
                 addr, port);
        name = defname;
    }
    ms_pmqos qos = MS_PMQOS_INIT;
    if (args.low_latency)
        cli_low_latency(cmd, &qos);
    /* SIGINT/SIGTERM are taken by sigwait below; the node's threads inherit the mask */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    ms_node_options o = {addr, (unsigned)port, name, token, (size_t)maxbody, (unsigned)maxconn};
    ms_node *nd = ms_node_start(si, &o, &e);
    if (!nd) {
        ms_pmqos_release(&qos);
        lg_run_setup_free(&rs);
        free(token);
        return cli_fail(cmd, &e);
    }
    unsigned p = ms_node_port(nd);
    if (port_file) {
        char buf[16];
        int l = snprintf(buf, sizeof buf, "%u\n", p);
        if (ms_write_file_atomic(port_file, buf, (size_t)l, &e) != MS_OK) {
            ms_node_free(nd);
            ms_pmqos_release(&qos);
            lg_run_setup_free(&rs);
            free(token);
            return cli_fail(cmd, &e);
        }
    }
    fprintf(stderr, "mlsubmit %s: node '%s' serving on http://%s:%u%s\n", cmd, name, addr, p,
            token ? " (token required)" : "");
    int sig = 0;
    while (sigwait(&set, &sig) != 0)
        ;
    ms_node_stop(nd);
    fprintf(stderr, "mlsubmit %s: %s: stopped after %llu sample(s) in %llu quer%s\n", cmd, strsignal(sig),
            (unsigned long long)ms_node_samples_served(nd), (unsigned long long)ms_node_queries_issued(nd),
            ms_node_queries_issued(nd) == 1 ? "y" : "ies");
    ms_pmqos_release(&qos);
    lg_run_setup_free(&rs);
    ms_node_free(nd);
    free(token);
    return MS_OK;
}

int cmd_sut(int argc, char **argv)
{
    static const cli_subcmd subs[] = {{"serve", sut_cmd_serve, NULL}, {NULL, NULL, NULL}};
    return cli_dispatch("sut", argc, argv, usage, subs);
}
