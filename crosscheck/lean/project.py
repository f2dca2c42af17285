"""Read the Lean sources of ``Formal/``: modules, imports, theorems, forbidden constructs.

A *project* is a directory holding ``Formal.lean`` (optional root) and ``Formal/``.
Everything here is plain text processing; nothing runs Lean.

* :func:`load_project` reads every module, parses its imports and returns the
  modules in dependency order (an import cycle or a missing project module is a
  :class:`~crosscheck.errors.LeanProjectError`).
* :func:`scan_forbidden` finds proof escape hatches in the source (``sorry``,
  ``admit``, ``axiom`` declarations, ``native_decide``, ``unsafe``,
  ``implemented_by``, ``extern``, options that weaken checking) and ``Formal/`` lines
  longer than 100 characters.
* :func:`theorems` lists every ``theorem`` with its fully qualified name.
* :func:`monolith` concatenates all modules into one file for the axiom audit
  (imported theorems carry no proofs in this Lean build, so the audit must see
  the whole library in one elaboration).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import LeanProjectError

LIB = "Formal"

_IMPORT_RE = re.compile(r"^\s*(?:public\s+)?(?:meta\s+)?import\s+(.+?)\s*$")
_NAMESPACE_RE = re.compile(r"^\s*namespace\s+([^\s]+)")
_SECTION_RE = re.compile(
    r"^\s*(?:@\[[^\]]*\]\s*)?(?:public\s+|private\s+)?(?:noncomputable\s+)?"
    r"section(?:\s+([^\s]+))?\s*$")
_END_RE = re.compile(r"^\s*end(?:\s+([^\s]+))?\s*$")
_THEOREM_RE = re.compile(
    r"^\s*(?:@\[[^\]]*\]\s*)*(?:(private|protected)\s+)?(?:nonrec\s+)?(theorem|lemma)\s+([^\s:({\[]+)"
)

#: Longest allowed line of a ``Formal/`` source file, in Unicode characters.
MAX_LINE = 100

#: (regex, description) of source constructs that weaken or bypass the kernel.
FORBIDDEN = [
    (re.compile(r"\bsorry\b"), "`sorry`"),
    (re.compile(r"\badmit\b"), "`admit`"),
    (re.compile(r"\bnative_decide\b"), "`native_decide`"),
    (re.compile(r"\bimplemented_by\b"), "`implemented_by`"),
    (re.compile(r"\bextern\b"), "`extern`"),
    (re.compile(r"\bunsafe\b"), "`unsafe`"),
    (re.compile(r"^[ \t]*(?:@\[[^\]]*\][ \t]*)*(?:private[ \t]+|protected[ \t]+)?axiom\s",
                re.M), "an `axiom` declaration"),
    (re.compile(r"\bdebug\.skipKernelTC\b"), "option `debug.skipKernelTC`"),
    (re.compile(r"\bset_option\s+debug\."), "a `debug.*` option"),
    (re.compile(r"\bLean\.ofReduceBool\b|\bLean\.trustCompiler\b"), "a compiler-trust axiom"),
    (re.compile(r"\bdecide\s*\+\s*kernel\b|\bdecide\s*\(\s*config"), "a `decide` configuration"),
]


@dataclass
class Module:
    """One Lean source file of the project."""

    name: str               # e.g. "Formal.Data.Sum"
    path: Path              # absolute path
    rel: str                # path relative to the project root, e.g. "Formal/Data/Sum.lean"
    text: str
    imports: list[str] = field(default_factory=list)  # all imported module names


@dataclass
class Theorem:
    name: str   # fully qualified
    module: str
    rel: str
    line: int   # 1-based
    statement: str  # source text from the name to `:=` (whitespace-normalized)


def _strip_comments(text: str) -> str:
    """Blank out comments and string literals, keeping line structure (for scanning)."""
    out = []
    i, n = 0, len(text)
    depth = 0
    while i < n:
        c = text[i]
        if depth == 0 and text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/-", i):
            depth += 1
            out.append("  ")
            i += 2
        elif depth > 0 and text.startswith("-/", i):
            depth -= 1
            out.append("  ")
            i += 2
        elif depth > 0:
            out.append("\n" if c == "\n" else " ")
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            seg = text[i:j + 1]
            out.append("".join("\n" if ch == "\n" else " " for ch in seg))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _read(path: Path, root: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise LeanProjectError(f"{path.relative_to(root)}: not UTF-8 text ({exc.reason} at byte "
                               f"{exc.start})") from None
    except OSError as exc:
        raise LeanProjectError(f"{path}: cannot read: {exc.strerror}") from None


def _module_name(rel: Path) -> str:
    return ".".join(rel.with_suffix("").parts)


def load_project(root: Path) -> list[Module]:
    """All modules of the project at ``root``, in dependency (topological) order."""
    root = Path(root).absolute()
    if not (root / LIB).is_dir():
        raise LeanProjectError(f"{root}: no {LIB}/ directory (expected a project root with {LIB}/ "
                               f"and {LIB}.lean)")
    paths = sorted((root / LIB).rglob("*.lean"))
    if (root / f"{LIB}.lean").exists():
        paths.append(root / f"{LIB}.lean")
    mods: dict[str, Module] = {}
    for p in paths:
        rel = p.relative_to(root)
        text = _read(p, root)
        m = Module(_module_name(rel), p, rel.as_posix(), text)
        for line in _strip_comments(text).splitlines():
            mt = _IMPORT_RE.match(line)
            if mt:
                m.imports.extend(mt.group(1).split())
        mods[m.name] = m
    for m in mods.values():
        for imp in m.imports:
            if (imp == LIB or imp.startswith(LIB + ".")) and imp not in mods:
                raise LeanProjectError(f"{m.rel}: imports {imp}, but no file "
                                       f"{imp.replace('.', '/')}.lean exists")
    order: list[Module] = []
    state: dict[str, int] = {}

    def visit(name: str, stack: list[str]) -> None:
        st = state.get(name, 0)
        if st == 2:
            return
        if st == 1:
            cyc = stack[stack.index(name):] + [name]
            raise LeanProjectError("import cycle: " + " -> ".join(cyc))
        state[name] = 1
        for imp in mods[name].imports:
            if imp in mods:
                visit(imp, stack + [name])
        state[name] = 2
        order.append(mods[name])

    for name in sorted(mods):
        visit(name, [])
    return order


def project_deps(mod: Module, mods: dict[str, Module]) -> list[str]:
    return [i for i in mod.imports if i in mods]


def scan_forbidden(modules: list[Module]) -> list[str]:
    """Findings ``file:line: message`` for every forbidden construct (comments ignored)
    and for every line of a ``Formal/`` file longer than :data:`MAX_LINE` characters."""
    found = []
    for m in modules:
        code = _strip_comments(m.text)
        for rx, what in FORBIDDEN:
            for mt in rx.finditer(code):
                line = code.count("\n", 0, mt.start()) + 1
                found.append(f"{m.rel}:{line}: forbidden {what}")
        found.extend(scan_line_length(m))
    return sorted(found)


def scan_line_length(m: Module) -> list[str]:
    """Lines of a ``Formal/`` module longer than :data:`MAX_LINE` Unicode characters."""
    if not m.rel.startswith(LIB + "/"):
        return []
    return [f"{m.rel}:{i}: line of {len(s)} characters (limit {MAX_LINE})"
            for i, s in enumerate(m.text.splitlines(), start=1) if len(s) > MAX_LINE]


def theorems(modules: list[Module]) -> list[Theorem]:
    """Every ``theorem`` of the project with its fully qualified name (namespaces tracked)."""
    out: list[Theorem] = []
    for m in modules:
        code = _strip_comments(m.text)
        lines = code.splitlines()
        scopes: list[tuple[str, str]] = []  # (kind, name)
        for idx, line in enumerate(lines):
            if mt := _NAMESPACE_RE.match(line):
                for part in mt.group(1).split("."):
                    scopes.append(("namespace", part))
                continue
            if mt := _SECTION_RE.match(line):
                scopes.append(("section", mt.group(1) or ""))
                continue
            if mt := _END_RE.match(line):
                name = mt.group(1)
                if name:
                    for _ in name.split("."):
                        if scopes:
                            scopes.pop()
                elif scopes:
                    scopes.pop()
                continue
            if mt := _THEOREM_RE.match(line):
                kw, raw = mt.group(2), mt.group(3)
                if kw == "lemma":
                    raise LeanProjectError(f"{m.rel}:{idx + 1}: `lemma` is a mathlib keyword; "
                                           "use `theorem`")
                if mt.group(1) == "private":
                    raise LeanProjectError(
                        f"{m.rel}:{idx + 1}: private theorem {raw}: the audit cannot see private "
                        "theorems; "
                        "make it public (inside `@[expose] public section`)")
                if raw.startswith("_root_."):
                    full = raw[len("_root_."):]
                else:
                    ns = [n for k, n in scopes if k == "namespace"]
                    full = ".".join(ns + [raw])
                stmt_lines = []
                for j in range(idx, min(idx + 40, len(lines))):
                    stmt_lines.append(lines[j])
                    if ":=" in lines[j] or re.search(r"\bwhere\b|^\s*\|", lines[j]):
                        break
                stmt = " ".join(" ".join(stmt_lines).split())
                stmt = stmt.split(":=")[0].strip()
                out.append(Theorem(full, m.name, m.rel, idx + 1, stmt))
    names = {}
    for t in out:
        if t.name in names:
            raise LeanProjectError(f"{t.rel}:{t.line}: theorem {t.name} is also declared at "
                                   f"{names[t.name]}")
        names[t.name] = f"{t.rel}:{t.line}"
    return out


_AUDIT_HEADER = Path(__file__).with_name("audit_header.lean")


@dataclass
class Monolith:
    text: str
    #: (first monolith line, module) for mapping diagnostics back, 1-based, sorted
    segments: list[tuple[int, Module]]
    header_lines: int
    theorems: list[Theorem]

    def locate(self, line: int) -> str:
        """``file:line`` for a line of the monolith."""
        seg = None
        for start, mod in self.segments:
            if start <= line:
                seg = (start, mod)
        if seg is None:
            return f"<audit header>:{line}"
        start, mod = seg
        return f"{mod.rel}:{line - start + 1}"


def monolith(modules: list[Module], thms: list[Theorem]) -> Monolith:
    """One file holding every module (project imports removed, external imports hoisted),
    each wrapped in its own ``section`` so `open`/`variable` stay local, followed by one
    ``#plga_audit`` command per theorem."""
    internal = {m.name for m in modules}
    external: list[str] = []
    bodies: list[tuple[Module, list[str]]] = []
    for m in modules:
        body = []
        code_lines = _strip_comments(m.text).splitlines()
        for raw, code in zip(m.text.splitlines(), code_lines):
            mt = _IMPORT_RE.match(code)
            if mt:
                for imp in mt.group(1).split():
                    if imp not in internal and imp not in external:
                        external.append(imp)
                body.append("")  # keep line numbers
                continue
            if code.strip() == "module":
                body.append("")
                continue
            body.append(raw)
        # count scopes left open at the end of the file
        open_scopes = 0
        for code in code_lines:
            if _NAMESPACE_RE.match(code):
                open_scopes += len(_NAMESPACE_RE.match(code).group(1).split("."))
            elif _SECTION_RE.match(code):
                open_scopes += 1
            elif (mt := _END_RE.match(code)):
                open_scopes -= len(mt.group(1).split(".")) if mt.group(1) else 1
        body.extend(["end"] * max(open_scopes, 0))
        bodies.append((m, body))
    header = ["module", ""]
    header += [f"public import {imp}" for imp in external]
    header += _AUDIT_HEADER.read_text(encoding="utf-8").splitlines()
    lines = list(header)
    segments = []
    for m, body in bodies:
        lines.append(f"section -- {m.rel}")
        segments.append((len(lines) + 1, m))
        lines.extend(body)
        lines.append("end")
    lines.append("")
    for t in thms:
        lines.append(f"#plga_audit {_ident(t.name)}")
    return Monolith("\n".join(lines) + "\n", segments, len(header), thms)


def _ident(name: str) -> str:
    parts = []
    for p in name.split("."):
        parts.append(p if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_'!?]*", p) else f"«{p}»")
    return ".".join(parts)
