/* Built only in sanitizer builds (BSPKIT_SANITIZE): the CLI's allocator set-up (cli/alloc.c, as
 * main() does it), then a one-byte overflow of a 256 KiB block from bk_malloc. The sanitizer
 * must report it (heap-buffer-overflow, non-zero exit): a block mapped by the CLI's own
 * allocator has no redzone and the write would pass unseen (tests/cli/asan_large_block.sh). */
#include <stdio.h>
#include <string.h>

#include "bspkit/bspkit.h"
#include "cli.h"

int main(void)
{
    bk_cli_install_allocator();
    size_t n = (size_t)256 << 10;
    volatile unsigned char *p = bk_malloc(n);
    if (!p) return 2;
    memset((void *)p, 1, n);
    p[n] = 7; /* one past the end */
    printf("overflow of a %zu-byte block not reported\n", n);
    bk_free((void *)p);
    return 0;
}
