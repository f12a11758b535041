# The compiled cffi module (API mode over include/bspkit/*.h): ffi and lib, untyped. What a file's
# family holds is read through its generic calls only (lib.bk_file_array_count / bk_file_array /
# bk_file_array_index, lib.bk_lump_bytes) and lib.BK_* names, never a family's struct members.
from typing import Any

ffi: Any
lib: Any
