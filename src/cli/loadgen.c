/* mlsubmit loadgen: placeholder until the LoadGen lands. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_loadgen(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: mlsubmit loadgen run|check-conf ...\n");
        return MS_OK;
    }
    return cli_usage_error("loadgen", "not implemented yet");
}
