"""VPK archives (Source): ``bspkit.vpk.open("pak01_dir.vpk")`` gives an Archive
(``namelist()``, ``read(name)``); its data files NAME_NNN.vpk are read beside it."""
from __future__ import annotations

import os
from typing import Union

from ._archive import Archive
from ._core import FormatError, c_path
from ._native import lib


def open(path: Union[str, "os.PathLike[str]"]) -> Archive:  # noqa: A001 - the package's verb
    """Open a VPK directory (v1 / v2). FormatError when the file is not a VPK."""
    if lib.bk_archive_probe_file(c_path(path)) != lib.BK_ARCHIVE_VPK and not str(path).endswith(".vpk"):
        raise FormatError("%s: not a VPK directory" % os.fspath(path))
    return Archive._open_path(os.fspath(path))
