# Source VBSP: corpus checks against an independent Python reader, glTF validation, props,
# pakfile, impostors and hostile variants (tests/source/corpus.sh); scene checks in C.
bk_sh_test(source_corpus source/corpus.sh)
bk_unit_test(source_unit source/test_source.c)
bk_sh_test(source_assets source/assets.sh)
bk_sh_test(source_vpk source/vpk.sh)
