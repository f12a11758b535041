/*
 * bspkit — archives: zip (.pk3, .zip), a Source map's pakfile and VPK, through one API.
 *
 * An archive is a list of entries, each read on demand into a block freed with bk_free. Every
 * entry is checked before anything is inflated (method, declared size against the limits and the
 * archive's own bound, stored bytes inside the archive) and every read is CRC-checked: a read
 * never makes more than the entry declares. Entries and their names stay valid until
 * bk_archive_close. One archive is not thread-safe (reads move a shared file position); open one
 * per thread, or share a bk_options.budget between them.
 *
 *     bk_archive *a;
 *     if (bk_archive_open("pak0.pk3", NULL, &a) == BK_OK) {
 *         int32_t i = bk_archive_find(a, "scripts/base.shader");
 *         uint8_t *data;
 *         size_t size;
 *         if (i >= 0 && bk_archive_read(a, (uint32_t)i, UINT64_MAX, &data, &size) == BK_OK)
 *             bk_free(data);
 *         bk_archive_close(a);
 *     }
 */
#ifndef BSPKIT_ARCHIVE_H
#define BSPKIT_ARCHIVE_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bk_archive bk_archive;

typedef enum bk_archive_kind {
    BK_ARCHIVE_NONE = 0,
    BK_ARCHIVE_ZIP = 1,        /* .zip, .pk3, a Source pakfile */
    BK_ARCHIVE_VPK = 2,        /* a VPK directory (v1, v2) and its NAME_NNN.vpk data files */
    BK_ARCHIVE_PAK = 3         /* id's PACK (.pak: Quake, Quake 2, Hexen II); stored, no CRC (crc 0) */
} bk_archive_kind;

typedef struct bk_archive_entry {
    const char *name;          /* as stored: '/' separators in a VPK, either in a zip */
    uint64_t size;             /* bytes read gives */
    uint64_t compressed_size;  /* bytes stored (a VPK stores them as they are: = size) */
    uint32_t crc;              /* CRC-32 of the bytes read gives */
    uint32_t method;           /* zip: 0 stored, 8 deflate, 14 LZMA, ... as the directory says; VPK: 0 */
    bool is_dir;               /* a zip's folder entry (its name ends in '/'); nothing to read */
    uint32_t vpk_archive;      /* VPK: 0x7fff in the directory file, else its NAME_NNN.vpk; zip: 0 */
    uint32_t vpk_preload;      /* VPK: bytes kept in the directory file; zip: 0 */
} bk_archive_entry;

/* What the file at path is by its first bytes: a VPK directory (signature 0x55aa1234, version 1 or
 * 2, whatever its name), a zip (a local header or an empty zip's end record), a PACK ("PACK"), or
 * BK_ARCHIVE_NONE. */
bk_archive_kind bk_archive_probe_file(const char *path);
/* A zip / .pk3, a PACK .pak (by its "PACK" magic: its directory is checked whole here, a bad entry
 * refuses the archive with a located diagnostic), or a VPK (by its signature, or named NAME_dir.vpk:
 * its data files NAME_NNN.vpk are read beside it; a single-file NAME.vpk is read alone). A VPK's directory is read whole
 * (within limits.max_file_bytes, through opt->read_file when given); a zip file is mapped. */
bk_result bk_archive_open(const char *path, const bk_options *opt, bk_archive **out);
/* A zip or a PACK in memory; data is borrowed: it must outlive the archive. */
bk_result bk_archive_open_memory(const void *data, size_t size, const bk_options *opt, bk_archive **out);
/* The pakfile (lump 40) of a loaded Source map, read in place: f must outlive the archive.
 * BK_ENOTFOUND when the map has none, BK_EFORMAT when it is not a zip, BK_EARG when f is not a
 * Source map. Its entries may also be LZMA (method 14), and reads are bounded by
 * limits.max_alloc_bytes too. */
bk_result bk_archive_open_pakfile(const bk_file *f, const bk_options *opt, bk_archive **out);

uint32_t bk_archive_count(const bk_archive *a);
/* entry i, or NULL past the end; valid until bk_archive_close */
const bk_archive_entry *bk_archive_entry_at(const bk_archive *a, uint32_t i);
/* index of the entry named name (case-insensitive, '\\' as '/'; a zip also ignores leading
 * separators), the first of equal names; -1: not there */
int32_t bk_archive_find(const bk_archive *a, const char *name);
/* What reading entry i refuses before anything is inflated (a method the archive does not decode;
 * a declared size over the archive's bound: 8 x a zip's size + 64 MiB, 4 GiB, the limits; stored
 * bytes outside the archive), and with extract what `pak extract` refuses too (a name that is not
 * safe: bk_archive_name_safe). BK_OK, or the result and *why (a short reason; why may be NULL). */
bk_result bk_archive_check(const bk_archive *a, uint32_t i, bool extract, const char **why);
/* Entry i decoded and CRC-checked into *out (bk_free it). max_bytes bounds it beside the
 * archive's own bounds (UINT64_MAX: those alone): BK_ELIMIT past it. BK_EUNSUPPORTED for a
 * method the archive does not decode, BK_EDECOMPRESS for damaged data (the CRC does not match). */
bk_result bk_archive_read(bk_archive *a, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size);
void bk_archive_close(bk_archive *a);

/* true when name is a safe relative path to extract (no ".." component, no absolute path, no drive
 * letter, no empty name or control characters; '\\' counts as a separator). */
bool bk_archive_name_safe(const char *name);

#ifdef __cplusplus
}
#endif
#endif
