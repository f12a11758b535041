# Quake 1 / GoldSrc / BSP2 maps and WAD3 archives (src/formats/quake).
bk_unit_test(quake_unit quake/test_quake.c)
bk_sh_test(quake_corpus quake/corpus.sh)
bk_sh_test(quake_cli quake/cli.sh)
# GoldSrc sky faces without the sky box images: the neutral sky colour and a warning naming them
bk_sh_test(goldsrc_sky quake/sky.sh)
# Light styles on the six styled corpus maps: layers and the atlas at rest against the lump
# (tests/tools/atlas_check.py), values at rest, render --style / --time (docs/gltf.md)
bk_sh_test(quake_styles quake/styles.sh)
set_tests_properties(quake_styles PROPERTIES LABELS slow)
