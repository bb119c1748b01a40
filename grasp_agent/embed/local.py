"""The offline embedder: a packaged sentence-transformers model run on ONNX Runtime (default) or numpy (no torch)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
from tqdm import tqdm

from grasp_agent.config import default_models_cache_dir
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.packaged_models import MINILM, MPNET, packaged_model_dir
from grasp_agent.embed.sentence_encoder import Progress, TextEncoder, load_sentence_encoder
from grasp_agent.errors import EmbeddingError

LOCAL_MODELS = (MINILM, MPNET)
EmbedBackend = Literal["onnx", "onnx-int8", "numpy"]
EMBED_BACKENDS: tuple[EmbedBackend, ...] = ("onnx", "onnx-int8", "numpy")


def load_encoder(model_dir: Path, backend: EmbedBackend, models_cache_dir: Path | None) -> TextEncoder:
    """The encoder of `model_dir` on `backend`; the ONNX ones build their graph into the models cache once."""
    if backend == "numpy":
        return load_sentence_encoder(model_dir)
    if backend not in EMBED_BACKENDS:
        raise EmbeddingError(f"embedding backend {backend!r} is not available; allowed: {list(EMBED_BACKENDS)}")
    from grasp_agent.embed.onnx_encoder import load_onnx_encoder

    return load_onnx_encoder(
        model_dir, "int8" if backend == "onnx-int8" else "fp32", models_cache_dir or default_models_cache_dir()
    )


class LocalEmbedder(GraspEmbedder):
    """all-MiniLM-L6-v2 (384 dims) or all-mpnet-base-v2 (768 dims) on the CPU.

    `backend`: "onnx" (ONNX Runtime, fp32; the default: about 2x the numpy encoder's speed, same vectors to
    float32 rounding, so both share a `model_id`), "onnx-int8" (int8 weights: faster, vectors at cosine ~0.99
    of fp32, own `model_id`), or "numpy" (no dependency beyond numpy).
    `max_tokens` (special tokens included) defaults to the model's own max_seq_length (256 for MiniLM,
    384 for MPNet) and may go up to 512, what the position embeddings cover. For a different limit on some
    texts (say 64 for entity names) take `with_max_tokens(64)`: a sibling sharing the loaded weights, with its
    own `model_id`, so cached vectors of different truncations never mix.
    """

    def __init__(
        self,
        model: str = MINILM,
        *,
        batch_size: int = 32,
        max_tokens: int | None = None,
        show_progress: bool = False,
        models_cache_dir: Path | None = None,
        model_dir: Path | None = None,
        backend: EmbedBackend = "onnx",
    ) -> None:
        """`model_dir` runs any compatible sentence-transformers directory instead of a packaged model;
        `model` then only names it in `model_id` (the cache namespace), so give each directory its own name."""
        super().__init__()
        if model_dir is None and model not in LOCAL_MODELS:
            raise EmbeddingError(f"local model {model!r} is not available; allowed: {list(LOCAL_MODELS)}")
        if batch_size < 1:
            raise EmbeddingError(f"batch_size {batch_size} is not allowed; allowed: >= 1")
        directory = model_dir if model_dir is not None else packaged_model_dir(model, models_cache_dir)
        self._encoder: TextEncoder = load_encoder(directory, backend, models_cache_dir)
        self._backend = backend
        self._name = model
        self._batch_size = batch_size
        self._show_progress = show_progress
        self._max_tokens = self._encoder.check_max_tokens(
            max_tokens if max_tokens is not None else self._encoder.spec.max_seq_length
        )

    @property
    def model_id(self) -> str:
        # int8 vectors differ from fp32 ones beyond rounding, so they must never share a cache namespace.
        quantized = "+int8" if self._backend == "onnx-int8" else ""
        return f"local:{self._name}{quantized}:max{self._max_tokens}"

    @property
    def dimension(self) -> int:
        return self._encoder.dimension

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def with_max_tokens(self, max_tokens: int) -> LocalEmbedder:
        sibling = copy.copy(self)
        sibling._max_tokens = self._encoder.check_max_tokens(max_tokens)
        return sibling

    def count_tokens(self, text: str) -> int:
        """Tokens before truncation, [CLS]/[SEP] included; above `max_tokens` means the text gets cut."""
        return self._encoder.tokenizer.count(text)

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise EmbeddingError("embed_texts takes a sequence of texts, got one str; use embed_query for one text")
        if not self._show_progress or len(texts) <= self._batch_size:
            return self._encode(texts, None)
        with tqdm(total=len(texts), desc=f"embedding ({self._name})", unit="text") as bar:
            return self._encode(texts, bar.update)

    def _encode(self, texts: Sequence[str], progress: Progress | None) -> np.ndarray:
        return self._encoder.encode(texts, max_tokens=self._max_tokens, batch_size=self._batch_size, progress=progress)
