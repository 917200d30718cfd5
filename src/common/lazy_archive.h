/* libarchive for `mlsubmit package` and the digits dataset (src/report/package.c,
 * src/loadgen/digits.c), loaded when first needed: common/lazylib.h. Include this header instead
 * of <archive.h>; call ms_lazy_archive_load() where the code path that uses it begins. */
#ifndef MS_LAZY_ARCHIVE_H
#define MS_LAZY_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>

#include "common/lazylib.h"

/* Every libarchive function mlsubmit calls (a new one: add it here and to the renaming below). */
#define MS_ARCHIVE_FUNCS(X, a) \
    X(a, archive_error_string) \
    X(a, archive_set_error) \
    X(a, archive_read_new) \
    X(a, archive_read_support_filter_gzip) \
    X(a, archive_read_support_format_tar) \
    X(a, archive_read_support_format_raw) \
    X(a, archive_read_open_filename) \
    X(a, archive_read_open_memory) \
    X(a, archive_read_next_header) \
    X(a, archive_read_data) \
    X(a, archive_read_free) \
    X(a, archive_write_new) \
    X(a, archive_write_add_filter_gzip) \
    X(a, archive_write_set_options) \
    X(a, archive_write_set_format_pax_restricted) \
    X(a, archive_write_set_bytes_in_last_block) \
    X(a, archive_write_open2) \
    X(a, archive_write_header) \
    X(a, archive_write_data) \
    X(a, archive_write_close) \
    X(a, archive_write_free) \
    X(a, archive_entry_new) \
    X(a, archive_entry_free) \
    X(a, archive_entry_pathname) \
    X(a, archive_entry_filetype) \
    X(a, archive_entry_symlink) \
    X(a, archive_entry_set_pathname) \
    X(a, archive_entry_set_size) \
    X(a, archive_entry_set_perm) \
    X(a, archive_entry_set_filetype) \
    X(a, archive_entry_set_mtime) \
    X(a, archive_entry_set_uid) \
    X(a, archive_entry_set_gid) \
    X(a, archive_entry_set_uname) \
    X(a, archive_entry_set_gname) \
    X(a, archive_entry_set_symlink)

/* ms_lazy_archive and ms_lazy_archive_load(user, e): MS_OK, or MS_ERUNTIME and a message naming the
 * library; the slot numbers and pointer types of the functions */
MS_LAZY_DECLARE(archive, ARCHIVE)

/* From here on the names call through the table. */
#define archive_error_string MS_LAZY_FN(archive, ARCHIVE, archive_error_string)
#define archive_set_error MS_LAZY_FN(archive, ARCHIVE, archive_set_error)
#define archive_read_new MS_LAZY_FN(archive, ARCHIVE, archive_read_new)
#define archive_read_support_filter_gzip MS_LAZY_FN(archive, ARCHIVE, archive_read_support_filter_gzip)
#define archive_read_support_format_tar MS_LAZY_FN(archive, ARCHIVE, archive_read_support_format_tar)
#define archive_read_support_format_raw MS_LAZY_FN(archive, ARCHIVE, archive_read_support_format_raw)
#define archive_read_open_filename MS_LAZY_FN(archive, ARCHIVE, archive_read_open_filename)
#define archive_read_open_memory MS_LAZY_FN(archive, ARCHIVE, archive_read_open_memory)
#define archive_read_next_header MS_LAZY_FN(archive, ARCHIVE, archive_read_next_header)
#define archive_read_data MS_LAZY_FN(archive, ARCHIVE, archive_read_data)
#define archive_read_free MS_LAZY_FN(archive, ARCHIVE, archive_read_free)
#define archive_write_new MS_LAZY_FN(archive, ARCHIVE, archive_write_new)
#define archive_write_add_filter_gzip MS_LAZY_FN(archive, ARCHIVE, archive_write_add_filter_gzip)
#define archive_write_set_options MS_LAZY_FN(archive, ARCHIVE, archive_write_set_options)
#define archive_write_set_format_pax_restricted MS_LAZY_FN(archive, ARCHIVE, archive_write_set_format_pax_restricted)
#define archive_write_set_bytes_in_last_block MS_LAZY_FN(archive, ARCHIVE, archive_write_set_bytes_in_last_block)
#define archive_write_open2 MS_LAZY_FN(archive, ARCHIVE, archive_write_open2)
#define archive_write_header MS_LAZY_FN(archive, ARCHIVE, archive_write_header)
#define archive_write_data MS_LAZY_FN(archive, ARCHIVE, archive_write_data)
#define archive_write_close MS_LAZY_FN(archive, ARCHIVE, archive_write_close)
#define archive_write_free MS_LAZY_FN(archive, ARCHIVE, archive_write_free)
#define archive_entry_new MS_LAZY_FN(archive, ARCHIVE, archive_entry_new)
#define archive_entry_free MS_LAZY_FN(archive, ARCHIVE, archive_entry_free)
#define archive_entry_pathname MS_LAZY_FN(archive, ARCHIVE, archive_entry_pathname)
#define archive_entry_filetype MS_LAZY_FN(archive, ARCHIVE, archive_entry_filetype)
#define archive_entry_symlink MS_LAZY_FN(archive, ARCHIVE, archive_entry_symlink)
#define archive_entry_set_pathname MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_pathname)
#define archive_entry_set_size MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_size)
#define archive_entry_set_perm MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_perm)
#define archive_entry_set_filetype MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_filetype)
#define archive_entry_set_mtime MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_mtime)
#define archive_entry_set_uid MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_uid)
#define archive_entry_set_gid MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_gid)
#define archive_entry_set_uname MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_uname)
#define archive_entry_set_gname MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_gname)
#define archive_entry_set_symlink MS_LAZY_FN(archive, ARCHIVE, archive_entry_set_symlink)

#endif
