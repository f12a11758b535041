# The compiled cffi module (API mode over include/bspkit/*.h): ffi and lib, untyped.
from typing import Any

ffi: Any
lib: Any
