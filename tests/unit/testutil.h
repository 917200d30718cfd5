/* Shared helpers for the Check unit tests (one binary per tests/unit/test_*.c). */
#ifndef MS_TESTUTIL_H
#define MS_TESTUTIL_H

#include <check.h>
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

#define MS_TEST_MAIN(suite_fn)                                                   \
    int main(void)                                                               \
    {                                                                            \
        SRunner *sr = srunner_create(suite_fn());                                \
        srunner_run_all(sr, CK_NORMAL);                                          \
        int failed = srunner_ntests_failed(sr);                                  \
        srunner_free(sr);                                                        \
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;                             \
    }

#endif
