"""What the generated mutants cover, and who scores them.

* :data:`SKIPPED_MODULES`: pyref modules holding no numerical code (not mutated, except their
  functions in :data:`TEST_SCORED`);
* :data:`SKIPPED_FUNCTIONS`: functions not mutated at all;
* :data:`TEST_SCORED`: functions no property can check (random initialization, checkpoint
  dispatch, the Hugging Face port's semantics), whose mutants are scored by named pytest node
  ids instead of the properties; :func:`check_test_scored` keeps the list from going stale.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

#: pyref modules holding no numerical code (relative to ``pyref/``), with the reason
SKIPPED_MODULES = {
    "inputs.py": "input conversion and validation only",
    "config.py": "configuration record and its validation",
    "checkpoint.py": "checkpoint file IO",
    "state_dict.py": "state-dict key names, shapes and their validation",
    "loading.py": "checkpoint format dispatch (file IO)",
    "torchfile.py": "PyTorch file reading (file IO): tests/test_torchfile.py",
    "hf.py": "Hugging Face folder reading (file IO): tests/test_hf_port.py",
    "hparams.py": "configuration resolution: tests/test_hparams.py",
    "hparams_ast.py": "the hyperparameter-file evaluator: tests/test_hparams.py",
    "tokenizer.py": "SentencePiece tokenization: tests/test_real_formats.py",
    "semantics.py": "the semantics record and its validation; its hf_generate_positions is "
                    "test-scored",
    "arb.py": "the arb backend's ball arithmetic (conversions, arb_mat products, radii): "
              "tests/test_pyref_arb.py; the properties run on arb, but their verdicts go "
              "through this module's conversions (crosscheck/arbcheck.py uses "
              "pyref.arb.exact), so its mutants would be scored by the code they mutate",
}

#: functions that are not mutated at all, with the reason (none at present: every function of a
#: numerical module is scored, by the properties or by the tests of :data:`TEST_SCORED`)
SKIPPED_FUNCTIONS: dict[str, str] = {}


class ByTests(NamedTuple):
    """How a test-scored function is scored: what it is, and the pytest node ids (relative to
    the repository root) whose run kills its mutants."""

    why: str
    tests: tuple[str, ...]


_INIT = ByTests("random initialization (spec A.5), not a formula of the model",
                ("tests/test_pyref_model.py::test_random_init_follows_spec",))
#: the Hugging Face port's forward semantics (pyref.semantics.hf_port): not part of the Lean
#: spec, checked against an independent float64 evaluation of the port (and, outside CI,
#: against the port's own code) in tests/test_hf_port.py
_PORT = ByTests("the HF port's semantics, not in the Lean spec", ("tests/test_hf_port.py",))

#: the rigour of the arb backend's radii, which the properties cannot see: they feed inputs whose
#: radii are at the rounding level, where a wrong spread bound, Jacobian or float error term of
#: the centred form changes no verdict (``plga mutate --generated --arb``: 25 of a 60-mutant
#: sample of these modules survived every arb run of the properties).  Their own tests check
#: the enclosure at every corner of wide input balls, the Jacobians against central differences,
#: the float bounds exactly in rationals, and the precision choice.
_ARB_RIGOUR = {
    "arb_centered": ByTests("the centred enclosure's radii (wide input balls, float Jacobians)",
                            ("tests/test_arb_centered.py",)),
    "arb_matmul": ByTests("the exact-integer ball products and their float radius bounds",
                          ("tests/test_arb_matmul.py",)),
    "arb_precision": ByTests("the automatic working precision (digits lost, the retry)",
                             ("tests/test_arb_precision.py",)),
}
_ARB_FUNCTIONS = {
    "arb_centered": ("_gamma", "_up", "_norm_inf", "_compose", "_image_bound", "_fmul", "_fadd",
                     "_rad_float", "_mid_rad", "_floats", "_affine_float", "_jacobian", "_block",
                     "_ln_times", "_unit", "_is_exact1", "_exact_floats", "_float_params",
                     "_widen", "residual_units"),
    "arb_matmul": ("worthwhile", "_limb_digits", "_digit_mats", "_shifted_limbs",
                   "weight_digits", "ball_parts", "_radius_bound", "_recombine", "_int_product",
                   "ball_times_weight"),
    "arb_precision": ("accuracy_digits", "digits_lost", "check_accuracy", "run_to_accuracy"),
}

#: functions that no property can check, scored by the test suite instead: function id ->
#: :class:`ByTests`. Their mutants are generated (a nested function inherits its parent's
#: tests; in a module of :data:`SKIPPED_MODULES` only these functions are mutated) and each is
#: run by its pytest node ids against the mutated pyref (``runner``: ``scored_by: "tests"``).
TEST_SCORED: dict[str, ByTests] = {
    "pyref.model:_random_params": _INIT,
    "pyref.model:_xavier_uniform": _INIT,
    "pyref.model:PLDRModel.load": ByTests(
        "checkpoint format dispatch (file IO)",
        ("tests/test_pyref_checkpoint.py", "tests/test_real_formats.py",
         "tests/test_hf_port.py::test_pldrmodel_load_folder")),
    **{f"pyref.{f}": _PORT for f in (
        "ops:rope_tables_f32", "ops:rope_tables", "ops:rotate_tables", "ops:mask_fill_value",
        "ops:softmax_exclude", "plga:port_causal_mask", "attention:_to_float32",
        "attention:port_rope", "attention:port_softmax", "attention:multi_head_attention_port",
        "model:_port_positions", "model:PLDRModel._forward_port",
        "model:PLDRModel._generate_port", "semantics:hf_generate_positions")},
    **{f"pyref.{mod}:{fn}": _ARB_RIGOUR[mod]
       for mod, fns in _ARB_FUNCTIONS.items() for fn in fns},
}


def _qualnames(body, prefix: str = "") -> set[str]:
    out = set()
    for s in body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out |= {prefix + s.name} | _qualnames(s.body, f"{prefix}{s.name}.")
        elif isinstance(s, ast.ClassDef):
            out |= _qualnames(s.body, f"{prefix}{s.name}.")
    return out


def check_test_scored(root: Path, repo: Path | None, scored: dict | None = None) -> None:
    """Raise ValueError if a :data:`TEST_SCORED` function id names no function of the pyref
    copy ``root`` or (unless ``repo`` is None) a node id's file is missing under the
    repository ``repo``."""
    scored = TEST_SCORED if scored is None else scored
    bad = []
    for fid, how in scored.items():
        module, _, qual = fid.partition(":")
        rel = module.removeprefix("pyref.").replace(".", "/") + ".py"
        path = Path(root) / rel
        if not path.is_file() or qual not in _qualnames(ast.parse(path.read_bytes()).body):
            bad.append(f"{fid} (no such function)")
        bad += [f"{fid}: {t} (no such test file)" for t in how.tests
                if repo is not None and not (Path(repo) / t.partition("::")[0]).is_file()]
    if bad:
        raise ValueError("stale test-scored functions (review TEST_SCORED in "
                         f"crosscheck/mutation/generate.py): {'; '.join(bad)}")
