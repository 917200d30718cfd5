/* Locating the rules data files (rules/<name>.json) of the source tree or an installation. */
#ifndef MS_DATAFILE_H
#define MS_DATAFILE_H

#include <stddef.h>

/* Looks for rules/<name> in this order: $MLSUBMIT_RULES/<name> (only there when the variable
 * is set), ./rules/<name>, then relative to the running binary: <bindir>/../rules/<name> (the
 * build tree) and <bindir>/../share/mlsubmit/rules/<name> (an installation). Returns 1 with the
 * path in out, 0 if none exists (out then holds the first candidate, for messages). */
int ms_find_rules_file(const char *name, char *out, size_t n);

#endif
