/* The glTF exporter's two halves (gltf.c: the JSON and the buffer's layout; gltf_bin.c: the PNG
 * job, the emit pass streaming the layout's bytes, and the .glb container with its placeholders). */
#ifndef BK_GLTF_INTERNAL_H
#define BK_GLTF_INTERNAL_H

#include <stdatomic.h>

#include "xform.h"

/* What produces a buffer view's bytes at emit time. */
enum {
    SEG_OWNED,                      /* bytes held by the segment (PNGs, skins, animations) */
    SEG_POS, SEG_NRM, SEG_UV0, SEG_UV1, SEG_ZERO2, SEG_COL, SEG_JTS, SEG_WTS, /* a primitive's attribute */
    SEG_IDX16, SEG_IDX32,           /* a primitive's indices, degenerate triangles dropped */
    SEG_PNG,                        /* an image's PNG, written as it is encoded (offset and length
                                     * known only then: the JSON holds placeholders, filled after) */
    SEG_TIMES, SEG_KEYS,            /* an animation channel's key times, its values (converted) */
};

typedef struct bin_seg {
    uint64_t ofs, bytes;
    const bk_primitive *p;          /* SEG_POS .. SEG_IDX32 */
    const bk_channel *ch;           /* SEG_TIMES, SEG_KEYS */
    uint8_t *owned;                 /* SEG_OWNED */
    int kind;
    uint32_t image;                 /* SEG_PNG */
} bin_seg;


/* The images' PNGs, encoded on a second thread while the geometry is laid out and written (the
 * deflate of a lightmap atlas is the largest single cost of a conversion); the writing thread
 * takes images from the same queue when it needs one that is not started, so maps of many
 * textures use both. When they go out as they are encoded (to a file), the thread stops taking
 * images while the PNGs it has made and the writer has not let go pass a budget: the writer
 * reaches the images only after the geometry, and a thread running ahead of it would hold every
 * PNG at once (a small map's peak memory). */
typedef struct png_job {
    const bk_scene *s;
    int level;
    bk_buf *pngs;      /* one per image; empty for images without pixels */
    bk_result *res;    /* one per image */
    uint8_t *done;     /* one per image: its PNG (or its failure) is in */
    bool borrow;       /* a PNG the scene holds (BK_PACK_PNG) is written from there, not copied */
    atomic_uint next;  /* the next image to take */
    bk_result r;       /* BK_ENOMEM when the job could not be set up */
    size_t held;       /* bytes of the PNGs made and not let go (under mu) */
    size_t budget;     /* the thread takes no image while held is over it (SIZE_MAX: no limit) */
    bool stop;         /* the thread takes no more images (under mu) */
    bk_thread th;
    bool running;
    bk_mutex mu;
    bk_cond cv;
} png_job;

typedef struct gltf_writer {
    const bk_scene *s;
    bk_xform x;
    bin_seg *segs;
    uint32_t seg_count, seg_cap;
    uint64_t bin_size;
    bk_buf head;                      /* {"asset":... to "buffers":[...] (no closing brace) */
    bk_buf views, accessors;          /* the bufferViews and accessors arrays' JSON, without [ ] */
    bk_buf tail;                      /* ,"nodes":[...],"scenes":[...],"scene":0 */
    bk_export_stats st;
    bk_result err;
    int png_level;
    int view_count, accessor_count;
    struct png_job *job;              /* the images' PNGs (encoding while the geometry is laid out) */
    bool defer_png;                   /* PNGs go out as they are encoded (SEG_PNG), not held first */
    uint32_t png_views;
} gltf_writer;

/* Placeholders in the JSON for numbers known only once the PNGs are written (deferred mode):
 * a control byte (which bk_json_str escapes inside strings, so it cannot occur elsewhere) and spaces,
 * as wide as the largest 32-bit number; filled in with the number, right-aligned. */
#define PH_WIDTH 10
#define PH_BUFFER_LENGTH "\x01         "
#define PH_VIEW_OFFSET "\x02         "
#define PH_VIEW_LENGTH "\x03         "

/* a line or triangle with an index out of range or two equal indices */
bool bk_gltf_bad_element(const uint32_t *v, uint32_t per, uint32_t n);
/* The cleaned vertex i of p for attribute kind, into out (floats; uint16 for SEG_JTS, bytes for SEG_COL);
 * cl counts the values cleaned. */
void bk_gltf_vertex_attr(const bk_xform *x, const bk_primitive *p, int kind, uint32_t i, void *out, uint64_t *cl);

/* start encoding the scene's PNGs (on a thread when there is enough to be worth one) */
void bk_gltf_png_start(png_job *j, const bk_scene *s, int level, bool borrow);
/* the calling thread joins in, then waits for the rest; the first failure in image order */
bk_result bk_gltf_png_finish(png_job *j);
void bk_gltf_png_free(png_job *j);

/* Stream the whole buffer (w->bin_size bytes, zero padding between views and at the end). */
bk_result bk_gltf_emit_bin(gltf_writer *w, bk_write_fn write, void *user);
/* A .glb in pieces: header, JSON chunk (space-padded), BIN chunk streamed from the layout. */
bk_result bk_gltf_glb_emit(const char *json, gltf_writer *w, bk_write_fn write, void *user, uint64_t *bytes);
/* Deferred mode, once the buffer is written: each placeholder in json (n bytes) gets its number. */
bk_result bk_gltf_fill_placeholders(const gltf_writer *w, char *json, size_t n);
/* A .glb into a file, PNGs written as they are encoded (deferred mode); frees *json once written. */
bk_result bk_gltf_glb_emit_file(char **json, gltf_writer *w, bk_atomic_file *af, uint64_t *bytes);
/* gltf.c: an extras object {"key":"value",...} */
void bk_gltf_kv_text(bk_buf *b, const bk_kv *kv, uint32_t n);
/* gltf_lights.c: ,"extensions":{"KHR_lights_punctual":{"lights":[...]}} of the scene's lights; a
 * light node's converted rotation q made to aim glTF's -Z where the scene aims engine -Z */
void bk_gltf_write_lights(bk_buf *b, const bk_scene *s, const bk_xform *x);
void bk_gltf_light_rotation(const bk_xform *x, float q[4]);

#endif
