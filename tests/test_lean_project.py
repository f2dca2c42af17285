"""Source-level parts of the Lean pipeline (no Lean process): module graph, theorem
names, the forbidden-construct scan, the audit's concatenation, CLI errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from crosscheck.errors import LeanProjectError, ToolchainError
from crosscheck.lean.axioms import classify
from crosscheck.lean.project import load_project, monolith, scan_forbidden, theorems
from crosscheck.lean.toolchain import patch_lean_js


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def test_modules_in_dependency_order(mini_project):
    names = [m.name for m in load_project(mini_project)]
    assert names.index("Formal.Base") < names.index("Formal.Uses") < names.index("Formal")


def test_import_cycle_is_a_clear_error(tmp_path):
    write(tmp_path, "Formal/A.lean", "module\npublic import Formal.B\n")
    write(tmp_path, "Formal/B.lean", "module\npublic import Formal.A\n")
    with pytest.raises(LeanProjectError,
                       match=r"import cycle: Formal\.A -> Formal\.B -> Formal\.A"):
        load_project(tmp_path)


def test_missing_project_import(tmp_path):
    write(tmp_path, "Formal/A.lean", "module\npublic import Formal.Nope\n")
    with pytest.raises(LeanProjectError,
                       match=r"Formal/A.lean: imports Formal.Nope, but no file Formal/Nope.lean"):
        load_project(tmp_path)


def test_non_utf8_file(tmp_path):
    (tmp_path / "Formal").mkdir()
    (tmp_path / "Formal" / "A.lean").write_bytes(b"theorem \xff\xfe")
    with pytest.raises(LeanProjectError, match=r"Formal/A.lean: not UTF-8"):
        load_project(tmp_path)


def test_no_formal_dir(tmp_path):
    with pytest.raises(LeanProjectError, match="no Formal/ directory"):
        load_project(tmp_path)


def test_theorem_names_follow_namespaces(tmp_path):
    write(tmp_path, "Formal/A.lean", """module
namespace Outer
theorem a : True := trivial
namespace Inner.Deep
@[simp] theorem b : True := trivial
end Inner.Deep
section
theorem c : True := trivial
end
theorem _root_.top : True := trivial
end Outer
theorem d : True := trivial
""")
    names = [t.name for t in theorems(load_project(tmp_path))]
    assert names == ["Outer.a", "Outer.Inner.Deep.b", "Outer.c", "top", "d"]


def test_duplicate_and_private_theorems_rejected(tmp_path):
    write(tmp_path, "Formal/A.lean", "theorem a : True := trivial\ntheorem a : True := trivial\n")
    with pytest.raises(LeanProjectError, match="theorem a is also declared at Formal/A.lean:1"):
        theorems(load_project(tmp_path))
    write(tmp_path, "Formal/A.lean", "private theorem a : True := trivial\n")
    with pytest.raises(LeanProjectError, match="private theorem a"):
        theorems(load_project(tmp_path))


@pytest.mark.parametrize("snippet, what", [
    ("theorem x : 1 = 1 := by sorry", "`sorry`"),
    ("theorem x : 1 = 1 := by admit", "`admit`"),
    ("axiom cheat : False", "an `axiom` declaration"),
    ("theorem x : 2 < 3 := by native_decide", "`native_decide`"),
    ("unsafe def f : Nat := 0", "`unsafe`"),
    ("@[implemented_by f] def g : Nat := 0", "`implemented_by`"),
    ("@[extern \"c_f\"] def h : Nat := 0", "`extern`"),
    ("set_option debug.skipKernelTC true", "option `debug.skipKernelTC`"),
])
def test_forbidden_scan_finds(tmp_path, snippet, what):
    write(tmp_path, "Formal/A.lean", "module\n\n" + snippet + "\n")
    found = scan_forbidden(load_project(tmp_path))
    assert any(f.startswith("Formal/A.lean:3: forbidden ") and what in f for f in found), found


def test_forbidden_scan_ignores_comments_and_strings(tmp_path):
    write(tmp_path, "Formal/A.lean",
          '/-! We never use sorry or an axiom here. -/\n-- native_decide\n'
                                     'def s : String := "sorry"\n')
    assert scan_forbidden(load_project(tmp_path)) == []


def test_line_length_scan_counts_characters(tmp_path):
    ok = "-- " + "α" * 97  # 100 characters (more than 100 bytes)
    long = "-- " + "β" * 98  # 101 characters
    write(tmp_path, "Formal/A.lean", f"module\n\n{ok}\n{long}\n")
    found = scan_forbidden(load_project(tmp_path))
    assert found == ["Formal/A.lean:4: line of 101 characters (limit 100)"]


def test_monolith_maps_lines_back(mini_project):
    mods = load_project(mini_project)
    thms = theorems(mods)
    mono = monolith(mods, thms)
    lines = mono.text.splitlines()
    # every theorem's line in the monolith maps back to its own file and line
    for t in thms:
        head = f"theorem {t.name.split('.')[-1]} "
        idx = next(i for i, line in enumerate(lines, 1) if line.lstrip().startswith(head))
        assert mono.locate(idx) == f"{t.rel}:{t.line}"
    assert "public import Formal" not in mono.text
    assert sum(line.startswith("#plga_audit ") for line in lines) == len(thms)


def test_classify_axioms():
    entries = [("propext", "axiom", "I"), ("Nat.add_comm", "axiom", "I"), ("sorryAx", "axiom", "I"),
               ("Mini.cheat", "axiom", "L"), ("Lean.ofReduceBool", "axiom", "I")]
    axioms, bad = classify(entries)
    assert axioms == ["Lean.ofReduceBool", "Mini.cheat", "propext", "sorryAx"]
    assert bad == ["Lean.ofReduceBool", "Mini.cheat", "sorryAx"]


def test_patch_requires_exact_glue():
    with pytest.raises(ToolchainError, match="expected exactly one occurrence"):
        patch_lean_js("var x=1;")


def run_cli(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "crosscheck", *args], capture_output=True,
                          text=True,
                          env=env, cwd=cwd, timeout=600)


def test_cli_bad_root_is_one_line(tmp_path):
    r = run_cli("lean", "check", "--root", str(tmp_path / "nope"))
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "no Formal/ directory" in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_missing_native_toolchain(tmp_path, monkeypatch):
    env = dict(os.environ, PLGA_LEAN="native", PATH=str(tmp_path))
    mini = str(Path(__file__).parent / "fixtures" / "lean_mini")
    r = run_cli("lean", "check", "--root", mini, env=env)
    assert r.returncode == 2
    assert "no working 'lean' is on PATH" in r.stderr and "Traceback" not in r.stderr


def test_cli_cache_outside_mounted_dirs(tmp_path):
    env = dict(os.environ, PLGA_LEAN="wasm", PLGA_LEAN_CACHE="/var/plga-cache")
    r = run_cli("lean", "setup", env=env)
    assert r.returncode == 2 and "only read files under /tmp or /home" in r.stderr


def test_cli_import_cycle_is_one_line(tmp_path):
    write(tmp_path, "Formal/A.lean", "module\npublic import Formal.B\n")
    write(tmp_path, "Formal/B.lean", "module\npublic import Formal.A\n")
    r = run_cli("lean", "check", "--root", str(tmp_path))
    assert r.returncode == 2 and "import cycle" in r.stderr and "Traceback" not in r.stderr
