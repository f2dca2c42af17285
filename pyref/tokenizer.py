"""Text prompts: SentencePiece tokenization the way the authors' code and the Hugging Face
port do it (the ``sentencepiece`` package, a project dependency; no network, no
``transformers``).

Two conventions, both documented by their sources:

* ``"authors"`` -- ``pldr_data_prep.tokenize`` + ``generate_text`` (KVG repository): the
  prompt is encoded with ``add_bos=False, add_eos=True`` (torchtune's
  ``SentencePieceBaseTokenizer.encode`` with ``trim_leading_whitespace=False``, i.e. plain
  ``SentencePieceProcessor.encode``), and the trailing EOS is dropped when the encoding has
  more than one token; EOS is ``tokenize('')[0]``, the model's end-of-sequence id. A
  continuation is decoded with ``SentencePieceProcessor.decode``.
* ``"hf"`` -- the Hugging Face port's ``PldrllmTokenizer`` (legacy mode, its default): plain
  ``encode`` with a BOS in front when ``add_bos_token`` (default true) and an EOS at the end
  when ``add_eos_token`` (default false); both flags are read from the folder's
  ``tokenizer_config.json`` when it has one.

Every failure is a ``ValueError`` naming the file.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import sentencepiece

CONVENTIONS = ("authors", "hf")


@dataclass
class Tokenizer:
    """A SentencePiece model and the convention its prompts are encoded with.

    ``path``: the ``.model`` file; ``convention``: ``"authors"`` or ``"hf"``;
    ``add_bos``/``add_eos``: the HF flags (ignored for ``"authors"``)."""

    path: str
    convention: str = "authors"
    add_bos: bool = True
    add_eos: bool = False

    def __post_init__(self):
        if self.convention not in CONVENTIONS:
            raise ValueError(f"tokenizer: convention must be one of {CONVENTIONS}, got "
                             f"{self.convention!r}")
        p = os.fspath(self.path)
        if not os.path.isfile(p):
            raise ValueError(f"tokenizer {p!r}: no such file (expected a SentencePiece .model)")
        proc = sentencepiece.SentencePieceProcessor()
        try:
            proc.Load(p)
        except (OSError, RuntimeError) as exc:   # sentencepiece raises OSError/RuntimeError
            raise ValueError(f"tokenizer {p!r}: not a SentencePiece model "
                             f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
                             ) from None
        self._sp = proc

    @classmethod
    def from_hf_folder(cls, folder) -> "Tokenizer":
        """The ``tokenizer.model`` of a Hugging Face folder, with the BOS/EOS flags of its
        ``tokenizer_config.json`` (the port's defaults when absent)."""
        folder = os.fspath(folder)
        model = os.path.join(folder, "tokenizer.model")
        if not os.path.isfile(model):
            raise ValueError(f"{folder!r}: no tokenizer.model in the folder; pass --tokenizer")
        flags = {"add_bos_token": True, "add_eos_token": False}
        cfg_path = os.path.join(folder, "tokenizer_config.json")
        if os.path.isfile(cfg_path):
            try:
                with open(cfg_path, encoding="utf-8") as f:
                    cfg = json.load(f)
            except (OSError, ValueError) as exc:
                raise ValueError(f"{cfg_path!r}: cannot read it as JSON ({exc})") from None
            for k in flags:
                v = cfg.get(k, flags[k]) if isinstance(cfg, dict) else flags[k]
                if not isinstance(v, bool):
                    raise ValueError(f"{cfg_path!r}: {k} must be true or false, got {v!r}")
                flags[k] = v
        return cls(model, "hf", flags["add_bos_token"], flags["add_eos_token"])

    @property
    def vocab_size(self) -> int:
        return int(self._sp.GetPieceSize())

    @property
    def eos_id(self) -> int:
        """The end-of-sequence id (the authors' ``tokenize('')[0]``)."""
        return int(self._sp.eos_id())

    @property
    def bos_id(self) -> int:
        return int(self._sp.bos_id())

    def encode_prompt(self, text: str) -> list[int]:
        """The token ids the model is given for the prompt ``text`` (see the module doc)."""
        if not isinstance(text, str):
            raise ValueError(f"prompt text must be a str, got {type(text).__name__}")
        ids = [int(i) for i in self._sp.encode(text, out_type=int)]
        if self.convention == "authors":
            ids.append(self.eos_id)
            return ids[:-1] if len(ids) > 1 else ids
        return [self.bos_id] * self.add_bos + ids + [self.eos_id] * self.add_eos

    def decode(self, ids) -> str:
        """The text of the ids (SentencePiece ``decode``; special ids decode to nothing). An id
        the tokenizer does not have (a model vocabulary larger than the tokenizer's, as in
        small test models) is shown as ``⟨id⟩`` between the decoded runs of valid ids."""
        out, run, n = [], [], self.vocab_size
        for i in (int(x) for x in ids):
            if 0 <= i < n:
                run.append(i)
                continue
            out.append(str(self._sp.decode(run)) if run else "")
            out.append(f"⟨{i}⟩")
            run = []
        out.append(str(self._sp.decode(run)) if run else "")
        return "".join(out)

    def describe(self) -> str:
        """One line for reports: file, convention and the special ids."""
        conv = ("authors' generate_text: add_bos=False, add_eos=True, trailing EOS dropped"
                if self.convention == "authors" else
                f"HF PldrllmTokenizer: add_bos={self.add_bos}, add_eos={self.add_eos}")
        return (f"{os.path.basename(self.path)} (SentencePiece, {self.vocab_size} pieces, "
                f"bos={self.bos_id}, eos={self.eos_id}; {conv})")
