# Writing maps back (src/core/edit.c): rewrite, entity import, pakfile edits.
bk_sh_test(write_corpus write/write.sh)
