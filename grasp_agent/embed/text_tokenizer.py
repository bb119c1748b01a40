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
    pair_special_tokens: int = 3  # [CLS] a [SEP] b [SEP]

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

    def encode_pairs(
        self,
        first: str,
        seconds: Sequence[str],
        max_tokens: int,
        max_first_tokens: int,
    ) -> list[np.ndarray]:
        """Token ids of (first, second) pairs as the tokenizer's pair template joins them ([CLS] a [SEP] b [SEP]),
        at most `max_tokens` each: `first` (a query) keeps up to `max_first_tokens`, each second (a document)
        is cut to the rest, from its end."""
        if max_first_tokens < 1 or max_tokens <= self.pair_special_tokens + max_first_tokens:
            raise EmbeddingError(
                f"max_tokens {max_tokens} with max_first_tokens {max_first_tokens} leaves no room "
                f"for the second text; allowed: max_tokens > {self.pair_special_tokens} + "
                "max_first_tokens, max_first_tokens >= 1"
            )
        head = self.tokenizer.encode(self._prepare(first), add_special_tokens=False)
        if len(head.ids) > max_first_tokens:
            head.truncate(max_first_tokens)
        budget = max_tokens - self.pair_special_tokens - len(head.ids)
        encodings = self.tokenizer.encode_batch([self._prepare(text) for text in seconds], add_special_tokens=False)
        pairs = []
        for encoding in encodings:
            if len(encoding.ids) > budget:
                encoding.truncate(budget)
            pairs.append(np.asarray(self.tokenizer.post_process(head, encoding).ids, dtype=np.int64))
        return pairs

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
        pair_special_tokens=tokenizer.num_special_tokens_to_add(is_pair=True),
    )
