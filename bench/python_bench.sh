#!/usr/bin/env bash
# The Python package against the CLI (traces) and srctools (Source open + entities + props), ratios
# from one run. Needs `make python` (build/pyenv) and, for srctools, a copy of its repository
# outside the project: SRCTOOLS=/path/to/srctools (default /tmp/srctools; made from the bare git
# mirror /work/.mirror/TeamSpen210+srctools/repo when that exists). srctools needs attrs,
# typing_extensions >= 4.12 and useful_types: Debian 12 has python3-attr and typing_extensions 4.4;
# the few names it lacks come from a shim written to $SRCTOOLS-shim (typing only, no behaviour).
# usage: bench/python_bench.sh [CLI] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLI=$(realpath "${1:-$ROOT/build/bspkit}")
PY=$ROOT/build/pyenv/bin/python
[[ -x $PY ]] || { echo "run 'make python' first" >&2; exit 1; }
SRCTOOLS=${SRCTOOLS:-/tmp/srctools}
MIRROR=/work/.mirror/TeamSpen210+srctools/repo
if [[ ! -d $SRCTOOLS/src/srctools && -d $MIRROR ]]; then
    mkdir -p "$SRCTOOLS" && git --git-dir="$MIRROR" archive HEAD | tar -x -C "$SRCTOOLS"
fi
SHIM=$SRCTOOLS-shim
mkdir -p "$SHIM"
cat >"$SHIM/typing_extensions.py" <<'PYEOF'
# Debian 12's typing_extensions (4.4) plus the names srctools takes from later versions
import importlib.util as _u, contextlib as _cl, collections.abc as _abc
_s = _u.spec_from_file_location("_te_real", "/usr/lib/python3/dist-packages/typing_extensions.py")
_m = _u.module_from_spec(_s); _s.loader.exec_module(_m)
globals().update({k: v for k, v in vars(_m).items() if not k.startswith("__")})
if not hasattr(_m, "deprecated"):
    def deprecated(msg, *, category=DeprecationWarning, stacklevel=1):
        return lambda f: f
if not hasattr(_m, "Buffer"):
    Buffer = _abc.ByteString
def TypeVar(name, *c, default=None, **kw):
    return _m.TypeVar(name, *c, **kw)
ContextManager = _cl.AbstractContextManager
AsyncContextManager = _cl.AbstractAsyncContextManager
Generator = _abc.Generator
PYEOF
cat >"$SHIM/useful_types.py" <<'PYEOF'
from typing import Protocol, TypeVar
_K = TypeVar("_K"); _V = TypeVar("_V", covariant=True)
class SupportsKeysAndGetItem(Protocol[_K, _V]):
    def keys(self): ...
    def __getitem__(self, key): ...
PYEOF
shift || true
PYTHONPATH=$SHIM:$SRCTOOLS/src "$PY" "$ROOT/bench/python_bench.py" "$CLI" "$ROOT/../shared" \
    "${BSPKIT_CORPUS:-$HOME/.cache/bspkit-corpus}" "$@"
