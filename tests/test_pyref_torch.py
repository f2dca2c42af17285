"""Optional cross-implementation check against the independent PyTorch float64 peer in
benchmarks/torch_peer.py.  Skipped when torch is not installed; correctness does not rely
on it (the other test files cover every component without torch).

Tolerance 1e-9 is the acceptance criterion; two float64 implementations of this depth on
O(1) data differ by ~1e-14 (different summation orders), so it has a wide margin.
"""
import os
import sys

import numpy as np
import pytest

import pyref

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
# benchmarks/ is not a package: importable only after the sys.path insertion above
from torch_peer import peer_from_state_dict, peer_state_dict_numpy  # noqa: E402 (needs sys.path)

CFG = pyref.PLDRConfig(num_layers=2, d_model=16, num_heads=2, dff=20, a_dff=10, num_res_units=2,
                       num_glu_blocks=2, vocab_size=31, max_seq_len=16)


def _perturbed(seed):
    m = pyref.PLDRModel.random(CFG, seed=seed)
    rng = np.random.default_rng(seed)
    sd = {k: v + 0.2 * rng.standard_normal(v.shape) for k, v in m.state_dict().items()}
    return sd


def test_pyref_matches_torch_peer_logits_and_G():
    sd = _perturbed(0)
    peer = peer_from_state_dict(sd, CFG)
    exported = peer_state_dict_numpy(peer)  # a state dict exported from the torch module tree
    assert list(exported) == pyref.state_dict_keys(CFG)
    model = pyref.PLDRModel.from_state_dict(exported, CFG)
    toks = np.array([[3, 17, 5, 0, 29, 8, 2], [1, 2, 3, 4, 5, 6, 7]])
    out = model.forward(toks)
    logits, kv, gc = peer(toks)
    assert np.max(np.abs(out.logits - logits.numpy())) < 1e-9
    for li in range(CFG.num_layers):
        assert np.max(np.abs(out.deductive[li]["G_LM"] - gc[li][1].numpy())) < 1e-9
    # a cached decode step agrees too
    step = model.forward(np.array([[4], [9]]), kvcache=out.kvcache, gcache=out.gcache)
    kv_t = [(k, v, a) for k, v, a in kv]
    l2, _, _ = peer(np.array([[4], [9]]), kvcache=kv_t, gcache=gc)
    assert np.max(np.abs(step.logits - l2.numpy())) < 1e-9


def test_torch_tensors_accepted_by_from_state_dict():
    sd = _perturbed(1)
    peer = peer_from_state_dict(sd, CFG)
    m = pyref.PLDRModel.from_state_dict(peer.state_dict(), CFG)  # torch tensors directly
    assert all(np.array_equal(m.state_dict()[k], sd[k]) for k in sd)
