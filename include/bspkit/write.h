/*
 * bspkit/write.h — editing maps and writing them back: load -> edit -> save.
 *
 *     bk_edit *e;
 *     bk_edit_begin(file, &opt, &e);                 // GoldSrc/Quake/BSP2/Blue Shift, Quake 3, Source
 *     bk_edit_set_entities(e, &ents);                // or bk_edit_set_lump(e, index, bytes, size)
 *     bk_edit_save(e, "out.bsp");                    // temporary file, validated, then renamed
 *     bk_edit_free(e);
 *
 * Guarantees:
 *  - lumps are written back in their original file order with the bytes between them (padding,
 *    unknown data) kept, so a save with no edit is byte-identical to the input;
 *  - an edited lump takes its new size; the lumps after it move (keeping the format's 4-byte
 *    alignment) and the header follows; every other lump keeps its bytes. Quake BSPX offsets and
 *    Source game-lump offsets (absolute file offsets) are rewritten; a Source map's revision is
 *    incremented on any edit;
 *  - the result is validated by the library's own validator before it is handed out or renamed
 *    over the target; an edit that would make the map invalid is refused with a located error.
 * The bk_file must outlive the edit (unedited lumps are copied from its bytes).
 */
#ifndef BSPKIT_WRITE_H
#define BSPKIT_WRITE_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bk_edit bk_edit;

/* BK_EUNSUPPORTED for files that are not BSP maps (WAD3, DPM: see bk_file_write). */
bk_result bk_edit_begin(const bk_file *f, const bk_options *opt, bk_edit **out);
void bk_edit_free(bk_edit *e);

/* Replace lump `index` (header slot order, as `bspkit info` lists them) with size bytes, stored
 * as given (not compressed, even where the map held the lump LZMA-compressed: the entity and JSON
 * imports below compress it again). The bytes are copied. */
bk_result bk_edit_set_lump(bk_edit *e, uint32_t index, const void *data, size_t size);

/* Replace the entity lump with these entities, written in the engines' text form. Text is
 * re-encoded as the map had it: when the map's entity text was not UTF-8 (8-bit code page),
 * UTF-8 keys and values are written back as Latin-1 (BK_EFORMAT for a character Latin-1 lacks).
 * Keys and values may not hold '"' or line breaks (BK_EFORMAT, located by entity and key).
 * A Source entity lump stored LZMA-compressed is written back LZMA-compressed (Valve's header,
 * the directory's fourCC its uncompressed size). */
bk_result bk_edit_set_entities(bk_edit *e, const bk_entities *ents);

/* Replace lump `name` with the JSON bk_lump_to_json prints (the same shape), validated before
 * anything changes: every field present and of its type, integers in their type's range, floats
 * finite within float range (or "0x" + 8 hex digits), no unknown field, the element count within
 * the lump's bounds and bk_limits (max_elements, max_alloc_bytes). BK_EFORMAT / BK_ELIMIT with err
 * (may be NULL) located: lump = name, index = the element (or BK_NO_INDEX), offset = byte offset in
 * json, the message naming the field and the line:column; err->file is NULL. Bytes equal to the
 * lump's (decompressed) bytes leave the lump as stored (a no-change round trip is byte-identical);
 * else they are stored as the map stored the lump (a Source LZMA lump LZMA-compressed again). */
bk_result bk_edit_set_lump_json(bk_edit *e, const char *name, const char *json, size_t len, bk_diag *err);

/* Source: add (or replace) a file in the map's pakfile, stored uncompressed; remove every entry
 * whose name matches a glob ('*' any run without '/', '**' any run, '?' one character, case-
 * insensitive). Existing entries keep their bytes and compression; the central directory is
 * written at the end of the pakfile. BK_EARG for a name that escapes the pakfile. */
bk_result bk_edit_pak_add(bk_edit *e, const char *name, const void *data, size_t size);
bk_result bk_edit_pak_remove(bk_edit *e, const char *glob, uint32_t *removed);
/* Add the file at path, read until its end (a pipe or a /proc file too, whatever its size says), at
 * most one entry's limit (2 GiB - 1, and bk_limits.max_alloc_bytes): BK_ELIMIT past it, BK_EARG for a
 * device (/dev/zero: no end to read to), reported located at path through the edit's diag callback. */
bk_result bk_edit_pak_add_file(bk_edit *e, const char *name, const char *path);

/* Build the edited file in memory (*out: bk_free it), validated. */
bk_result bk_edit_save_memory(bk_edit *e, uint8_t **out, size_t *size);
/* Build, validate, write to a temporary file beside path and rename it over path (see "writing
 * files safely" in bspkit.h: mode, owner and symbolic links kept; bk_write_error says why a write
 * failed). */
bk_result bk_edit_save(bk_edit *e, const char *path);

#ifdef __cplusplus
}
#endif
#endif
