module

/-!
# Analytic functions as hypothesis structures

Core Lean has no real numbers and no `exp`, `log`, sigmoid, `sqrt`. Instead of postulating them
(never an `axiom` in this project), a theorem that needs one takes a *structure* bundling the
function with exactly the properties the proof uses. Every structure here is satisfied by
mathlib's real functions, so each theorem applies to `ℝ` by supplying the instance; the
statements stay true and checkable for any other model too.

## Main definitions

* `ExpFn`: an exponential, a positive homomorphism `(α, +) → (α, *)` (`Real.exp`: `Real.exp_add`,
  `Real.exp_zero`, `Real.exp_pos`);
* `ExpLog`: an exponential with a logarithm inverse to it on the positive half-line
  (`Real.exp`/`Real.log`: `Real.log_exp`, `Real.exp_log`);
* `ExpLog.rpow`: the real power `a^p = exp (p · log a)` (`Real.rpow` on positive bases);
* `PosFn`: a positive gate function, e.g. the logistic sigmoid `σ(u) = 1/(1+e^{-u})`; only
  positivity is assumed;
* `SqrtFn`: a square root on the nonnegative half-line (`Real.sqrt`: `Real.sqrt_nonneg`,
  `Real.mul_self_sqrt`).

## Main statements

* none: this file only defines the hypothesis structures.

## Implementation notes

No paper result is formalized here; this is infrastructure. The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` uses mathlib's `Real.exp`, `Real.log`, `Real.sqrt` and the
real sigmoid directly, so it has no counterpart.

## References

* the analytic functions of Def 3.1 (sigmoid), Prop 3.7 (power), Prop 5.2 (softmax), Lem 5.11
  (square root) of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 (where they occur in the architecture).
-/

@[expose] public section

namespace PLGA

/-- An exponential: a positive homomorphism from `(α, +)` to `(α, *)`.
`Real.exp` satisfies it (`Real.exp_add`, `Real.exp_zero`, `Real.exp_pos`). -/
structure ExpFn (α : Type u) [Add α] [Mul α] [OfNat α 0] [OfNat α 1] [LT α] where
  /-- the function -/
  exp : α → α
  /-- `exp (x + y) = exp x * exp y` -/
  exp_add : ∀ x y, exp (x + y) = exp x * exp y
  /-- `exp 0 = 1` -/
  exp_zero : exp 0 = 1
  /-- `0 < exp x` -/
  exp_pos : ∀ x, 0 < exp x

/-- An exponential with a logarithm inverse to it on the positive half-line.
`Real.exp`/`Real.log` satisfy it (`Real.log_exp`, `Real.exp_log`). -/
structure ExpLog (α : Type u) [Add α] [Mul α] [OfNat α 0] [OfNat α 1] [LT α]
    extends ExpFn α where
  /-- the logarithm -/
  log : α → α
  /-- `log (exp x) = x` -/
  log_exp : ∀ x, log (exp x) = x
  /-- `exp (log x) = x` for `0 < x` -/
  exp_log : ∀ x, 0 < x → exp (log x) = x

/-- The real power `a^p = exp (p · log a)` of an `ExpLog` (`Real.rpow` on positive bases). -/
def ExpLog.rpow {α : Type u} [Add α] [Mul α] [OfNat α 0] [OfNat α 1] [LT α] (E : ExpLog α)
    (a p : α) : α :=
  E.exp (p * E.log a)

/-- A positive gate function, e.g. the logistic sigmoid `σ(u) = 1/(1+e^{-u})`,
which lies in `(0, 1)`. Only positivity is assumed. -/
structure PosFn (α : Type u) [OfNat α 0] [LT α] where
  /-- the function -/
  f : α → α
  /-- `0 < f u` -/
  pos : ∀ u, 0 < f u

/-- A square root on the nonnegative half-line (`Real.sqrt`: `Real.sqrt_nonneg`,
`Real.mul_self_sqrt`). -/
structure SqrtFn (α : Type u) [Mul α] [OfNat α 0] [LE α] where
  /-- the function -/
  sqrt : α → α
  /-- `0 ≤ sqrt x` -/
  sqrt_nonneg : ∀ x, 0 ≤ sqrt x
  /-- `sqrt x * sqrt x = x` for `0 ≤ x` -/
  mul_self_sqrt : ∀ x, 0 ≤ x → sqrt x * sqrt x = x

end PLGA
