# The extension is built by cffi (API mode) from bspkit/_build.py; everything else is in pyproject.toml.
from setuptools import setup

setup(cffi_modules=["bspkit/_build.py:ffibuilder"])
