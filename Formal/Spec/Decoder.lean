module

public import Formal.Spec.Operator

/-!
# The PLGA decoder layer, decoder and model, assembled as in `pyref` (spec A.2, A.4)

The spec layer **produces** an `Attention.PLGALayer`: its `params` carry the concrete
post-LN maps of `pyref/model.py` (`x1 = LN₁(x + MHA(x))`, `x = LN₂(x1 + SwiGLU(x1))`) and its
`gen` is the assembled deductive operator of `Formal.Spec.Operator`. The decoder is
`Attention.plgaDecoder` over these layers, so every theorem about `plgaDecoder` applies to it
by name. The model adds pyref's embedding (`emb[tok]·√d`, `LN_emb`), the pad-causal mask, the
score scale `√d_k` and the output head.

## Main definitions

* `LayerSpec`: one decoder layer's parameters, pyref's `params.LayerParams` (attention
  projections, the metric learner, two LayerNorms, the SwiGLU FFN);
* `layerParams`: its `Attention.LayerParams` (`ln1`, `ln2` = `lnMat`, `ffn` = `swigluMat`);
* `layer`: its `Attention.PLGALayer` (generator = `(metricLearner …).gen` = `headG`);
* `layers`, `decoder`: the stack, `sdpaLayers`: the same parameters as SDPA layers (pyref's
  `to_sdpa`);
* `ModelSpec` (pyref's `params.ModelParams`), `config`, `embed`, `logits`, `sdpaLogits`:
  pyref's `PLDRModel.forward` without caches, and its SDPA counterpart (`to_sdpa`).

## Main statements

* `layer_gen_eq`, `layer_gen_eq_headALM`: the spec layer's generator is the unfolded
  composition of spec A.4 steps 3–8, built on the spec's `A_LM`;
* `layer_gen_eq_metricLearner_gen`: the spec layer's generator is that of the `MetricLearner`
  instance `metricLearner`;
* `layer_run_eq`: one spec layer computes pyref's post-LN layer (`model.decoder_layer`);
* `decoder_cons`: the decoder runs its first layer, then the rest.

## Implementation notes

The layer width `d` is free (pyref has `d = H·d_k`). The mask is the ideal masked softmax
(`padCausalMask`, pad id `0`), not pyref's finite `-1e9`; RoPE is any row-rotation family
(`AttnConfig.rope`), the model's is torchtune's `R_p` (spec A.4 step 2). Not covered: the
KV-cache (frozen `A`), float rounding, sampling.

## References

* spec `PLGA_SPEC.md` §A.2 (decoder layer), §A.4; pyref `pyref/model.py` (`decoder_layer`,
  `PLDRModel.forward`), `pyref/params.py`;
* the paper's SDPA-inclusion theorem and Thm 5.4 apply through `Formal.Spec.Theorems`.
-/

@[expose] public section

namespace PLGA.Spec

open PLGA PLGA.Attention PLGA.Density PLGA.RowMap

attribute [local instance] Lean.Grind.Semiring.natCast

variable {α : Type u}

/-- Parameters of one PLGA decoder layer: pyref's `LayerParams` (`decoder.dec_layers.{l}`). -/
structure LayerSpec (α : Type u) (d H dk hA hF : Nat) where
  /-- the projections of pyref's `AttentionParams` (`mha1.{wq,wk,wv,dense}`, transposed) -/
  attn : MHAParams α d H dk
  /-- the metric learner (`mha1.layernorm1`, `reslayerAs`, `plgatt_layer`) -/
  learner : LearnerParams α H dk hA
  /-- first LayerNorm scale -/
  γ1 : Vec d α
  /-- first LayerNorm shift -/
  β1 : Vec d α
  /-- the feed-forward SwiGLU block `d → d_ff → d` -/
  ffn : SwiGLUParams α d hF
  /-- second LayerNorm scale -/
  γ2 : Vec d α
  /-- second LayerNorm shift -/
  β2 : Vec d α

/-- Parameters of the whole model: pyref's `ModelParams`. -/
structure ModelSpec (α : Type u) (V d H dk hA hF : Nat) where
  /-- token embedding table (`embedding`) -/
  emb : Mat V d α
  /-- embedding LayerNorm scale (`ln_emb.gamma`) -/
  γE : Vec d α
  /-- embedding LayerNorm shift (`ln_emb.beta`) -/
  βE : Vec d α
  /-- the decoder layers, first to last -/
  layers : List (LayerSpec α d H dk hA hF)
  /-- output head weight (`head_W` transposed) -/
  Wout : Mat d V α
  /-- output head bias (`head_b`) -/
  bout : Vec V α

variable [Lean.Grind.Field α] [LE α] [LT α] {S d H dk hA hF : Nat}

/-- The `Attention.LayerParams` of a spec layer: `ln1`, `ln2` are row LayerNorms (`ln_eps`),
`ffn` is the SwiGLU block. -/
noncomputable def layerParams (F : Prims α) (L : LayerSpec α d H dk hA hF) :
    LayerParams α S d H dk where
  attn := L.attn
  ln1 := lnMat F.sqrt F.lnEps L.γ1 L.β1
  ln2 := lnMat F.sqrt F.lnEps L.γ2 L.β2
  ffn := swigluMat F.gate.f L.ffn

/-- A spec layer as an `Attention.PLGALayer`: the concrete maps and the assembled operator. -/
noncomputable def layer (F : Prims α) (cfg : AttnConfig α S dk) (L : LayerSpec α d H dk hA hF) :
    PLGALayer α S d H dk :=
  ⟨layerParams F L, headG F cfg L.attn L.learner⟩

/-- The spec stack as `Attention.PLGALayer`s. -/
noncomputable def layers (F : Prims α) (cfg : AttnConfig α S dk)
    (Ls : List (LayerSpec α d H dk hA hF)) : List (PLGALayer α S d H dk) :=
  Ls.map (layer F cfg)

/-- The spec decoder: `Attention.plgaDecoder` over the spec layers. -/
noncomputable def decoder (F : Prims α) (cfg : AttnConfig α S dk)
    (Ls : List (LayerSpec α d H dk hA hF)) : Mat S d α → Mat S d α :=
  plgaDecoder cfg (layers F cfg Ls)

/-- The same parameters as SDPA layers (pyref's `to_sdpa`: the deductive parameters are
dropped, every operator is `I`). -/
noncomputable def sdpaLayers (F : Prims α) (Ls : List (LayerSpec α d H dk hA hF)) :
    List (LayerParams α S d H dk) :=
  Ls.map (layerParams F)

/-- The spec layer's generator is the unfolded composition of spec A.4 steps 3–8:
`G_h = a_h·(iSwiGLU(W_h Φ_res(LN_A(Q̂_hᵀQ̂_h)) + b_h) + ε)^{⊙P_h} + b_{a,h}` (structural). -/
theorem layer_gen_eq (F : Prims α) (cfg : AttnConfig α S dk) (L : LayerSpec α d H dk hA hF)
    (X : Mat S d α) (h : Fin H) :
    (layer F cfg L).gen X h
      = energyCurvature (L.learner.weights h).a
          (Mat.hadPow F.pw
            (metricTensor F.gate.f (L.learner.weights h).W
              (phiResMat F.sqrt F.lnEps F.gate.f L.learner.phi (density (queries cfg L.attn X h)))
              (L.learner.weights h).b F.metricEps)
            (L.learner.weights h).P)
          (L.learner.weights h).ba := rfl

/-- The spec layer's generator is built from the spec's `A_LM` of the same head and input:
`G_h = a_h·(headALM)^{⊙P_h} + b_{a,h}`, so statements about `headALM` (Thm 3.8) concern the
matrix behind the operator of the scores (structural). -/
theorem layer_gen_eq_headALM (F : Prims α) (cfg : AttnConfig α S dk)
    (L : LayerSpec α d H dk hA hF) (X : Mat S d α) (h : Fin H) :
    (layer F cfg L).gen X h
      = energyCurvature (L.learner.weights h).a
          (Mat.hadPow F.pw (headALM F cfg L.attn L.learner X h) (L.learner.weights h).P)
          (L.learner.weights h).ba := rfl

/-- The spec layer's generator is the generator of the `MetricLearner` instance
`metricLearner`,
whose `up` is `Φ_res ∘ LN_A ∘ D ∘ Q̂` (structural). -/
theorem layer_gen_eq_metricLearner_gen (F : Prims α) (cfg : AttnConfig α S dk)
    (L : LayerSpec α d H dk hA hF) :
    (layer F cfg L).gen = (metricLearner F cfg L.attn L.learner).gen F.gate.f F.pw := rfl

/-- One spec layer computes pyref's post-LN `model.decoder_layer`:
`x1 = LN₁(x + MHA_G(x))`, result `LN₂(x1 + SwiGLU(x1))` with `G = G_LM(x)` (structural). -/
theorem layer_run_eq (F : Prims α) (cfg : AttnConfig α S dk) (L : LayerSpec α d H dk hA hF)
    (X : Mat S d α) :
    (layer F cfg L).run cfg X
      = lnMat F.sqrt F.lnEps L.γ2 L.β2
          (Mat.add (lnMat F.sqrt F.lnEps L.γ1 L.β1 (Mat.add X (mha cfg L.attn (headG F cfg L.attn
            L.learner X) X)))
            (swigluMat F.gate.f L.ffn (lnMat F.sqrt F.lnEps L.γ1 L.β1
              (Mat.add X (mha cfg L.attn (headG F cfg L.attn L.learner X) X))))) := rfl

/-- The spec decoder runs its first layer, then the rest (structural). -/
theorem decoder_cons (F : Prims α) (cfg : AttnConfig α S dk) (L : LayerSpec α d H dk hA hF)
    (Ls : List (LayerSpec α d H dk hA hF)) (X : Mat S d α) :
    decoder F cfg (L :: Ls) X = decoder F cfg Ls ((layer F cfg L).run cfg X) := rfl

/-! ## The model -/

/-- The attention configuration of a forward call on tokens `tok` (pyref, no cache): pad-causal
mask with pad id `0`, score scale `√d_k`, the given exponential and RoPE family. -/
noncomputable def config {V : Nat} (F : Prims α) (E : ExpFn α) (rope : Fin S → Mat dk dk α)
    (tok : Fin S → Fin V) : AttnConfig α S dk where
  exp := E
  mask := padCausalMask fun p => decide ((tok p).val = 0)
  scale := F.sqrt.sqrt (Nat.cast dk)
  rope := rope

/-- The embedding of pyref's `forward`: `LN_emb(emb[tok]·√d)`. -/
noncomputable def embed {V : Nat} (F : Prims α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin S → Fin V) : Mat S d α :=
  lnMat F.sqrt F.lnEps M.γE M.βE fun t j => M.emb (tok t) j * F.sqrt.sqrt (Nat.cast d)

/-- The logits of pyref's `forward` without caches: embedding, spec decoder, output head. -/
noncomputable def logits {V : Nat} (F : Prims α) (E : ExpFn α) (rope : Fin S → Mat dk dk α)
    (M : ModelSpec α V d H dk hA hF) (tok : Fin S → Fin V) : Mat S V α :=
  affine (decoder F (config F E rope tok) M.layers (embed F M tok)) M.Wout M.bout

/-- The logits of the SDPA model with the same parameters (pyref's `to_sdpa`). -/
noncomputable def sdpaLogits {V : Nat} (F : Prims α) (E : ExpFn α) (rope : Fin S → Mat dk dk α)
    (M : ModelSpec α V d H dk hA hF) (tok : Fin S → Fin V) : Mat S V α :=
  affine (sdpaDecoder (config F E rope tok) (sdpaLayers F M.layers) (embed F M tok)) M.Wout M.bout

end PLGA.Spec
