# bspkit render (src/render): the software renderer.
bk_unit_test(unit_render unit/test_render.c)
target_link_libraries(unit_render PRIVATE Threads::Threads)
# PVS culling, overviews and their .txt, batch thumbnails, models, absurd arguments
bk_sh_test(render_cli render/cli.sh)
# the same eye drawn by three.js in headless Chromium (tests/tools/render.mjs --mode full) on
# maps of every family: RMSE <= 3%
bk_sh_test(render_reference render/reference.sh)
set_tests_properties(render_reference PROPERTIES LABELS slow)
# peak memory of bspkit render within 3x the input + the frame buffers, on the maps that meet it
bk_sh_test(render_memory render/memory.sh)
# the renderer's shortcuts (culling before the sort, the radix sort, rows skipped behind what they
# hold) change no pixel: every shared-corpus map and a few Quake 3 ones, with and without them
bk_unit_test(render_exact render/test_exact.c)
set_tests_properties(render_exact PROPERTIES LABELS slow)
