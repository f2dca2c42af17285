"""Generated mutants: operator-level mutations of pyref's numerical code, found with ``ast``.

Every function body of every module of ``pyref/`` and ``pyref/variants/`` (except the
validation/IO modules in :data:`SKIPPED_MODULES` and the functions in :data:`SKIPPED_FUNCTIONS`)
is walked in source order; each site of one of the :data:`OPERATORS` gives one mutant per
alternative. The mutants of the functions in :data:`TEST_SCORED` (random initialization,
checkpoint dispatch, the Hugging Face port's semantics: code no property can check) carry the
pytest node ids that score them (``GenMutant.tests``); the others are scored by the properties.
A mutant is a single text edit: the exact source segment of one AST node is replaced by
``ast.unparse`` of the mutated node, so the rest of the file stays byte-identical. At generation
time the mutated file must parse to exactly the AST with that node replaced (the edit is
parenthesized if needed, else dropped), and a mutant whose edit leaves the AST unchanged is
dropped.

Ids are stable under edits elsewhere in the file: ``module:qualname:operator:k`` where ``k``
counts the sites of that operator in that function (source order); line numbers are only
recorded. Input validation is not mutated (scored by the test suite instead): ``raise`` and
``assert`` statements, guards (an ``if`` whose body ends in ``raise``), validation calls
(``need_*``/``check_*``/``_check*``/``_require*`` whose result is discarded, and whole
functions of those names), blocks that can only raise (no return, no side effect, and every
name they bind is read only inside validation code), assignments read only by validation code,
``except`` handlers ending in ``raise``, f-strings and string constants.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from .scope import SKIPPED_FUNCTIONS, SKIPPED_MODULES, TEST_SCORED

#: operator -> what its mutant does (ids use these names)
OPERATORS = {
    "matmul-swap": "swap the operands of a matrix product (a @ b, np.matmul(a, b))",
    "transpose-lhs": "transpose the left operand of a matrix product (np.swapaxes(x, -1, -2))",
    "transpose-rhs": "transpose the right operand of a matrix product",
    "transpose-drop": "drop a transpose (x.T, np.swapaxes(x, ..), np.transpose(x, ..) -> x)",
    "drop-rhs": "drop the right term of a sum/difference (a ± b -> a; y ±= b -> pass)",
    "drop-lhs": "drop the left term of a sum (a + b -> b)",
    "arith": "replace an arithmetic operator (+ <-> -, * <-> /, also in y op= b)",
    "axis": "change an axis keyword (axis/axis1/axis2: -1 <-> -2, 0 <-> 1, k -> k -/+ 1)",
    "index": "change an integer index or slice bound in a subscript by one (k -> k + 1, "
             "-k -> -k - 1)",
    "offset": "change an integer offset of a sum/difference by one (e + c -> e + (c + 1))",
    "range-start": "start a range one later (range(a, b) -> range(a + 1, b))",
    "range-stop": "stop a range one earlier (range(n) -> range(n - 1))",
    "arg-swap": "swap two adjacent positional Name arguments of a call (not Backend names, "
                "not calls of input handling: functions imported from the skipped modules, "
                "get_backend, isinstance)",
}

_VALIDATION_PREFIXES = ("need_", "check_", "_check", "_require")
#: callees that handle input (besides the functions imported from the skipped modules)
_INPUT_CALLS = {"get_backend", "isinstance", "getattr"}


@dataclass(frozen=True)
class GenMutant:
    """One generated mutant. ``file`` is relative to ``pyref/``; ``lines`` are the source lines
    whose execution counts as executing the mutated code (the node's span and the first line of
    its statement); ``start``/``end`` are byte offsets of the replaced segment; ``tests``: the
    pytest node ids that score it (:data:`TEST_SCORED`), empty if the properties score it."""

    id: str
    module: str
    file: str
    function: str
    operator: str
    line: int
    col: int
    original: str
    mutated: str
    lines: tuple[int, ...]
    start: int
    end: int
    replacement: str
    tests: tuple[str, ...] = ()

    @property
    def scored_by(self) -> str:
        """``"tests"`` (:data:`TEST_SCORED`) or ``"properties"``."""
        return "tests" if self.tests else "properties"

    def apply(self, source: bytes) -> bytes:
        """The mutated file from the original bytes ``source``."""
        return source[:self.start] + self.replacement.encode("utf-8") + source[self.end:]


def pyref_dir() -> Path:
    """The directory of the ``pyref`` package (found without importing it)."""
    spec = importlib.util.find_spec("pyref")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError("pyref is not importable")
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def module_files(root: Path) -> list[str]:
    """Every module of pyref/ and pyref/variants/ (relative paths, sorted), skipped ones too."""
    files = sorted(p.name for p in root.glob("*.py"))
    files += sorted(f"variants/{p.name}" for p in (root / "variants").glob("*.py"))
    return files


def module_name(rel: str) -> str:
    """``variants/kla.py`` -> ``pyref.variants.kla``."""
    return "pyref." + rel[:-3].replace("/", ".")


def resolve_module(arg: str, root: Path) -> str:
    """A ``--module`` argument (``pyref/ops.py``, ``ops.py``, ``pyref.ops``) as a relative file."""
    names = {module_name(r): r for r in module_files(root)}
    rel = arg.removeprefix("pyref/") if arg.endswith(".py") else names.get(arg, "")
    if rel not in names.values():
        raise ValueError(f"--module {arg!r}: no such pyref module")
    if rel in SKIPPED_MODULES and not _has_test_scored(rel):
        raise ValueError(f"--module {arg!r}: skipped ({SKIPPED_MODULES[rel]})")
    return rel


def _has_test_scored(rel: str) -> bool:
    return any(f.split(":")[0] == module_name(rel) for f in TEST_SCORED)


def generate(root: Path | None = None, files: list[str] | None = None) -> list[GenMutant]:
    """Every generated mutant of the numerical modules (or of ``files``), in source order;
    of a module in :data:`SKIPPED_MODULES` only the functions in :data:`TEST_SCORED`."""
    root = pyref_dir() if root is None else Path(root)
    out = []
    for rel in (files if files is not None else module_files(root)):
        skipped = rel in SKIPPED_MODULES
        if (skipped and not _has_test_scored(rel)) or rel.endswith("__init__.py"):
            continue
        out += mutate_source((root / rel).read_bytes(), module_name(rel), rel,
                             only_test_scored=skipped)
    return out


def mutate_source(source: bytes, module: str, rel: str,
                  only_test_scored: bool = False) -> list[GenMutant]:
    """The mutants of one module's source (``only_test_scored``: only of the functions in
    :data:`TEST_SCORED` and the functions nested in them)."""
    tree = ast.parse(source)
    uses_np = any(isinstance(n, (ast.Import, ast.ImportFrom)) and
                  any(a.name == "numpy" and a.asname == "np" for a in n.names)
                  for n in tree.body)
    inputs = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom)
              and (n.module or "").split(".")[-1] + ".py" in SKIPPED_MODULES for a in n.names}
    gen = _Generator(source, tree, module, rel, uses_np, inputs | _INPUT_CALLS)
    gen.only_test_scored = only_test_scored
    gen.scope(tree.body, "")
    return gen.mutants


# ======================================================================== validation code
def _callee(call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")


def _is_validation_name(name: str) -> bool:
    return name.startswith(_VALIDATION_PREFIXES)


def _bound_names(stmt) -> set[str] | None:
    """Plain names a statement binds, or None if it has effects beyond binding names (a
    return/yield, a call statement, a store into an attribute or subscript)."""
    names = set()
    for n in ast.walk(stmt):
        if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal,
                          ast.Delete)):
            return None
        if isinstance(n, ast.Expr) and not isinstance(n.value, ast.Constant):
            if not (isinstance(n.value, ast.Call) and _is_validation_name(_callee(n.value))):
                return None
        if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, ast.Store):
            return None
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
    return names


def _is_guard(stmt) -> bool:
    return isinstance(stmt, ast.If) and isinstance(stmt.body[-1], ast.Raise)


def validation_statements(fn) -> set[int]:
    """ids of the statements of function ``fn`` (at any depth) that are input validation."""
    stmts = [s for s in ast.walk(fn) if isinstance(s, ast.stmt) and s is not fn]
    val: set[int] = set()
    for s in stmts:
        if isinstance(s, (ast.Raise, ast.Assert)) or (
                isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                and _is_validation_name(_callee(s.value))):
            val.add(id(s))
    changed = True
    while changed:  # blocks and assignments feeding only validation code, to a fixed point
        changed = False
        outside, inside = _names_read(fn, val)
        for s in stmts:
            if id(s) in val or isinstance(s, (ast.FunctionDef, ast.ClassDef)):
                continue
            bound = _bound_names(s)
            if bound is None or (bound & outside):
                continue
            if (isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and bound & inside) \
                    or any(isinstance(n, ast.Raise) for n in ast.walk(s)):
                val.add(id(s))
                changed = True
    return val


def _names_read(fn, val: set[int]) -> tuple[set[str], set[str]]:
    """Names read (Load) in ``fn`` outside and inside the validation statements ``val``
    (a guard's test and body count as inside, its ``else`` not)."""
    read: tuple[set[str], set[str]] = (set(), set())

    def visit(node, skip):
        skip = skip or id(node) in val
        if _is_guard(node):
            for c in [node.test] + node.body:
                visit(c, True)
            for c in node.orelse:
                visit(c, skip)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read[skip].add(node.id)
        for c in ast.iter_child_nodes(node):
            visit(c, skip)
    for s in fn.body:
        visit(s, False)
    return read


# ============================================================================ the walker
def _int_const(node):
    """The int value of ``k`` or ``-k`` (a literal, not bool), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int):
        return -node.operand.value
    return None


def _const(v: int):
    return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))


def _swapaxes(x):
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "swapaxes", ast.Load()),
                    [x, _const(-1), _const(-2)], [])


def _is_matmul_call(n) -> bool:
    return (isinstance(n, ast.Call) and len(n.args) == 2 and not n.keywords
            and _callee(n) == "matmul" and not any(isinstance(a, ast.Starred) for a in n.args))


def _is_sequence(n) -> bool:
    """A list/tuple display or a string (a literal, an f-string, ``str(..)``, or a sum with one),
    whose ``+`` is a concatenation."""
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
        return _is_sequence(n.left) or _is_sequence(n.right)
    return isinstance(n, (ast.List, ast.Tuple, ast.JoinedStr, ast.ListComp)) or (
        isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes))) or (
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "str")


def _backend_names(fn) -> set[str]:
    """Names holding a Backend in ``fn``: parameters annotated ``Backend`` and names assigned
    from ``get_backend(..)``/``Backend(..)`` (an array swapped with a Backend only crashes)."""
    names = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
             if a.annotation is not None and ast.unparse(a.annotation) == "Backend"}
    for n in ast.walk(fn):
        if (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                and _callee(n.value) in ("get_backend", "Backend")):
            names |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    return names


class _Generator:
    def __init__(self, source: bytes, tree, module: str, rel: str, uses_np: bool,
                 input_calls: set[str]):
        self.source, self.tree, self.module, self.rel, self.uses_np = (
            source, tree, module, rel, uses_np)
        self.input_calls = input_calls
        self.seen: set[tuple[int, int, str]] = set()
        self.line_starts = [0]
        for line in source.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.top = {id(c): i for i, t in enumerate(tree.body) for c in ast.walk(t)}
        self.dumps: dict[int, str] = {}
        self.mutants: list[GenMutant] = []
        self.only_test_scored, self.tests = False, ()
        self.parents = {id(c): (p, f) for p in ast.walk(tree)
                        for f, v in ast.iter_fields(p)
                        for c in (v if isinstance(v, list) else [v]) if isinstance(c, ast.AST)}

    # ---------------------------------------------------------------- scopes
    def scope(self, body, prefix: str) -> None:
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(s, f"{prefix}{s.name}")
            elif isinstance(s, ast.ClassDef):
                self.scope(s.body, f"{prefix}{s.name}.")

    def function(self, fn, qual: str, tests: tuple[str, ...] = ()) -> None:
        fid = f"{self.module}:{qual}"
        if _is_validation_name(fn.name) or fid in SKIPPED_FUNCTIONS:
            return
        tests = TEST_SCORED[fid].tests if fid in TEST_SCORED else tests  # nested: the parent's
        if self.only_test_scored and not tests:
            return
        self.qual, self.counts, self.tests = qual, {}, tests
        self.backend_args = _backend_names(fn)
        self.skip = validation_statements(fn)
        nested = []
        for s in fn.body:
            self.stmt(s, nested)
        for s, q in nested:
            self.function(s, f"{qual}.{q}", tests)

    def stmt(self, s, nested) -> None:
        if id(s) in self.skip:
            return
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested.append((s, s.name))
            return
        if isinstance(s, ast.ClassDef):
            nested += [(c, f"{s.name}.{c.name}") for c in s.body
                       if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))]
            return
        if _is_guard(s):
            for c in s.orelse:  # the guard's test and body are validation, its else is not
                self.stmt(c, nested)
            return
        self.statement_site(s)
        for field, value in ast.iter_fields(s):
            for c in (value if isinstance(value, list) else [value]):
                if isinstance(c, ast.stmt):
                    self.stmt(c, nested)
                elif isinstance(c, ast.ExceptHandler):
                    if not isinstance(c.body[-1], ast.Raise):
                        for cc in c.body:
                            self.stmt(cc, nested)
                elif isinstance(c, ast.AST) and field not in ("target", "targets"):
                    self.expr(c, s)
                elif isinstance(c, ast.AST):  # a store target: the indices in it are mutated
                    for t in ast.walk(c):
                        if isinstance(t, ast.Subscript) and isinstance(t.ctx, ast.Store):
                            self.expr(t, s)

    def expr(self, node, stmt) -> None:
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant)):
            return
        self.sites(node, stmt)
        for c in ast.iter_child_nodes(node):
            self.expr(c, stmt)

    # ---------------------------------------------------------------- operators
    def statement_site(self, s) -> None:
        if isinstance(s, ast.AugAssign) and isinstance(s.op, (ast.Add, ast.Sub)):
            self.add("drop-rhs", s, s, ast.Pass(), s)
        swap = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
        if isinstance(s, ast.AugAssign) and type(s.op) in swap:
            self.add("arith", s, s, ast.AugAssign(s.target, swap[type(s.op)](), s.value), s)

    def sites(self, n, stmt) -> None:
        if (isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult)) or _is_matmul_call(n):
            self.matmul(n, stmt)
        if isinstance(n, ast.BinOp):
            self.binop(n, stmt)
        if isinstance(n, ast.Attribute) and n.attr == "T" and isinstance(n.ctx, ast.Load):
            self.add("transpose-drop", n, n, n.value, stmt)
        if isinstance(n, ast.Call):
            self.call(n, stmt)
        if isinstance(n, ast.Subscript):
            self.subscript(n, stmt)

    def matmul(self, n, stmt) -> None:
        a, b = (n.left, n.right) if isinstance(n, ast.BinOp) else n.args

        def rebuilt(x, y):
            if isinstance(n, ast.BinOp):
                return ast.BinOp(x, ast.MatMult(), y)
            return ast.Call(n.func, [x, y], [])
        self.add("matmul-swap", n, n, rebuilt(b, a), stmt)
        if self.uses_np:
            self.add("transpose-lhs", n, n, rebuilt(_swapaxes(a), b), stmt)
            self.add("transpose-rhs", n, n, rebuilt(a, _swapaxes(b)), stmt)

    def binop(self, n, stmt) -> None:
        swap = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
        if type(n.op) not in swap or _is_sequence(n.left) or _is_sequence(n.right):
            return
        if isinstance(n.op, (ast.Add, ast.Sub)):
            self.add("drop-rhs", n, n, n.left, stmt)
            if isinstance(n.op, ast.Add):
                self.add("drop-lhs", n, n, n.right, stmt)
        self.add("arith", n, n, ast.BinOp(n.left, swap[type(n.op)](), n.right), stmt)
        if isinstance(n.op, (ast.Add, ast.Sub)):
            for side in (n.left, n.right):
                if isinstance(side, ast.Constant) and type(side.value) is int:
                    self.add("offset", n, side, ast.Constant(side.value + 1), stmt)

    def call(self, n, stmt) -> None:
        name = _callee(n)
        if name in ("swapaxes", "transpose") and n.args and isinstance(n.func, ast.Attribute) \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == "np":
            self.add("transpose-drop", n, n, n.args[0], stmt)
        for kw in n.keywords:
            k = _int_const(kw.value)
            if kw.arg in ("axis", "axis1", "axis2") and k is not None:
                alt = {-1: -2, -2: -1, 0: 1}.get(k, k + 1 if k < 0 else k - 1)
                self.add("axis", n, kw.value, _const(alt), stmt)
        if name == "range" and isinstance(n.func, ast.Name) and 1 <= len(n.args) <= 3:
            if len(n.args) >= 2:
                self.add("range-start", n, n.args[0], _plus(n.args[0], 1), stmt)
            stop = n.args[0] if len(n.args) == 1 else n.args[1]
            self.add("range-stop", n, stop, _plus(stop, -1), stmt)
        if name in self.input_calls or _is_matmul_call(n):
            return  # input handling; a matrix product's swap is matmul-swap
        args = n.args
        for i in range(len(args) - 1):
            a, c = args[i], args[i + 1]
            if (isinstance(a, ast.Name) and isinstance(c, ast.Name) and a.id != c.id
                    and not {a.id, c.id} & self.backend_args):
                swapped = list(args)
                swapped[i], swapped[i + 1] = c, a
                self.add("arg-swap", n, n, ast.Call(n.func, swapped, n.keywords), stmt)

    def subscript(self, n, stmt) -> None:
        parts = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
        for p in parts:
            for c in ([p.lower, p.upper] if isinstance(p, ast.Slice) else [p]):
                k = _int_const(c) if c is not None else None
                if k is not None:
                    self.add("index", n, c, _const(k + 1 if k >= 0 else k - 1), stmt)

    # ---------------------------------------------------------------- recording
    def add(self, op: str, site, target, new, stmt) -> None:
        """Record the mutant replacing ``target`` (inside ``site``) by ``new``."""
        k = self.counts.get(op, 0)
        self.counts[op] = k + 1
        original = ast.unparse(site)
        top = self.tree.body[self.top[id(target)]]
        before = self.dumps.setdefault(id(top), ast.dump(top))
        with _swapped(self.parents, target, new):
            mutated = ast.unparse(site) if site is not target else ast.unparse(new)
            expected = ast.dump(top)
        start = self.line_starts[target.lineno - 1] + target.col_offset
        end = self.line_starts[target.end_lineno - 1] + target.end_col_offset
        text = ast.unparse(new)
        if expected == before or (start, end, text) in self.seen:
            return  # no change, or the same edit as an earlier mutant
        self.seen.add((start, end, text))
        # the mutated top-level statement (it starts in column 0, so it parses on its own, and
        # the file parses iff it does) must parse to exactly the intended AST
        first = top.decorator_list[0].lineno if getattr(top, "decorator_list", None) else \
            top.lineno
        lo, hi = self.line_starts[first - 1], self.line_starts[top.end_lineno]
        for text in (text, f"({text})"):
            data = (self.source[lo:start] + text.encode("utf-8") + self.source[end:hi])
            try:
                tree = ast.parse(data)
            except SyntaxError:
                continue
            if len(tree.body) == 1 and ast.dump(tree.body[0]) == expected:
                break
        else:
            return
        lines = set(range(target.lineno, target.end_lineno + 1)) | {stmt.lineno}
        self.mutants.append(GenMutant(
            id=f"{self.module}:{self.qual}:{op}:{k}", module=self.module, file=self.rel,
            function=self.qual, operator=op, line=target.lineno, col=target.col_offset,
            original=original, mutated=mutated, lines=tuple(sorted(lines)), start=start, end=end,
            replacement=text, tests=self.tests))


def _plus(node, d: int):
    """``node + d`` (folded for an int literal)."""
    k = _int_const(node)
    if k is not None:
        return _const(k + d)
    return ast.BinOp(copy.deepcopy(node), ast.Add() if d > 0 else ast.Sub(), ast.Constant(abs(d)))


class _swapped:
    """Context manager: ``target`` replaced by ``new`` in its parent (restored on exit)."""

    def __init__(self, parents, target, new):
        self.parent, self.field = parents[id(target)]
        self.target, self.new = target, new

    def _set(self, old, new):
        value = getattr(self.parent, self.field)
        if isinstance(value, list):
            setattr(self.parent, self.field, [new if v is old else v for v in value])
        else:
            setattr(self.parent, self.field, new)

    def __enter__(self):
        self._set(self.target, self.new)

    def __exit__(self, *exc):
        self._set(self.new, self.target)
