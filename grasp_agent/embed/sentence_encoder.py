"""A sentence-transformers model (Transformer -> mean Pooling -> Normalize) run in numpy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from grasp_agent.embed.bert_numpy import EncoderWeights, encode_packed, load_encoder_weights
from grasp_agent.embed.model_spec import SentenceModelSpec, read_model_spec
from grasp_agent.embed.numpy_ops import F32, l2_normalize, mean_pool
from grasp_agent.embed.text_tokenizer import TextTokenizer, load_tokenizer
from grasp_agent.errors import EmbeddingError

Progress = Callable[[int], object]
"""Called with the number of texts finished after each batch."""


class TextEncoder(Protocol):
    """What an embedder needs from an encoder backend (numpy here, ONNX Runtime in `onnx_encoder`)."""

    @property
    def spec(self) -> SentenceModelSpec: ...

    @property
    def tokenizer(self) -> TextTokenizer: ...

    @property
    def dimension(self) -> int: ...

    def check_max_tokens(self, max_tokens: int) -> int: ...

    def encode(
        self, texts: Sequence[str], *, max_tokens: int, batch_size: int, progress: Progress | None = None
    ) -> np.ndarray: ...


def checked_max_tokens(max_tokens: int, tokenizer: TextTokenizer, spec: SentenceModelSpec) -> int:
    """`max_tokens` when the model can take it; below special tokens + 1 there is no room for a text token."""
    low = tokenizer.special_tokens + 1
    if not low <= max_tokens <= spec.encoder.max_tokens:
        raise EmbeddingError(
            f"max_tokens {max_tokens} is outside {low}..{spec.encoder.max_tokens} "
            f"(position embeddings of {spec.model_dir.name})"
        )
    return max_tokens


def tokenized_by_length(
    encoder: TextEncoder, texts: Sequence[str], max_tokens: int, batch_size: int
) -> tuple[list[np.ndarray], list[int]]:
    """Checked arguments, each text's token ids, and the text indexes by ascending token count (what every
    backend batches by, so a batch holds texts of similar length)."""
    encoder.check_max_tokens(max_tokens)
    if batch_size < 1:
        raise EmbeddingError(f"batch_size {batch_size} is not allowed; allowed: >= 1")
    token_ids = encoder.tokenizer.encode(texts, max_tokens)
    return token_ids, sorted(range(len(token_ids)), key=lambda index: len(token_ids[index]))


@dataclass(frozen=True)
class SentenceEncoder:
    """Loaded weights and tokenizer; immutable, so one instance serves any number of embedders and threads."""

    spec: SentenceModelSpec
    tokenizer: TextTokenizer
    weights: EncoderWeights

    @property
    def dimension(self) -> int:
        return self.spec.encoder.hidden_size

    @property
    def max_supported_tokens(self) -> int:
        return self.spec.encoder.max_tokens

    def check_max_tokens(self, max_tokens: int) -> int:
        return checked_max_tokens(max_tokens, self.tokenizer, self.spec)

    def encode(
        self, texts: Sequence[str], *, max_tokens: int, batch_size: int, progress: Progress | None = None
    ) -> np.ndarray:
        """Unit vectors (len(texts), dimension), float32; batches hold texts of similar token length."""
        token_ids, order = tokenized_by_length(self, texts, max_tokens, batch_size)
        vectors = np.empty((len(token_ids), self.dimension), dtype=F32)
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            lengths = [len(token_ids[index]) for index in batch]
            hidden = encode_packed(self.weights, np.concatenate([token_ids[index] for index in batch]), lengths)
            vectors[batch] = l2_normalize(mean_pool(hidden, lengths))
            if progress is not None:
                progress(len(batch))
        return vectors


def load_sentence_encoder(model_dir: Path) -> SentenceEncoder:
    """Reads a sentence-transformers directory (config, tokenizer.json, model.safetensors) into memory."""
    spec = read_model_spec(model_dir)
    return SentenceEncoder(
        spec=spec,
        tokenizer=load_tokenizer(spec.tokenizer_path, lowercase=spec.do_lower_case),
        weights=load_encoder_weights(spec.weights_path, spec.encoder),
    )
