"""Text -> token ids with the model's own HF tokenizer.json, truncated as sentence-transformers does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Encoding, Tokenizer

from grasp_agent.errors import EmbeddingError


@dataclass(frozen=True)
class TextTokenizer:
    """Wraps a `tokenizers.Tokenizer` whose own truncation and padding are switched off.

    Truncation is applied per call instead (so one loaded tokenizer serves several max-token limits without
    shared mutable state), and the encoder packs sequences itself, so padding is never wanted.
    """

    tokenizer: Tokenizer
    special_tokens: int
    lowercase: bool

    def _prepare(self, text: str) -> str:
        # sentence-transformers strips every input (and lowercases only when sentence_bert_config says so).
        stripped = text.strip()
        return stripped.lower() if self.lowercase else stripped

    def _finish(self, encoding: Encoding, max_tokens: int) -> np.ndarray:
        # Same as the tokenizer's own truncation: cut the text's tokens, then add [CLS]/[SEP] (or <s>/</s>).
        budget = max_tokens - self.special_tokens
        if len(encoding.ids) > budget:
            encoding.truncate(budget)
        return np.asarray(self.tokenizer.post_process(encoding).ids, dtype=np.int64)

    def encode(self, texts: Sequence[str], max_tokens: int) -> list[np.ndarray]:
        """Token ids per text, special tokens included, at most `max_tokens` each."""
        if max_tokens <= self.special_tokens:
            raise EmbeddingError(f"max_tokens {max_tokens} leaves no room for text; allowed: > {self.special_tokens}")
        encodings = self.tokenizer.encode_batch([self._prepare(text) for text in texts], add_special_tokens=False)
        return [self._finish(encoding, max_tokens) for encoding in encodings]

    def count(self, text: str) -> int:
        """Tokens of `text` before truncation, special tokens included (so callers can see what gets cut)."""
        return len(self.tokenizer.encode(self._prepare(text)).ids)


def load_tokenizer(path: Path, lowercase: bool = False) -> TextTokenizer:
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # the Rust side raises plain Exception subclasses
        raise EmbeddingError(f"tokenizer {path} could not be loaded: {exc}") from exc
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return TextTokenizer(
        tokenizer=tokenizer,
        special_tokens=tokenizer.num_special_tokens_to_add(is_pair=False),
        lowercase=lowercase,
    )
