# Writing maps back (src/core/edit.c): rewrite, entity import, pakfile edits; entity import round trips.
bk_sh_test(write_corpus write/write.sh)
bk_sh_test(write_entities write/entities.sh)
# Writes that never tear (src/common/safewrite.c): pairs, modes, links, errors, signals, pak add.
bk_sh_test(write_safe write/safe.sh)
bk_sh_test(write_safe_root write/safe_root.sh)
