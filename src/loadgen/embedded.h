/* Files embedded into the binary at build time (see tools/embed.sh). Internal to loadgen. */
#ifndef LG_EMBEDDED_H
#define LG_EMBEDDED_H
#include <stddef.h>

struct lg_embedded_file {
    const char *name;
    const char *text;
    size_t len;
};

/* Terminated by an entry whose name is NULL. */
extern const struct lg_embedded_file lg_embedded_files[];

#endif
