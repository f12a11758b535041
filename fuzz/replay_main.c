/* A fuzz target as a plain program (the test suite's build, no libFuzzer): runs
 * LLVMFuzzerTestOneInput once on each file given, so the crashers a target found
 * (tests/crashers/NAME/) and its hand-made seeds are replayed by ctest, under ASan too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "rb");
        if (!fp) {
            fprintf(stderr, "%s: cannot open\n", argv[i]);
            return 1;
        }
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0, got;
        do {
            if (len == cap) {
                cap = cap ? cap * 2 : 65536;
                uint8_t *p = realloc(buf, cap);
                if (!p) return 1;
                buf = p;
            }
            got = fread(buf + len, 1, cap - len, fp);
            len += got;
        } while (got);
        fclose(fp);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        n++;
    }
    printf("%d inputs replayed\n", n);
    return 0;
}
