/* Shared helpers for the Check unit tests (one binary per tests/unit/test_*.c). */
#ifndef MS_TESTUTIL_H
#define MS_TESTUTIL_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The reference data folder (../shared from the repo root, or $MLSUBMIT_SHARED), or NULL when
 * it is absent: tests that need it skip cleanly. */
static inline const char *ms_test_shared(void)
{
    const char *env = getenv("MLSUBMIT_SHARED");
    const char *p = env && *env ? env : "../shared";
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
        return p;
    return NULL;
}

/* Path under the shared folder in a static-free way: caller supplies the buffer. NULL if the
 * shared folder is absent. */
static inline const char *ms_test_shared_path(char *buf, size_t n, const char *rel)
{
    const char *s = ms_test_shared();
    if (!s)
        return NULL;
    snprintf(buf, n, "%s/%s", s, rel);
    return buf;
}

/* A fresh temporary directory (mkdtemp under $TMPDIR or /tmp). */
static inline void ms_test_tmpdir(char *buf, size_t n)
{
    const char *t = getenv("TMPDIR");
    snprintf(buf, n, "%s/mlsubmit-test-XXXXXX", t && *t ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

#define MS_SKIP_IF_NO_SHARED()                                                   \
    do {                                                                         \
        if (!ms_test_shared()) {                                                 \
            fprintf(stderr, "SKIP %s: ../shared is absent\n", __func__);        \
            return;                                                              \
        }                                                                        \
    } while (0)

/* nftw's callback of MS_TEST_MAIN's clean-up: removes each entry, the deepest first */
static inline int ms_test_rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

/* Runs the suite with every temporary file of its tests under one directory of this run
 * ($TMPDIR points there for the forked tests and the library code they call), removed at the
 * end, kept (and named on stderr) when a test failed: repeated `make test` runs leave nothing
 * in /tmp. */
#define MS_TEST_MAIN(suite_fn)                                                   \
    int main(void)                                                               \
    {                                                                            \
        char run_tmp[4096];                                                      \
        const char *t0 = getenv("TMPDIR");                                       \
        snprintf(run_tmp, sizeof run_tmp, "%s/mlsubmit-unit-XXXXXX",             \
                 t0 && *t0 ? t0 : "/tmp");                                       \
        /* 0711: tests that run code as another user (nobody) reach their own   \
         * directories inside, as they do in /tmp */                            \
        int own_tmp = mkdtemp(run_tmp) != NULL && chmod(run_tmp, 0711) == 0 &&   \
                      setenv("TMPDIR", run_tmp, 1) == 0;                         \
        SRunner *sr = srunner_create(suite_fn());                                \
        srunner_run_all(sr, CK_NORMAL);                                          \
        int failed = srunner_ntests_failed(sr);                                  \
        srunner_free(sr);                                                        \
        if (own_tmp && failed)                                                   \
            fprintf(stderr, "the tests' temporary files are kept in %s\n", run_tmp); \
        else if (own_tmp)                                                        \
            nftw(run_tmp, ms_test_rm_entry, 16, FTW_DEPTH | FTW_PHYS);           \
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;                             \
    }

#endif
