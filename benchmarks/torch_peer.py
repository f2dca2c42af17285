"""An independent, straightforward PyTorch float64 implementation of PLGA_SPEC.md (section
A and the caches of section B), written for this project as the benchmark peer and the
cross-implementation check of pyref.

The module tree reproduces the PyTorch v510 ``state_dict()`` key names exactly
(``decoder.embedding``, ``decoder.dec_layers.{l}.mha1.{wq,wk,wv,dense}``,
``mha1.plgatt_layer.{Wlst,blst,pwlst,alst,balst}``, ``mha1.reslayerAs.{u}.denseAs.{g}.gluw{1,2,3}``,
``mha1.reslayerAs.{u}.layernormA``, ``mha1.layernorm1``, ``ffn.gluw{1,2,3}``,
``layernorm{1,2}``, ``decoder.layernorm1``, ``final_layer``), so a state dict moves between
pyref and this peer unchanged.  Unlike the authors' code, RoPE and the scales are
computed in the model dtype (float64), like pyref's float64 backend.

torch is an optional dependency (extra ``bench``); pyref never imports this module.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class GLU(nn.Module):
    """SwiGLU block: (silu(x W1ᵀ + b1) ⊙ (x W2ᵀ + b2)) W3ᵀ + b3."""

    def __init__(self, d_in, hidden, d_out):
        super().__init__()
        self.gluw1 = nn.Linear(d_in, hidden)
        self.gluw2 = nn.Linear(d_in, hidden)
        self.gluw3 = nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.gluw3(F.silu(self.gluw1(x)) * self.gluw2(x))


class ResUnit(nn.Module):
    def __init__(self, dk, a_dff, n_blocks, eps):
        super().__init__()
        self.denseAs = nn.ModuleList([GLU(dk, a_dff, dk) for _ in range(n_blocks)])
        self.layernormA = nn.LayerNorm(dk, eps=eps)

    def forward(self, A):
        y = A
        for blk in self.denseAs:
            y = blk(y)
        return self.layernormA(A + y)


class OperatorParams(nn.Module):
    def __init__(self, H, dk):
        super().__init__()
        for n in ("Wlst", "blst", "pwlst", "alst", "balst"):
            setattr(self, n, nn.Parameter(torch.zeros(H, dk, dk)))


class MHA(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, H = c["d_model"], c["num_heads"]
        self.H, self.dk, self.c = H, d // H, c
        self.wq, self.wk, self.wv = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.plgatt_layer = OperatorParams(H, self.dk)
        self.dense = nn.Linear(d, d)
        self.reslayerAs = nn.ModuleList([
            ResUnit(self.dk, c["a_dff"], c["num_glu_blocks"], c["ln_eps"])
            for _ in range(c["num_res_units"])])
        self.layernorm1 = nn.LayerNorm(self.dk, eps=c["ln_eps"])

    def rope(self, x, start):
        """x [B, H, S, dk] rotated at positions start … start+S-1 (interleaved pairs)."""
        S, dk = x.shape[-2], self.dk
        j = torch.arange(dk // 2, dtype=x.dtype)
        theta = self.c["rope_base"] ** (-2.0 * j / dk)
        ang = torch.arange(start, start + S, dtype=x.dtype)[:, None] * theta[None, :]
        c, s = torch.cos(ang), torch.sin(ang)
        xe, xo = x[..., 0::2], x[..., 1::2]
        return torch.stack([xe * c - xo * s, xo * c + xe * s], dim=-1).flatten(-2)

    def forward(self, x, mask, kv=None, gc=None):
        B, S, d = x.shape
        H, dk = self.H, self.dk
        q = self.wq(x).view(B, S, H, dk).transpose(1, 2)
        k = self.wk(x).view(B, S, H, dk).transpose(1, 2)
        v = self.wv(x).view(B, S, H, dk).transpose(1, 2)
        start = 0 if kv is None else kv[0].shape[2]
        q, k = self.rope(q, start), self.rope(k, start)
        if kv is None:
            A = self.layernorm1(q.transpose(-1, -2) @ q)
            for u in self.reslayerAs:
                A = u(A)
        else:
            k = torch.cat([kv[0], k], dim=2)
            v = torch.cat([kv[1], v], dim=2)
            A = kv[2]
        if gc is None:
            p = self.plgatt_layer
            z = p.Wlst @ A + p.blst
            A_LM = z * F.silu(z) + self.c["metric_eps"]
            G = p.alst @ torch.pow(A_LM, p.pwlst) + p.balst
        else:
            A_LM, G = gc
        E = (q @ G) @ k.transpose(-1, -2) / math.sqrt(dk)
        if mask is not None:
            E = E + mask * -1e9
        heads_out = torch.softmax(E, dim=-1) @ v
        out = self.dense(heads_out.transpose(1, 2).reshape(B, S, d))
        return out, (k, v, A), (A_LM, G)


class DecLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["d_model"]
        self.mha1 = MHA(c)
        self.ffn = GLU(d, c["dff"], d)
        self.layernorm1 = nn.LayerNorm(d, eps=c["ln_eps"])
        self.layernorm2 = nn.LayerNorm(d, eps=c["ln_eps"])

    def forward(self, x, mask, kv=None, gc=None):
        y, kv, gc = self.mha1(x, mask, kv, gc)
        x1 = self.layernorm1(x + y)
        return self.layernorm2(x1 + self.ffn(x1)), kv, gc


class Decoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embedding = nn.Embedding(c["vocab_size"], c["d_model"])
        self.dec_layers = nn.ModuleList([DecLayer(c) for _ in range(c["num_layers"])])
        self.layernorm1 = nn.LayerNorm(c["d_model"], eps=c["ln_eps"])


class PeerModel(nn.Module):
    """PLDR-LLM v510 in float64.  ``forward(tokens, kvcache=None, gcache=None)`` returns
    (logits, kvcache, gcache); caches are lists over layers of tuples, the KV-cache as
    (K̂ [B,H,T,dk], V [B,H,T,dk], A) -- note: head-major, unlike pyref's [B,T,H,dk]."""

    def __init__(self, c: dict):
        super().__init__()
        self.c = dict(c)
        self.decoder = Decoder(self.c)
        self.final_layer = nn.Linear(c["d_model"], c["vocab_size"])
        self.double()

    @torch.no_grad()
    def forward(self, tokens, kvcache=None, gcache=None):
        tok = torch.as_tensor(tokens, dtype=torch.long)
        B, S = tok.shape
        if kvcache is None:
            causal = 1.0 - torch.tril(torch.ones(S, S, dtype=torch.float64))
            pad = (tok == 0).to(torch.float64)[:, None, None, :]
            mask = torch.maximum(causal[None, None], pad)
        else:
            mask = None
        x = self.decoder.embedding(tok) * math.sqrt(self.c["d_model"])
        x = self.decoder.layernorm1(x)
        new_kv, new_gc = [], []
        for li, layer in enumerate(self.decoder.dec_layers):
            x, kv, gc = layer(x, mask, None if kvcache is None else kvcache[li],
                              None if gcache is None else gcache[li])
            new_kv.append(kv)
            new_gc.append(gc)
        return self.final_layer(x), new_kv, new_gc


def peer_from_state_dict(state_dict, config) -> PeerModel:
    """Build a PeerModel for a pyref ``PLDRConfig`` (or dict) from numpy/torch arrays."""
    c = config.to_dict() if hasattr(config, "to_dict") else dict(config)
    m = PeerModel(c)
    sd = {k: torch.as_tensor(v, dtype=torch.float64) for k, v in state_dict.items()}
    m.load_state_dict(sd, strict=True)
    return m.eval()


def peer_state_dict_numpy(model: PeerModel) -> dict:
    """Export the peer's ``state_dict()`` as float64 numpy arrays."""
    return {k: v.detach().cpu().numpy().astype("float64") for k, v in model.state_dict().items()}
