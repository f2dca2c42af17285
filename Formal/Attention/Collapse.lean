module

public import Formal.Attention.MultiHead

/-!
# Inference collapse of the whole decoder stack (Thm 5.4(ii))

A trained PLDR-LLM recomputes each layer's operators `G_LM` from that layer's input through the
metric-learning subnetwork (`PLGALayer.gen`). Thm 5.4(ii): if the operators are input invariant,
the subnetwork can be deleted and replaced by the constants `G*_l`. Proved for the whole stack,
by induction over the layers: under each invariance hypothesis below the full decoder equals the
collapsed decoder (on `X`, on `S`, on `T`, everywhere), and so does the complete model output.

## Main definitions

* `pinLayers ls Gs`: replaces layer `l`'s generator by the constant `Gs[l]` (the "collapsed"
  model; a list of per-layer, per-head constants);
* `InvariantAlong cfg ls Gs X`: along the actual trajectory of input `X` through the stack, every
  layer's recomputed operator equals its constant — the weakest hypothesis;
* `InvariantOn cfg ls Gs S`: layer 1's generator equals `G*_1` on the input set `S`, layer 2's
  on every input **reachable** from `S` through layer 1, and so on;
* `ConstOn ls Gs T`: generators constant on one set `T` (used with `T` closed under every layer);
* `ExactlyInvariant ls Gs`: generators constant on all inputs.

## Main statements

* `run_eq_decoderLayer_of_gen_eq`: one layer;
* `plgaDecoder_pinLayers_of_invariantAlong`: whole stack, pointwise (the core induction);
* `plgaDecoder_collapse_on_reachable`: on a set of inputs, with reachability;
* `plgaDecoder_collapse_on_closed_set`: on a set closed under every layer;
* `plgaDecoder_collapse`: exact invariance, the decoders are equal as functions;
* `model_collapse_on_reachable`: with any embedding and output head, for the logits;
* `invariantAlong_of_invariantOn`, `invariantAlong_of_constOn`,
  `constOn_univ_of_exactlyInvariant`: how the hypotheses relate.

## Implementation notes

The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` proves only the matrix/row cores
(`cache_sufficiency_scores`, `cache_sufficiency_rows`: equal operators give equal
scores/softmax rows). Not covered here: *whether* trained generators are invariant (an empirical
question), and approximate invariance (no error propagation bound), sampling.

## References

* Thm 5.4(ii) of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 (the metric-learning chain), §B (inference).
-/

@[expose] public section

namespace PLGA.Attention

variable {α : Type u} [Lean.Grind.Field α] [LT α] {S d H dk : Nat}

/-- Replace each layer's generator by a constant operator (zipping; extra entries of either
list are dropped). -/
def pinLayers : List (PLGALayer α S d H dk) → List (HeadOps α H dk) → List (PLGALayer α S d H dk)
  | ℓ :: ls, G :: Gs => ⟨ℓ.params, fun _ => G⟩ :: pinLayers ls Gs
  | _, _ => []

/-- Input invariance along one trajectory: at input `X`, layer 1's generator returns `G*_1`;
at the next layer's input it returns `G*_2`; … (lists of equal length). -/
noncomputable def InvariantAlong (cfg : AttnConfig α S dk) :
    List (PLGALayer α S d H dk) → List (HeadOps α H dk) → Mat S d α → Prop
  | [], [], _ => True
  | ℓ :: ls, G :: Gs, X => ℓ.gen X = G ∧ InvariantAlong cfg ls Gs (decoderLayer cfg ℓ.params G X)
  | _, _, _ => False

/-- Input invariance on the inputs reachable from a set `S₀`: each layer's generator is
constant on the set of its inputs reachable from `S₀` through the earlier layers. -/
noncomputable def InvariantOn (cfg : AttnConfig α S dk) :
    List (PLGALayer α S d H dk) → List (HeadOps α H dk) → (Mat S d α → Prop) → Prop
  | [], [], _ => True
  | ℓ :: ls, G :: Gs, S₀ =>
    (∀ X, S₀ X → ℓ.gen X = G) ∧ InvariantOn cfg ls Gs (fun Y => ∃ X, S₀ X ∧ ℓ.run cfg X = Y)
  | _, _, _ => False

/-- Each generator is constant (equal to its `G*_l`) on the set `T`. -/
def ConstOn : List (PLGALayer α S d H dk) → List (HeadOps α H dk) → (Mat S d α → Prop) → Prop
  | [], [], _ => True
  | ℓ :: ls, G :: Gs, T => (∀ X, T X → ℓ.gen X = G) ∧ ConstOn ls Gs T
  | _, _, _ => False

/-- Exact input invariance: each generator is the constant function `G*_l`. -/
def ExactlyInvariant : List (PLGALayer α S d H dk) → List (HeadOps α H dk) → Prop
  | [], [] => True
  | ℓ :: ls, G :: Gs => (∀ X, ℓ.gen X = G) ∧ ExactlyInvariant ls Gs
  | _, _ => False

/-- One collapsed layer step: a pinned layer runs with its constant. -/
theorem pinned_run (cfg : AttnConfig α S dk) (ℓ : PLGALayer α S d H dk) (G : HeadOps α H dk)
    (X : Mat S d α) : PLGALayer.run cfg ⟨ℓ.params, fun _ => G⟩ X = decoderLayer cfg ℓ.params G X :=
  rfl

/-- Thm 5.4(ii), one layer: if the layer's recomputed operator at `X` is `G*`, running the
layer with the constant `G*` gives the same output. Does not cover: other inputs. -/
theorem run_eq_decoderLayer_of_gen_eq (cfg : AttnConfig α S dk) (ℓ : PLGALayer α S d H dk)
    {G : HeadOps α H dk} {X : Mat S d α} (hG : ℓ.gen X = G) :
    ℓ.run cfg X = decoderLayer cfg ℓ.params G X := by
  simp only [PLGALayer.run, hG]

/-- Thm 5.4(ii), whole stack, pointwise (the core induction over layers): if along the
trajectory of `X` every layer's recomputed operator equals its constant `G*_l`, the full
decoder and the collapsed decoder (generators deleted, constants pinned) give the same
output on `X`. Does not cover: approximate invariance. -/
theorem plgaDecoder_pinLayers_of_invariantAlong (cfg : AttnConfig α S dk) :
    ∀ (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)) (X : Mat S d α),
    InvariantAlong cfg ls Gs X → plgaDecoder cfg (pinLayers ls Gs) X = plgaDecoder cfg ls X
  | [], [], _, _ => rfl
  | [], _ :: _, _, h => h.elim
  | _ :: _, [], _, h => h.elim
  | ℓ :: ls, G :: Gs, X, h => by
    show plgaDecoder cfg (pinLayers ls Gs) (decoderLayer cfg ℓ.params G X)
      = plgaDecoder cfg ls (ℓ.run cfg X)
    rw [run_eq_decoderLayer_of_gen_eq cfg ℓ h.1]
    exact plgaDecoder_pinLayers_of_invariantAlong cfg ls Gs _ h.2

/-- Invariance on the reachable sets gives invariance along the trajectory of every input of
the starting set. -/
theorem invariantAlong_of_invariantOn (cfg : AttnConfig α S dk) :
    ∀ (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)) (S₀ : Mat S d α → Prop)
      (X : Mat S d α), InvariantOn cfg ls Gs S₀ → S₀ X → InvariantAlong cfg ls Gs X
  | [], [], _, _, _, _ => trivial
  | [], _ :: _, _, _, h, _ => h.elim
  | _ :: _, [], _, _, h, _ => h.elim
  | ℓ :: ls, G :: Gs, S₀, X, h, hX => by
    have hg := h.1 X hX
    refine ⟨hg, ?_⟩
    apply invariantAlong_of_invariantOn cfg ls Gs _ _ h.2
    exact ⟨X, hX, run_eq_decoderLayer_of_gen_eq cfg ℓ hg⟩

/-- Thm 5.4(ii), whole stack, on a set of inputs with reachability: if layer 1's generator is
constant `G*_1` on the input set `S₀` and each later layer's generator is constant `G*_l` on
the inputs reachable from `S₀` through the earlier layers, then on `S₀` the full decoder
equals the collapsed decoder. Does not cover: inputs outside `S₀`. -/
theorem plgaDecoder_collapse_on_reachable (cfg : AttnConfig α S dk)
    (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)) (S₀ : Mat S d α → Prop)
    (h : InvariantOn cfg ls Gs S₀) (X : Mat S d α) (hX : S₀ X) :
    plgaDecoder cfg (pinLayers ls Gs) X = plgaDecoder cfg ls X :=
  plgaDecoder_pinLayers_of_invariantAlong cfg ls Gs X
    (invariantAlong_of_invariantOn cfg ls Gs S₀ X h hX)

/-- Constancy on a set closed under every layer gives invariance along each trajectory
starting in it. -/
theorem invariantAlong_of_constOn (cfg : AttnConfig α S dk) (T : Mat S d α → Prop) :
    ∀ (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)),
      ConstOn ls Gs T → (∀ ℓ ∈ ls, ∀ X, T X → T (ℓ.run cfg X)) →
      ∀ X, T X → InvariantAlong cfg ls Gs X
  | [], [], _, _, _, _ => trivial
  | [], _ :: _, h, _, _, _ => h.elim
  | _ :: _, [], h, _, _, _ => h.elim
  | ℓ :: ls, G :: Gs, h, hT, X, hX => by
    have hg := h.1 X hX
    refine ⟨hg, ?_⟩
    apply invariantAlong_of_constOn cfg T ls Gs h.2
      (fun ℓ' hℓ' => hT ℓ' (List.mem_cons_of_mem _ hℓ'))
    rw [← run_eq_decoderLayer_of_gen_eq cfg ℓ hg]
    exact hT ℓ List.mem_cons_self X hX

/-- Thm 5.4(ii), whole stack, on an invariant set: if every layer maps the set `T` into
itself and every generator is constant `G*_l` on `T`, the full decoder equals the collapsed
decoder on `T`. Does not cover: inputs outside `T`. -/
theorem plgaDecoder_collapse_on_closed_set (cfg : AttnConfig α S dk) (T : Mat S d α → Prop)
    (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)) (h : ConstOn ls Gs T)
    (hT : ∀ ℓ ∈ ls, ∀ X, T X → T (ℓ.run cfg X)) (X : Mat S d α) (hX : T X) :
    plgaDecoder cfg (pinLayers ls Gs) X = plgaDecoder cfg ls X :=
  plgaDecoder_pinLayers_of_invariantAlong cfg ls Gs X
    (invariantAlong_of_constOn cfg T ls Gs h hT X hX)

omit [Lean.Grind.Field α] [LT α] in
/-- Exact invariance is constancy on the whole input space. -/
theorem constOn_univ_of_exactlyInvariant :
    ∀ (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)),
      ExactlyInvariant ls Gs → ConstOn ls Gs (fun _ => True)
  | [], [], _ => trivial
  | [], _ :: _, h => h.elim
  | _ :: _, [], h => h.elim
  | _ :: ls, _ :: Gs, h => ⟨fun X _ => h.1 X, constOn_univ_of_exactlyInvariant ls Gs h.2⟩

/-- Thm 5.4(ii), exact input invariance: if every layer's generator is the constant
function `G*_l`, the full decoder **is** the collapsed decoder (equal as functions): the
metric-learning subnetwork can be replaced by the cached constants. Does not cover:
approximate invariance. -/
theorem plgaDecoder_collapse (cfg : AttnConfig α S dk) (ls : List (PLGALayer α S d H dk))
    (Gs : List (HeadOps α H dk)) (h : ExactlyInvariant ls Gs) :
    plgaDecoder cfg (pinLayers ls Gs) = plgaDecoder cfg ls := by
  funext X
  exact plgaDecoder_collapse_on_closed_set cfg (fun _ => True) ls Gs
    (constOn_univ_of_exactlyInvariant ls Gs h) (fun _ _ _ _ => trivial) X trivial

/-- Thm 5.4(ii) for the complete model: with any embedding `embed` and output head `head`
composed around the stack, the collapse holds for the model output (logits). Does not
cover: sampling. -/
theorem model_collapse_on_reachable {Tok : Type v} {Out : Type w} (cfg : AttnConfig α S dk)
    (embed : Tok → Mat S d α) (head : Mat S d α → Out)
    (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)) (S₀ : Tok → Prop)
    (h : InvariantOn cfg ls Gs (fun X => ∃ x, S₀ x ∧ embed x = X)) (x : Tok) (hx : S₀ x) :
    head (plgaDecoder cfg (pinLayers ls Gs) (embed x)) = head (plgaDecoder cfg ls (embed x)) := by
  rw [plgaDecoder_collapse_on_reachable cfg ls Gs _ h (embed x) ⟨x, hx, rfl⟩]

end PLGA.Attention
