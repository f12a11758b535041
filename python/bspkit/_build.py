"""Builds bspkit._native: cffi API mode over the public headers (include/bspkit/*.h), linked
with the static libbspkit.a that CMake builds.

Why the static library: the extension is then one self-contained module (no libbspkit.so to
install, no rpath, no LD_LIBRARY_PATH), it always matches the headers it was compiled against,
and the CMake default build (BUILD_SHARED_LIBS=OFF, position-independent objects) already makes
it. The library's own dependencies (zlib, libdeflate, cJSON, minizip, libspng, stb, ISA-L) stay shared
Debian libraries, as bspkit.pc lists them.

Where the library comes from, in order: $BSPKIT_BUILD_DIR (a CMake build folder holding
libbspkit.a and bspkit.pc), the repository's build/ (what `make` builds), else a CMake build made
here (python/build-lib/, tests off).
"""
import os
import re
import shlex
import subprocess
import tempfile
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("BSPKIT_SOURCE_DIR", HERE.parent.parent)).resolve()
INCLUDE = ROOT / "include"

# What one point / trace answer is in the arrays Map.point / Map.trace return (POINT_DTYPE and
# TRACE_DTYPE in __init__.py lay them out the same)
STRUCTS = r"""
typedef struct bkpy_point {
    int32_t leaf; uint32_t contents; int32_t native_contents; int32_t cluster; int32_t area;
} bkpy_point;

typedef struct bkpy_trace {
    float fraction; float endpos[3]; float normal[3]; float dist;
    uint32_t contents; int32_t native_contents; int32_t surface;
    uint8_t startsolid, allsolid, pad_[2];
} bkpy_trace;
"""

# Loops over many queries in C, so that one call (the GIL released) answers a whole array.
# every public header, as the declarations (public_cdef) read them all
HELPERS = r"""
#include <string.h>
#define BK_ADVANCED_API
""" + "".join("#include <bspkit/%s>\n" % h.name for h in sorted((INCLUDE / "bspkit").glob("*.h"))) + "\n" + STRUCTS + r"""
/* n points (3 floats each) -> out; the first failure's result (BK_OK: all answered) */
static int bkpy_points(const bk_query *q, uint32_t model, const float *pos, size_t n, bkpy_point *out)
{
    bk_point_info pi[256];   /* bk_query_points walks several points through the tree side by side */
    for (size_t i = 0; i < n; i += 256) {
        size_t k = n - i < 256 ? n - i : 256;
        bk_result r = bk_query_points(q, model, k, pos + 3 * i, pi, NULL);
        if (r != BK_OK) return (int)r;
        for (size_t j = 0; j < k; j++) {
            out[i + j].leaf = pi[j].leaf;
            out[i + j].contents = pi[j].contents;
            out[i + j].native_contents = pi[j].native_contents;
            out[i + j].cluster = pi[j].cluster;
            out[i + j].area = pi[j].area;
        }
    }
    return BK_OK;
}

static int bkpy_traces(const bk_query *q, const bk_trace_params *p, const float *a, const float *b, size_t n,
                       bkpy_trace *out)
{
    for (size_t i = 0; i < n; i++) {
        bk_trace_result tr;
        bk_result r = bk_query_trace(q, p, a + 3 * i, b + 3 * i, &tr);
        if (r != BK_OK) return (int)r;
        bkpy_trace *o = &out[i];
        o->fraction = tr.fraction;
        memcpy(o->endpos, tr.endpos, sizeof o->endpos);
        memcpy(o->normal, tr.normal, sizeof o->normal);
        o->dist = tr.dist;
        o->contents = tr.contents;
        o->native_contents = tr.native_contents;
        o->surface = tr.surface;
        o->startsolid = tr.startsolid;
        o->allsolid = tr.allsolid;
        o->pad_[0] = o->pad_[1] = 0;
    }
    return BK_OK;
}

static void bkpy_visible(const bk_query *q, const float *a, const float *b, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = bk_query_points_visible(q, a + 3 * i, b + 3 * i);
}

/* the entities of a file as the JSON `bspkit entities --json` prints (one call, parsed by json) */
static int bkpy_entities_json(const bk_file *f, char **out, size_t *len)
{
    return (int)bk_entities_to_json(bk_file_entities(f), out, len);
}
"""

HELPER_CDEF = STRUCTS + r"""
int bkpy_points(const bk_query *q, uint32_t model, const float *pos, size_t n, bkpy_point *out);
int bkpy_traces(const bk_query *q, const bk_trace_params *p, const float *a, const float *b, size_t n,
                bkpy_trace *out);
void bkpy_visible(const bk_query *q, const float *a, const float *b, size_t n, uint8_t *out);
int bkpy_entities_json(const bk_file *f, char **out, size_t *len);
const char *bkpy_library(void);

extern "Python" void bkpy_diag(void *user, const bk_diag *d);

#define BK_NO_INDEX ...
#define BK_NO_OFFSET ...
#define BK_CONTENTS_OTHER ...
#define BK_MASK_PLAYERSOLID ...
#define BK_MASK_SOLID ...
#define BK_MAX_COUNTS ...
"""


def public_cdef() -> str:
    """The public headers, preprocessed into declarations cffi reads. The standard headers are
    replaced by empty ones: cffi knows uint32_t, size_t, bool itself."""
    fake = Path(tempfile.mkdtemp(prefix="bspkit-cdef-"))
    for h in ("stdint.h", "stdbool.h", "stddef.h"):
        (fake / h).write_text("")
    headers = sorted((INCLUDE / "bspkit").glob("*.h"))
    # the fenced advanced.h too: the package uses a few of its knobs (a deferred Source load)
    src = "#define BK_ADVANCED_API\n" + "".join('#include "%s"\n' % h for h in headers)
    cc = os.environ.get("CC", "cc")
    out = subprocess.run([cc, "-E", "-P", "-nostdinc", "-I", str(fake), "-I", str(INCLUDE / "bspkit"), "-"],
                         input=src, capture_output=True, text=True, check=True).stdout
    for h in fake.iterdir():
        h.unlink()
    fake.rmdir()
    return out


def library_dir() -> Path:
    env = os.environ.get("BSPKIT_BUILD_DIR")
    if env:
        d = Path(env).resolve()
        if not (d / "libbspkit.a").exists():
            raise SystemExit("bspkit: BSPKIT_BUILD_DIR=%s holds no libbspkit.a" % d)
        return d
    d = ROOT / "build"
    if (d / "libbspkit.a").exists() and (d / "bspkit.pc").exists():
        return d
    d = HERE.parent / "build-lib"
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(d), "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    "-DBSPKIT_TESTS=OFF", "-DBUILD_SHARED_LIBS=OFF"], check=True)
    subprocess.run(["cmake", "--build", str(d), "--target", "bspkit", "-j2"], check=True)
    return d


def link_flags(d: Path):
    """libbspkit.a, then its dependencies as its bspkit.pc names them."""
    pc = (d / "bspkit.pc").read_text()
    mods = re.search(r"^Requires\.private:(.*)$", pc, re.M)
    priv = re.search(r"^Libs\.private:(.*)$", pc, re.M)
    flags = []
    if mods and mods.group(1).strip():
        flags += shlex.split(subprocess.run(["pkg-config", "--libs"] + mods.group(1).split(),
                                            capture_output=True, text=True, check=True).stdout)
    if priv:
        flags += shlex.split(priv.group(1))
    flags.append("-lm")
    libs = [f[2:] for f in flags if f.startswith("-l")]
    lib_dirs = [f[2:] for f in flags if f.startswith("-L")]
    extra = [f for f in flags if not f.startswith(("-l", "-L"))]
    return libs, lib_dirs, extra


ffibuilder = FFI()
ffibuilder.cdef(public_cdef())
ffibuilder.cdef(HELPER_CDEF)
_d = library_dir()
_libs, _lib_dirs, _extra = link_flags(_d)
# which libbspkit.a the extension links (bspkit._native.lib.bkpy_library(): the install tests ask)
_WHICH = "\nconst char *bkpy_library(void) { return \"%s\"; }\n" % str(_d / "libbspkit.a").replace("\\", "\\\\").replace('"', '\\"')
ffibuilder.set_source(
    "bspkit._native", HELPERS + _WHICH,
    include_dirs=[str(INCLUDE)],
    extra_objects=[str(_d / "libbspkit.a")],
    # relinked when the library is newer than the extension (setuptools looks at sources and
    # depends only, so `make python` after a library change would keep the old code)
    depends=[str(_d / "libbspkit.a")],
    libraries=_libs, library_dirs=_lib_dirs,
    extra_compile_args=["-O2", "-std=c11"] + shlex.split(os.environ.get("BSPKIT_CFLAGS", "")),
    # e.g. BSPKIT_LDFLAGS="-fsanitize=address,undefined" with a sanitizer build's libbspkit.a
    extra_link_args=_extra + shlex.split(os.environ.get("BSPKIT_LDFLAGS", "")),
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
