# Quake 2 / Hexen II groundwork (issue 40): the independent v38 reader, .pak archives, .wal / .pcx
# images and palettes, on the corpus's quake2/ game folder.
# the independent IBSP v38 reader (tests/tools/q2_reader.py) on every corpus Quake 2 map, and on damage
bk_sh_test(quake2_reader quake2/reader.sh)
# .pak (a writer in the test), the game-folder order, every corpus .wal / .pcx / .tga decoded,
# palettes, animation chains, hostile headers refused and located
bk_unit_test(quake2_unit quake2/test_quake2.c)
# pak list / extract on a .pak made from the corpus, damaged ones refused; textures on .wal / .pcx
bk_sh_test(quake2_cli quake2/cli.sh)
