# Writing maps back (src/core/edit.c): rewrite, entity import, pakfile edits; entity import round trips.
bk_sh_test(write_corpus write/write.sh)
bk_sh_test(write_entities write/entities.sh)
