/* stb_image (PNG, JPEG and TGA decoding), from the C source Debian's libstb-dev ships as its header,
 * compiled here with the library's allocator: a decoded picture is a block of ours, handed over as
 * it is instead of copied (one full-size copy less alive at once, for every texture a map decodes),
 * and its functions stay inside this file (a program linking its own stb_image meets no second
 * copy of its symbols). The rest of this file is stb_image's, so its warnings are not ours. */
#include "bk_internal.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_NO_STDIO
#define STBI_MALLOC(n) bk_malloc(n)
#define STBI_REALLOC(p, n) bk_realloc(p, n)
#define STBI_FREE(p) bk_free(p)
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <stb/stb_image.h>

bool bk_stbi_info(const uint8_t *data, int size, int *w, int *h)
{
    int comp;
    return stbi_info_from_memory(data, size, w, h, &comp) != 0;
}

uint8_t *bk_stbi_load_rgba(const uint8_t *data, int size, int *w, int *h)
{
    int comp;
    return stbi_load_from_memory(data, size, w, h, &comp, 4);
}
