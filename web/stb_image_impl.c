/* stb_image's implementation for the WebAssembly build (natively it comes from Debian's libstb):
 * the header Debian's libstb-dev ships, compiled once with its implementation switched on. */
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO_UNUSED
#include <stb/stb_image.h>
