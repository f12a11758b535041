# Writing maps back (src/core/edit.c): rewrite, entity import, pakfile edits; entity import round trips.
bk_sh_test(write_corpus write/write.sh)
bk_sh_test(write_entities write/entities.sh)
# Writes that never tear (src/common/safewrite.c): pairs, modes, links, errors, signals, pak add.
bk_sh_test(write_safe write/safe.sh)
bk_sh_test(write_safe_root write/safe_root.sh)
# Lumps as JSON and back (bspkit lump): every lump of every corpus map round-trips byte for byte,
# a changed element is written alone, hostile JSON is refused located.
bk_unit_test(write_lump_json write/test_lump_json.c)
set_tests_properties(write_lump_json PROPERTIES LABELS slow)
bk_sh_test(write_lump write/lump.sh)
# an edited lump of an LZMA map written back LZMA-compressed (Valve's header, fourCC), the rest unchanged
bk_sh_test(write_lzma write/lzma_lumps.sh)
# every path through the same checks (issue #37): the raw entity lump as entities --import, what
# validate must find (empty nodes, leaf contents, ambient ranges, NaN, Q3 clusters), --dry-run on
# every writer, duplicate JSON keys, an oversized JSON element refused before it is parsed
bk_sh_test(write_checks write/checks.sh)
