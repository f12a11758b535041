# The extension is built by cffi (API mode) from bspkit/_build.py; everything else is in pyproject.toml.
import json
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext


class build_ext_keyed(build_ext):
    """build_ext that relinks when the library it links is another one than last time.

    pip builds ./python in place (python/build/), and setuptools relinks only when a source or a
    depends file is newer than the extension: a second install with another BSPKIT_BUILD_DIR (a
    sanitizer build's older libbspkit.a) would silently keep the first library. The extension is
    keyed on the library's identity (its path, device, inode, size and modification time) and the
    compile and link flags, recorded beside the build; another key forces the rebuild."""

    @staticmethod
    def _key(ext) -> str:
        libs = []
        for o in ext.extra_objects or []:
            st = os.stat(o)
            libs.append([os.path.realpath(o), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns])
        return json.dumps({"objects": libs, "compile": ext.extra_compile_args, "link": ext.extra_link_args,
                           "libraries": ext.libraries}, sort_keys=True)

    def build_extension(self, ext):
        stamp = Path(self.build_temp) / (ext.name + ".library-key")
        key = self._key(ext)
        target = Path(self.get_ext_fullpath(ext.name))
        old_force = self.force
        if not target.exists() or not stamp.exists() or stamp.read_text() != key:
            self.force = True
        try:
            super().build_extension(ext)
        finally:
            self.force = old_force
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key)


setup(cffi_modules=["bspkit/_build.py:ffibuilder"], cmdclass={"build_ext": build_ext_keyed})
