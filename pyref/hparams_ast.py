"""The authors' hyperparameter ``.py`` file, read by a small AST evaluator that never executes
anything (used by :mod:`pyref.hparams`).

The authors' hyperparameter file (README of PLDR-LLM-with-KVG-cache) defines a dict ``hpdict``
whose entries are Python expressions such as ``int(num_heads*dk)``,
``int(np.floor(num_heads*dk*4*2/3))``, ``F.silu`` and ``inp_obj.tokenizer.vocab_size``.
:func:`read_hparams_py` evaluates such a file with :class:`_Evaluator`, which understands only

* module-level assignments ``name = expr`` (also ``a = b = expr``, ``x += expr``,
  ``d["key"] = expr`` on a dict assigned earlier), a docstring, ``pass``;
* ``import`` / ``from … import`` lines: never executed, recorded, and used only to know what
  ``np``, ``F``, … stand for (``np``, ``numpy``, ``math``, ``F``, ``nn``, ``torch`` are known
  without an import, as the README's example uses ``np`` without importing it);
* literals (int, float, str, bool, None), tuples, lists, dicts, f-strings of names/literals;
* ``+ - * / // % **`` on numbers (``+`` also on strings), unary ``-``/``+``;
* calls of ``int``, ``float``, ``round``, ``abs``, ``min``, ``max``, ``dict(k=v, …)``,
  ``np.floor``/``numpy.floor``/``math.floor``, ``np.ceil``/``math.ceil``, ``np.sqrt``/
  ``math.sqrt`` (``np.*`` give floats, ``math.floor``/``ceil`` ints, as numpy/math do);
  the constants ``math.pi``, ``math.e``, ``np.pi``, ``np.e``;
* attribute chains under ``torch``/``F``/``nn`` (anything imported from ``torch``) and under
  ``inp_obj``/``inp_obj_src`` (the authors' data-prep object), plus zero-argument calls on the
  latter (``inp_obj_src.tokenizer.get_vocab_size()``): these become :class:`Symbol` values;
  arithmetic on a Symbol is an error.

Everything else (function/class definitions, lambdas, comprehensions, subscripts, other
attributes, other calls, comparisons, conditionals, loops, …) is a :class:`HParamsError` (a
``ValueError``) naming the file, the line and the construct. Bounds, so that no file can make
the reader hang or exhaust memory: at most 1 MiB of source and 100,000 AST nodes, expressions
nested at most 100 deep, every integer within ±10**18, every float finite, exponents of ``**``
at most 64 in absolute value (``9**9**9`` is refused at once), strings at most 100,000 chars.
"""
from __future__ import annotations

import ast
import math
import os
from dataclasses import dataclass, field

MAX_SOURCE_BYTES = 1 << 20
MAX_NODES = 100_000
MAX_DEPTH = 100
MAX_INT = 10**18
MAX_EXPONENT = 64
MAX_STR = 100_000

SILU = "torch.nn.functional.silu"


class HParamsError(ValueError):
    """A hyperparameter file the reader refuses or cannot read; names the file and line."""


@dataclass(frozen=True)
class Symbol:
    """A name that only has a value when the authors' code runs (``F.silu``,
    ``inp_obj.tokenizer.vocab_size``): kept as its dotted ``name`` as written; ``target`` is
    the name with import aliases resolved (``torch.nn.functional.silu``)."""

    name: str
    target: str = field(default="", compare=False)

    def __str__(self):
        return self.name


@dataclass
class HParamsFile:
    """A read hyperparameter file: its ``hpdict``, every name it assigns, its import lines."""

    path: str
    hpdict: dict
    names: dict
    imports: list


# ================================================================ the AST evaluator
_DEFAULT_ALIASES = {"np": "numpy", "numpy": "numpy", "math": "math", "torch": "torch",
                    "F": "torch.nn.functional", "nn": "torch.nn"}
_RUNTIME_ROOTS = ("inp_obj", "inp_obj_src")
_CONSTANTS = {"math.pi": math.pi, "math.e": math.e, "numpy.pi": math.pi, "numpy.e": math.e}
_NUM_FUNCS = {"math.floor": math.floor, "math.ceil": math.ceil, "math.sqrt": math.sqrt,
              "numpy.floor": lambda x: float(math.floor(x)),
              "numpy.ceil": lambda x: float(math.ceil(x)), "numpy.sqrt": math.sqrt,
              "abs": abs}
_BUILTINS = ("int", "float", "round", "abs", "min", "max", "dict")
_ALLOWED_CALLS = ("int, float, round, abs, min, max, dict(k=v), np/math .floor/.ceil/.sqrt, "
                  "inp_obj.…()")
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**"}
_CONSTRUCTS = {"Lambda": "a lambda", "ListComp": "a list comprehension",
               "SetComp": "a set comprehension", "DictComp": "a dict comprehension",
               "GeneratorExp": "a generator expression", "Subscript": "a subscript (x[…])",
               "FunctionDef": "a function definition", "AsyncFunctionDef": "a function definition",
               "ClassDef": "a class definition", "Compare": "a comparison",
               "BoolOp": "a boolean operator (and/or)", "IfExp": "a conditional expression",
               "NamedExpr": "an assignment expression (:=)", "Starred": "a starred expression",
               "Set": "a set", "Await": "await", "Yield": "yield", "YieldFrom": "yield",
               "If": "an if statement", "For": "a for loop", "While": "a while loop",
               "With": "a with statement", "Try": "a try statement", "Delete": "del",
               "Global": "global", "Nonlocal": "nonlocal", "Raise": "raise",
               "Assert": "assert", "Return": "return", "Match": "a match statement",
               "Call": "a call", "Attribute": "an attribute access"}


def _describe(node) -> str:
    return _CONSTRUCTS.get(type(node).__name__, f"a {type(node).__name__} node")


def _snippet(node) -> str:
    s = ast.unparse(node)
    return s if len(s) <= 60 else s[:57] + "..."


def short_repr(v, limit: int = 80) -> str:
    """A bounded description of an evaluated value (never the repr of a large container)."""
    if isinstance(v, (list, tuple, dict)):
        return f"a {type(v).__name__} of {len(v)} item(s)"
    if isinstance(v, Symbol):
        return v.name
    r = repr(v[:limit + 1]) if isinstance(v, str) else repr(v)
    return r if len(r) <= limit else r[:limit - 3] + "..."


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class _Evaluator:
    """Evaluates the module body of a hyperparameter file, statement by statement."""

    def __init__(self, path: str):
        self.path = path
        self.env: dict = {}
        self.aliases = dict(_DEFAULT_ALIASES)
        self.imports: list = []

    def fail(self, node, msg):
        line = getattr(node, "lineno", "?")
        raise HParamsError(f"hyperparameter file {self.path}, line {line}: {msg}")

    def refuse(self, node, what=None):
        self.fail(node, f"{what or _describe(node)} is not allowed (the reader evaluates only "
                  "assignments of literals, arithmetic, names assigned earlier and the calls "
                  f"{_ALLOWED_CALLS}; it never executes the file)")

    # ------------------------------------------------------------------ statements
    def run(self, tree: ast.Module):
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.record_import(stmt)
            elif isinstance(stmt, ast.Assign):
                value = self.eval(stmt.value)
                for t in stmt.targets:
                    self.assign(t, value, stmt)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self.assign(stmt.target, self.eval(stmt.value), stmt)
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                old = self.lookup(stmt.target)
                self.assign(stmt.target, self.binop(stmt, stmt.op, old, self.eval(stmt.value)),
                            stmt)
            elif isinstance(stmt, ast.Pass):
                pass
            elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                  and isinstance(stmt.value.value, str)):
                pass   # a docstring or a bare string
            elif isinstance(stmt, ast.Expr):
                self.refuse(stmt, f"an expression statement ({_snippet(stmt.value)})")
            else:
                self.refuse(stmt)

    def record_import(self, stmt):
        self.imports.append(ast.unparse(stmt))
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                bound = a.asname or a.name.split(".")[0]
                self.bind_alias(bound, a.name if a.asname else bound)
        else:
            mod = "." * stmt.level + (stmt.module or "")
            for a in stmt.names:
                if a.name != "*":
                    self.bind_alias(a.asname or a.name, f"{mod}.{a.name}")

    def bind_alias(self, name, target):
        self.env.pop(name, None)
        self.aliases[name] = target

    def assign(self, target, value, stmt):
        if isinstance(target, ast.Name):
            self.aliases.pop(target.id, None)
            self.env[target.id] = value
        elif isinstance(target, ast.Tuple) and isinstance(value, (tuple, list)):
            if len(target.elts) != len(value):
                self.fail(stmt, f"cannot unpack {len(value)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.assign(t, v, stmt)
        elif (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
              and isinstance(self.env.get(target.value.id), dict)
              and isinstance(target.slice, ast.Constant)
              and isinstance(target.slice.value, (str, int))):
            self.env[target.value.id][target.slice.value] = value
        else:
            self.refuse(stmt, f"the assignment target {_snippet(target)}")

    # ----------------------------------------------------------------- expressions
    def eval(self, node, depth=0):
        if depth > MAX_DEPTH:
            self.fail(node, f"expression nested more than {MAX_DEPTH} levels deep")
        d = depth + 1
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.lookup(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            vals = [self.eval(e, d) for e in node.elts]
            return tuple(vals) if isinstance(node, ast.Tuple) else vals
        if isinstance(node, ast.Dict):
            return self.dict_display(node, d)
        if isinstance(node, ast.BinOp):
            return self.binop(node, node.op, self.eval(node.left, d), self.eval(node.right, d))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.eval(node.operand, d)
            if not _is_num(v):
                self.fail(node, f"unary {'-' if isinstance(node.op, ast.USub) else '+'} on "
                          f"{self.kind(v)}")
            return -v if isinstance(node.op, ast.USub) else +v
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Call):
            return self.call(node, d)
        if isinstance(node, ast.JoinedStr):
            return self.fstring(node)
        self.refuse(node)

    def constant(self, node):
        v = node.value
        if v is None or isinstance(v, (bool, str)):
            return v
        if _is_num(v):
            return self.check_num(node, v)
        self.refuse(node, f"the literal {_snippet(node)}")

    def check_num(self, node, v):
        if isinstance(v, int) and abs(v) > MAX_INT:
            self.fail(node, f"the number {_snippet(node)} exceeds the reader's bound "
                      f"|x| <= 10**18")
        if isinstance(v, float) and not math.isfinite(v):
            self.fail(node, f"{_snippet(node)} is not a finite number")
        return v

    def kind(self, v) -> str:
        if isinstance(v, Symbol):
            return (f"the symbol {v.name} (a value known only when the authors' code runs; "
                    "arithmetic on it is not possible here)")
        return f"a {type(v).__name__} ({short_repr(v)})"

    def lookup(self, node):
        name = node.id
        if name in self.env:
            return self.env[name]
        if name in self.aliases:
            self.fail(node, f"the module {name} ({self.aliases[name]}) used as a value")
        self.fail(node, f"name {name!r} is not assigned before this line")

    def dict_display(self, node, d):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                self.refuse(node, "dict unpacking (**)")
            key = self.eval(k, d)
            if not isinstance(key, (str, int, float, bool, type(None), tuple)):
                self.fail(k, f"dict key {_snippet(k)} is {self.kind(key)}, not a literal")
            out[key] = self.eval(v, d)
        return out

    def binop(self, node, op, a, b):
        sym = _BINOPS.get(type(op))
        if sym is None:
            self.refuse(node, f"the operator {type(op).__name__}")
        if sym == "+" and isinstance(a, str) and isinstance(b, str):
            if len(a) + len(b) > MAX_STR:
                self.fail(node, f"string longer than {MAX_STR} characters")
            return a + b
        for v in (a, b):
            if not _is_num(v):
                self.fail(node, f"'{sym}' on {self.kind(v)}")
        if sym == "**" and abs(b) > MAX_EXPONENT:
            self.fail(node, f"exponent {b!r} in {_snippet(node)} exceeds the reader's bound "
                      f"|exponent| <= {MAX_EXPONENT}")
        try:
            r = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
                 "//": lambda: a // b, "%": lambda: a % b, "**": lambda: a ** b}[sym]()
        except ZeroDivisionError:
            self.fail(node, f"division by zero in {_snippet(node)}")
        except OverflowError:
            self.fail(node, f"{_snippet(node)} overflows")
        if not _is_num(r):
            self.fail(node, f"{_snippet(node)} is not a real number ({r!r})")
        return self.check_num(node, r)

    def dotted(self, node):
        """(written name, alias-resolved name, root kind) of a Name/Attribute chain, else None.
        root kind: "alias", "runtime" or "value" (a name assigned in the file)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        rest = ".".join(reversed(parts))
        written = node.id + ("." + rest if rest else "")
        if node.id in self.env:
            return written, written, "value"
        if node.id in self.aliases:
            return written, self.aliases[node.id] + ("." + rest if rest else ""), "alias"
        if node.id in _RUNTIME_ROOTS:
            return written, written, "runtime"
        return written, written, "unknown"

    def attribute(self, node):
        info = self.dotted(node)
        if info is None:
            self.refuse(node, f"attribute access on a computed value ({_snippet(node)})")
        written, target, root = info
        if root == "runtime" or (root == "alias" and target.split(".")[0] == "torch"):
            return Symbol(written, target)
        if root == "alias" and target in _CONSTANTS:
            return _CONSTANTS[target]
        if root == "unknown":
            self.fail(node, f"name {written.split('.')[0]!r} is not assigned before this line "
                      f"(in {written})")
        self.refuse(node, f"the attribute access {written} (only torch/F/nn names, "
                    "inp_obj.… and math/np pi, e are known)")

    def call(self, node, d):
        info = self.dotted(node.func)
        if info is None:
            self.refuse(node, f"a call of a computed function ({_snippet(node)})")
        written, target, root = info
        if root == "runtime" and not node.args and not node.keywords:
            return Symbol(written + "()", target + "()")
        if root == "value":
            self.refuse(node, f"a call of {written}, a value assigned in the file")
        if root == "unknown" and written in _BUILTINS:
            target = written
        if target not in _BUILTINS and target not in _NUM_FUNCS:
            also = f" ({target})" if target != written else ""
            self.refuse(node, f"a call to {written}{also}")
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.refuse(node, "a starred argument (*args)")
        if target == "dict":
            if node.args or any(k.arg is None for k in node.keywords):
                self.refuse(node, "dict() with positional or ** arguments")
            return {k.arg: self.eval(k.value, d) for k in node.keywords}
        if node.keywords:
            self.refuse(node, f"keyword arguments to {written}")
        args = [self.eval(a, d) for a in node.args]
        return self.apply(node, written, target, args)

    def apply(self, node, written, target, args):
        if target in ("min", "max") and len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = list(args[0])
        nargs = {"round": (1, 2), "min": (1, 10**6), "max": (1, 10**6)}.get(target, (1, 1))
        if not nargs[0] <= len(args) <= nargs[1]:
            self.fail(node, f"{written}() takes {nargs[0]}"
                      f"{'' if nargs[0] == nargs[1] else '+'} argument(s), got {len(args)}")
        for v in args:
            if not _is_num(v):
                self.fail(node, f"{written}() of {self.kind(v)}")
        if target == "round" and len(args) == 2 and (not isinstance(args[1], int)
                                                     or abs(args[1]) > MAX_EXPONENT):
            self.fail(node, f"round(): ndigits must be an int with |ndigits| <= {MAX_EXPONENT}")
        try:
            f = _NUM_FUNCS.get(target) or {"int": int, "float": float, "round": round,
                                           "min": min, "max": max}[target]
            r = f(*args)
        except (ValueError, OverflowError) as exc:
            self.fail(node, f"{_snippet(node)}: {exc}")
        return self.check_num(node, r)

    def fstring(self, node):
        out, n = [], 0
        for part in node.values:
            if isinstance(part, ast.Constant):
                v = part.value
            elif part.format_spec is not None or part.conversion not in (-1, 115):
                self.refuse(node, "an f-string with a format spec or conversion")
            elif not isinstance(part.value, (ast.Name, ast.Constant)):
                self.refuse(node, f"an f-string with {_describe(part.value)} inside "
                            f"({_snippet(part.value)})")
            else:
                v = self.eval(part.value)
            if not (v is None or isinstance(v, (str, int, float, Symbol))):
                self.fail(node, f"an f-string of {self.kind(v)} (only strings, numbers, "
                          "None and symbols)")
            out.append(str(v))
            n += len(out[-1])
            if n > MAX_STR:
                self.fail(node, f"string longer than {MAX_STR} characters")
        return "".join(out)


def _parse(path: str) -> ast.Module:
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise HParamsError(f"hyperparameter file {path}: cannot read "
                           f"({exc.strerror or exc})") from None
    if len(raw) > MAX_SOURCE_BYTES:
        raise HParamsError(f"hyperparameter file {path}: larger than {MAX_SOURCE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HParamsError(f"hyperparameter file {path}: not UTF-8 text ({exc})") from None
    try:
        tree = ast.parse(text, filename=path, mode="exec")   # a syntax tree only, no code
    except SyntaxError as exc:
        raise HParamsError(f"hyperparameter file {path}, line {exc.lineno}: not valid Python "
                           f"({exc.msg})") from None
    except (RecursionError, MemoryError) as exc:
        raise HParamsError(f"hyperparameter file {path}: expressions nested too deeply to parse "
                           f"({type(exc).__name__})") from None
    except ValueError as exc:   # e.g. a NUL byte in the source
        raise HParamsError(f"hyperparameter file {path}: cannot parse ({exc})") from None
    n = sum(1 for _ in ast.walk(tree))
    if n > MAX_NODES:
        raise HParamsError(f"hyperparameter file {path}: {n} syntax nodes, more than the "
                           f"reader's bound {MAX_NODES}")
    return tree


def load_hparams_py(path) -> HParamsFile:
    """Read the authors' hyperparameter ``.py`` file without executing it (see the module
    docstring for what it may contain). The file must assign a dict to ``hpdict``."""
    p = os.fspath(path)
    ev = _Evaluator(p)
    try:
        ev.run(_parse(p))
    except RecursionError:
        raise HParamsError(f"hyperparameter file {p}: expressions nested too deeply") from None
    hp = ev.env.get("hpdict")
    if not isinstance(hp, dict):
        what = "does not assign hpdict" if hp is None else f"assigns hpdict a {type(hp).__name__}"
        raise HParamsError(f"hyperparameter file {p} {what}; the authors' format (README of "
                           "PLDR-LLM-with-KVG-cache) defines the dict hpdict = {\"num_layers\": "
                           "…, \"d_model\": …, …}")
    return HParamsFile(p, hp, dict(ev.env), list(ev.imports))


def read_hparams_py(path) -> dict:
    """The ``hpdict`` of the authors' hyperparameter file, read by the safe AST evaluator
    (never ``exec``/``eval``). ``F.silu``, ``inp_obj.tokenizer.vocab_size``, … come back as
    :class:`Symbol`. Every refused construct is a :class:`HParamsError` naming file and line."""
    return load_hparams_py(path).hpdict
