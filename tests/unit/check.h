/* Minimal test harness: CHECK records a failure with its line and goes on;
 * CHECK_DONE prints "N passed, M failed" and returns the exit code. */
#ifndef BK_CHECK_H
#define BK_CHECK_H
#include <stdio.h>

static int g_pass, g_fail;
#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (cond) g_pass++;                                                            \
        else {                                                                         \
            g_fail++;                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                              \
    } while (0)
/* a test program that checked nothing has tested nothing: that fails too */
#define CHECK_DONE()                                                                   \
    (g_pass + g_fail == 0 ? (fprintf(stderr, "no checks ran\n"), printf("0 passed, 1 failed\n"), 1)  \
                          : (printf("%d passed, %d failed\n", g_pass, g_fail), g_fail ? 1 : 0))
#endif
