/* Locating the data files of the source tree or an installation: rules/<name>.json and the
 * datasets (data/<dataset>/). */
#ifndef MS_DATAFILE_H
#define MS_DATAFILE_H

#include <stddef.h>

#include "common/error.h"

/* Looks for rules/<name> in this order: $MLSUBMIT_RULES/<name> (only there when the variable
 * is set), ./rules/<name>, then relative to the running binary: <bindir>/../rules/<name> (the
 * build tree) and <bindir>/../share/mlsubmit/rules/<name> (an installation). Returns 1 with the
 * path in out, 0 if none exists (out then holds the first candidate, for messages). */
int ms_find_rules_file(const char *name, char *out, size_t n);

/* Finds the folder of a dataset (the one holding the file marker, e.g. digits/digits.csv.gz).
 * A data folder holds one folder per dataset (data/digits/). given (a command's --data DIR):
 * DIR is a data folder, so DIR/<dataset>; DIR itself is also accepted when it holds marker (the
 * dataset folder, as --data meant for some commands before). An explicit DIR is the only place
 * looked at. Without it: $MLSUBMIT_DATA/<dataset> (when set), then the data folder beside the
 * rules: ./data/<dataset>, <bindir>/../data/<dataset> (the build tree) and
 * <bindir>/../share/mlsubmit/data/<dataset> (make install), bindir resolved through symbolic
 * links. Returns the folder (malloc'd), or NULL with e (MS_EINPUT) naming every place tried. */
char *ms_find_dataset_dir(const char *given, const char *dataset, const char *marker, ms_err *e);

#endif
