/* props and pak: Source-map commands (filled in by the Source decoder work). */
#include <string.h>

#include "cli.h"

static int not_yet(const char *name, int argc, char **argv)
{
    const cli_cmd *me = cli_find(name);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(me->usage, stdout);
            return EXIT_OK;
        }
    fprintf(stderr, "bspkit %s: Source maps are not supported yet\n", name);
    return EXIT_BAD_INPUT;
}

int cmd_props(int argc, char **argv) { return not_yet("props", argc, argv); }
int cmd_pak(int argc, char **argv) { return not_yet("pak", argc, argv); }
