"""A sentence-transformers `CrossEncoder` loaded from a local directory (the `train` extra; never downloads).

The model reads query and document together and returns one relevance score per pair. Only single-output
models are accepted (the usual MS MARCO / BGE reranker heads); the score is whatever the model's activation
gives (a sigmoid probability for most), which only has to order documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from grasp_agent.optional_imports import require
from grasp_agent.rerank.base import Reranker, RerankError, check_scores

INSTALL_HINT = "pip install 'grasp-agent[train]' (the [train] extra installs torch and sentence-transformers)"


def _import_sentence_transformers() -> Any:
    return require(
        "sentence_transformers",
        need="the cross-encoder reranker needs sentence-transformers",
        hint=INSTALL_HINT,
        error_type=RerankError,
    )


class CrossEncoderReranker(Reranker):
    """A CrossEncoder from `model_path`, a directory saved by `CrossEncoder.save_pretrained` (or a Hub snapshot)."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        batch_size: int = 32,
        max_length: int | None = None,
        device: str | None = None,
    ) -> None:
        """`max_length` caps query + document tokens (default: the model's own); `device` e.g. 'cpu', 'cuda'."""
        path = Path(model_path).expanduser()
        if not path.is_dir():
            raise RerankError(
                f"cross-encoder path {str(path)!r} is not an existing directory; allowed: a local "
                "CrossEncoder model directory (models are never downloaded)"
            )
        if batch_size < 1 or (max_length is not None and max_length < 1):
            raise RerankError(
                f"batch_size {batch_size}, max_length {max_length} refused; "
                "allowed: batch_size >= 1, max_length >= 1 or None"
            )
        sentence_transformers = _import_sentence_transformers()
        try:
            self._model = sentence_transformers.CrossEncoder(
                str(path), max_length=max_length, device=device, local_files_only=True
            )
        except (OSError, ValueError, RuntimeError) as exc:
            raise RerankError(
                f"sentence-transformers could not load a CrossEncoder from {str(path)!r}: {type(exc).__name__}: {exc}"
            ) from exc
        labels = getattr(self._model, "num_labels", 1)
        if labels != 1:
            raise RerankError(f"cross-encoder {str(path)!r} has {labels} output labels; allowed: 1 (a relevance score)")
        self._path = path
        self._batch_size = batch_size
        self._max_length = max_length

    @property
    def model_id(self) -> str:
        return f"cross-encoder:{self._path.name}:max{self._max_length or 'model'}"

    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        if not docs:
            return []
        pairs = [(query, document) for document in docs]
        scores = self._model.predict(pairs, batch_size=self._batch_size, show_progress_bar=False, convert_to_numpy=True)
        return check_scores(np.asarray(scores, dtype=np.float64).reshape(-1).tolist(), len(docs), self.model_id)


__all__ = ["INSTALL_HINT", "CrossEncoderReranker"]
