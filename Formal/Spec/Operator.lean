module

public import Formal.Attention.Cache
public import Formal.Structure.Density
public import Formal.Structure.RowMap

/-!
# The deductive operator of one head, assembled as in `pyref` (spec A.4 steps 3–8)

The attention theorems take the per-head operator `G_LM` from an abstract generator
(`PLGALayer.gen`, `MetricLearner.up`). This module builds it from the library's definitions
(`density`, `lnMat`, `unitMat`/`phiResMat`, `metricTensor`, `Mat.hadPow`,
`energyCurvature`), one definition per step of pyref:

`D = Q̂ᵀQ̂`, `A⁰ = LN_A(D)`, `A = Φ_res(A⁰)`, `A_LM = iSwiGLU(W A + b) + ε`,
`A_P = A_LM^{⊙P}`, `G_LM = a·A_P + b_a`,

where `Q̂` is the rotated query of the head (`Attention.queries`, RoPE from `AttnConfig.rope`).

## Main definitions

One to one with pyref (`pyref/params.py`, `pyref/ops.py`, `pyref/attention.py`):

* `Prims`: the backend's square root, sigmoid and real power, and `PLDRConfig.ln_eps`,
  `metric_eps`, as hypothesis structures, never axioms;
* `OperatorParams`: one head's slice of `params.OperatorParams` (`W, b, P, a, b_a`;
  `plgatt_layer.{Wlst,blst,pwlst,alst,balst}[h]`);
* `LearnerParams`: `params.LearnerParams` (`ln_A` and `units` in `phi`, `weights` per head);
* `lnA` (the `layer_norm` of `prefill_A`), `residualLearner` (`ops.residual_metric_learner`),
  `prefillA` (`PLGAOperator.prefill_A`), `opALM` (`ops.metric_tensor`), `opAP`
  (`ops.potential_tensor`), `opG` (`ops.energy_curvature`), `deductive` (the `G_LM` of
  `PLGAOperator.deduce` without caches): the chain on a given rotated query `Q̂`;
* `headQ` (`qh` of `multi_head_attention`), `headA`, `headALM`, `headAP`, `headG`: the chain
  of head `h` at the layer input `X`;
* `metricLearner`: the chain as an `Attention.MetricLearner` with
  `up = Φ_res ∘ LN_A ∘ D ∘ Q̂`.

## Main statements

* `prefillA_eq_phiResMat`, `headA_eq_phiResMat`: `LN_A` followed by pyref's residual units is
  the library's `phiResMat` (which starts with `LN_A`) of the density operator;
* `metricLearner_up`, `metricLearner_ALM`, `metricLearner_gen`: the spec learner is a
  `MetricLearner` whose `up`, `ALM` and `gen` are the spec's `headA`, `headALM`, `headG`;
* `headG_eq`: the fully unfolded composition
  `energyCurvature a (Mat.hadPow pw (metricTensor σ W (phiResMat … (density Q̂)) b ε) P) b_a`.

## Implementation notes

Conventions follow the library: weights of `Mat n m` act on row vectors from the right in
`affine` (torch's `W` transposed), the SwiGLU blocks keep torch's `[out, in]` layout
(`swigluMat`), `W` and `a` left-multiply (spec A.4 steps 6, 8). Each residual unit of `Φ_res`
has two SwiGLU blocks (`UnitParams`; `num_glu_blocks = 2` as in the paper, pyref allows any
count). The sigmoid is a `PosFn` (only positivity is assumed), the LayerNorm square root a
`SqrtFn`, the real power an abstract `pw : α → α → α` (`pw = ExpLog.rpow` gives `x^p` on
`x > 0`). The KV-cache branch (frozen `A`) is not modelled; the G-cache is
(`Formal.Spec.Theorems`).

## References

* spec `PLGA_SPEC.md` §A.4 steps 1–8;
* Prop 3.6 (`D`), Prop 3.11 (`Φ_res`), Def 3.1 / Prop 3.7 (`A_LM`), Thm 3.8 (`A_LM`).
-/

@[expose] public section

namespace PLGA.Spec

open PLGA PLGA.Attention PLGA.Density PLGA.RowMap

variable {α : Type u}

/-- The analytic primitives and numerical constants of the model (pyref's `Backend` and the
`ln_eps`, `metric_eps` fields of `PLDRConfig`). -/
structure Prims (α : Type u) [Lean.Grind.Field α] [LE α] [LT α] where
  /-- the square root of the LayerNorms (`Real.sqrt`) -/
  sqrt : SqrtFn α
  /-- the sigmoid gate of `silu` and `iSwiGLU` (only positivity is assumed) -/
  gate : PosFn α
  /-- the real power `pw x p = x^p` of the potential tensor -/
  pw : α → α → α
  /-- the ε of every LayerNorm (`ln_eps`, `1e-6`) -/
  lnEps : α
  /-- the ε added to `A_LM` (`metric_eps`, `1e-9`) -/
  metricEps : α

/-- One head's operator weights: pyref's `OperatorParams` at head `h`
(`plgatt_layer.{Wlst,blst,pwlst,alst,balst}[h]`). -/
structure OperatorParams (α : Type u) (dk : Nat) where
  /-- metric weight `W_h` (left-multiplies `A`) -/
  W : Mat dk dk α
  /-- metric bias `b_h` -/
  b : Mat dk dk α
  /-- exponent matrix `P_h` -/
  P : Mat dk dk α
  /-- energy-curvature weight `a_h` (left-multiplies `A_P`) -/
  a : Mat dk dk α
  /-- energy-curvature bias `b_{a,h}` -/
  ba : Mat dk dk α

/-- One layer's metric learner, pyref's `LearnerParams`: `LN_A` (`ln_A`, `mha1.layernorm1`)
and the residual units (`units`, `reslayerAs`) in `phi`, shared by all heads, and the
per-head operator weights. -/
structure LearnerParams (α : Type u) (H dk hA : Nat) where
  /-- `LN_A` (`phi.γA`, `phi.βA`) and the residual units of `Φ_res` (`phi.units`) -/
  phi : PhiResParams α dk hA
  /-- per-head metric, power and energy-curvature weights -/
  weights : Fin H → OperatorParams α dk

variable [Lean.Grind.Field α] [LE α] [LT α]

/-! ## The chain on a given rotated query `Q̂` -/

section Chain
variable {S dk hA : Nat}

/-- `A⁰ = LN_A(D)`: the row LayerNorm of `PLGAOperator.prefill_A` (`ln_A`, `ln_eps`). -/
noncomputable def lnA (F : Prims α) (φ : PhiResParams α dk hA) (D : Mat dk dk α) :
    Mat dk dk α :=
  lnMat F.sqrt F.lnEps φ.γA φ.βA D

/-- pyref's `ops.residual_metric_learner`: the residual units `A ← LN_u(A + g₂(g₁(A)))`, in
order (without `LN_A`, which `prefill_A` applies before). -/
noncomputable def residualLearner (F : Prims α) (φ : PhiResParams α dk hA) (A : Mat dk dk α) :
    Mat dk dk α :=
  φ.units.foldl (fun B u => unitMat F.sqrt F.lnEps F.gate.f u B) A

/-- pyref's `PLGAOperator.prefill_A`: `A = Φ_res(LN_A(Q̂ᵀQ̂))` for a rotated query `Q̂`. -/
noncomputable def prefillA (F : Prims α) (φ : PhiResParams α dk hA) (Q : Mat S dk α) :
    Mat dk dk α :=
  residualLearner F φ (lnA F φ (density Q))

/-- pyref's `ops.metric_tensor`: `A_LM = iSwiGLU(W A + b) + ε`. -/
noncomputable def opALM (F : Prims α) (p : OperatorParams α dk) (A : Mat dk dk α) :
    Mat dk dk α :=
  metricTensor F.gate.f p.W A p.b F.metricEps

/-- pyref's `ops.potential_tensor`: `A_P = A_LM^{⊙P}`. -/
noncomputable def opAP (F : Prims α) (p : OperatorParams α dk) (ALM : Mat dk dk α) : Mat dk dk α :=
  Mat.hadPow F.pw ALM p.P

/-- pyref's `ops.energy_curvature`: `G_LM = a·A_P + b_a`. -/
noncomputable def opG (p : OperatorParams α dk) (AP : Mat dk dk α) : Mat dk dk α :=
  energyCurvature p.a AP p.ba

/-- The deductive operator of one head from its rotated query `Q̂`: the `G_LM` of pyref's
`PLGAOperator.deduce` without caches (`prefill_A`, then `ops.operator`). -/
noncomputable def deductive (F : Prims α) (φ : PhiResParams α dk hA) (p : OperatorParams α dk)
    (Q : Mat S dk α) : Mat dk dk α :=
  opG p (opAP F p (opALM F p (prefillA F φ Q)))

/-- pyref's `LN_A` followed by its residual units is the library's `phiResMat` (Prop 3.11's
object, which starts with `LN_A`) applied to the density operator (structural). -/
theorem prefillA_eq_phiResMat (F : Prims α) (φ : PhiResParams α dk hA) (Q : Mat S dk α) :
    prefillA F φ Q = phiResMat F.sqrt F.lnEps F.gate.f φ (density Q) := rfl

end Chain

/-! ## The chain of head `h` at the layer input `X` -/

section Head
variable {S d H dk hA : Nat}

/-- `Q̂_h`: the rotated query of head `h` (`qh` in `multi_head_attention`: projection with
bias, head split, RoPE). -/
noncomputable def headQ (cfg : AttnConfig α S dk) (P : MHAParams α d H dk) (X : Mat S d α)
    (h : Fin H) : Mat S dk α :=
  queries cfg P X h

/-- `A_h = Φ_res(LN_A(Q̂_hᵀ Q̂_h))` at input `X`. -/
noncomputable def headA (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) : Mat dk dk α :=
  prefillA F M.phi (headQ cfg P X h)

/-- `A_LM` of head `h` at input `X`. -/
noncomputable def headALM (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) : Mat dk dk α :=
  opALM F (M.weights h) (headA F cfg P M X h)

/-- `A_P` of head `h` at input `X`. -/
noncomputable def headAP (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) : Mat dk dk α :=
  opAP F (M.weights h) (headALM F cfg P M X h)

/-- `G_LM` of head `h` at input `X`: the operator of the head's attention scores. -/
noncomputable def headG (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) : HeadOps α H dk :=
  fun h => opG (M.weights h) (headAP F cfg P M X h)

/-- The spec's metric learner as an `Attention.MetricLearner`: `up` is
`Φ_res ∘ LN_A ∘ D ∘ Q̂`, the other fields are the per-head parameters. -/
noncomputable def metricLearner (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) : MetricLearner α S d H dk where
  up := headA F cfg P M
  W := fun h => (M.weights h).W
  b := fun h => (M.weights h).b
  P := fun h => (M.weights h).P
  a := fun h => (M.weights h).a
  ba := fun h => (M.weights h).ba
  ε := F.metricEps

/-- The spec learner's `up` is `Φ_res ∘ LN_A ∘ D` of the head's rotated query (structural). -/
theorem metricLearner_up (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) :
    (metricLearner F cfg P M).up X h
      = residualLearner F M.phi (lnA F M.phi (density (queries cfg P X h))) := rfl

/-- The spec learner's `A_LM` is the spec's `headALM` (structural). -/
theorem metricLearner_ALM (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) :
    (metricLearner F cfg P M).ALM F.gate.f X h = headALM F cfg P M X h := rfl

/-- The spec learner's generator is the spec's `headG` (structural). -/
theorem metricLearner_gen (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) :
    (metricLearner F cfg P M).gen F.gate.f F.pw X = headG F cfg P M X := rfl

/-- `A_h` is `phiResMat` (with its `LN_A`) of the density of the rotated query (structural). -/
theorem headA_eq_phiResMat (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) :
    headA F cfg P M X h = phiResMat F.sqrt F.lnEps F.gate.f M.phi (density (queries cfg P X h)) :=
  rfl

/-- Spec A.4 steps 3–8 in one line: `G_LM` of head `h` is
`a·(iSwiGLU(W Φ_res(LN_A(Q̂ᵀQ̂)) + b) + ε)^{⊙P} + b_a` (structural). -/
theorem headG_eq (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) :
    headG F cfg P M X h
      = energyCurvature (M.weights h).a
          (Mat.hadPow F.pw
            (metricTensor F.gate.f (M.weights h).W
              (phiResMat F.sqrt F.lnEps F.gate.f M.phi (density (queries cfg P X h)))
              (M.weights h).b F.metricEps)
            (M.weights h).P)
          (M.weights h).ba := rfl

end Head

end PLGA.Spec
