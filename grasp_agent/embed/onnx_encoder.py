"""The sentence encoder on ONNX Runtime: the graph of `onnx_graph`, fp32 or dynamically quantised to int8.

The .onnx file is written once per model, precision and builder version into the models cache (atomically:
a temporary file renamed into place) and loaded from there afterwards. fp32 matches the numpy encoder to
float32 rounding (about 2e-7), so both share one `model_id` and one vector cache; int8 changes vectors (cosine
~0.99 to fp32) and so gets its own id. Texts are batched by token length and padded to the batch's longest;
the attention mask keeps padding out of every sum.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from grasp_agent.embed.bert_numpy import load_encoder_weights
from grasp_agent.embed.model_spec import SentenceModelSpec, read_model_spec
from grasp_agent.embed.numpy_ops import F32
from grasp_agent.embed.sentence_encoder import Progress, checked_max_tokens, tokenized_by_length
from grasp_agent.embed.text_tokenizer import TextTokenizer, load_tokenizer
from grasp_agent.errors import EmbeddingError
from grasp_agent.optional_imports import require

Precision = Literal["fp32", "int8"]
# Bump when build_sentence_graph or the quantisation settings change: cached files of older builds are ignored.
GRAPH_VERSION = 1
# Padded tokens per run: long texts go in small batches, short ones in large, so little work is padding
# (measured on HPO documents: 8 x 256 runs ~10% faster than 32 x 256).
BATCH_TOKENS = 2048


def _ort() -> Any:
    # a core dependency; missing only in a broken or hand-made environment
    return require(
        "onnxruntime",
        need="the onnx embedding backend needs onnxruntime and onnx",
        hint="pip install onnxruntime onnx, or set GRASP_EMBED_BACKEND=numpy",
        error_type=EmbeddingError,
    )


def _weights_digest(spec: SentenceModelSpec) -> str:
    digest = hashlib.sha256()
    with spec.weights_path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    digest.update(spec.tokenizer_path.read_bytes())
    return digest.hexdigest()[:16]


def onnx_model_path(spec: SentenceModelSpec, precision: Precision, cache_dir: Path) -> Path:
    """Where the built graph of this model directory lives (content-addressed, so a changed model rebuilds)."""
    return cache_dir / "onnx" / f"{spec.model_dir.name}-{precision}-v{GRAPH_VERSION}-{_weights_digest(spec)}.onnx"


def _write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    os.close(handle)
    try:
        write(Path(temporary))
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)


def build_onnx_model(spec: SentenceModelSpec, precision: Precision, path: Path) -> None:
    """Writes the fp32 graph, or its int8 version (per-channel weights of every MatMul; activations quantised
    per batch at run time; attention stays fp32, which measured far closer to fp32 vectors than quantising it)."""
    import onnx

    from grasp_agent.embed.onnx_graph import build_sentence_graph

    model = build_sentence_graph(load_encoder_weights(spec.weights_path, spec.encoder))
    if precision == "fp32":
        _write_atomically(path, lambda target: onnx.save(model, str(target)))
        return
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "fp32.onnx"
        onnx.save(model, str(source))
        _write_atomically(
            path,
            lambda target: quantize_dynamic(
                str(source),
                str(target),
                weight_type=QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
                # Shape inference cannot type the outputs of com.microsoft ops; every tensor here is float.
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            ),
        )


@dataclass(frozen=True)
class OnnxSentenceEncoder:
    """Tokenizer + ONNX Runtime session; `InferenceSession.run` is thread-safe, so one instance serves all."""

    spec: SentenceModelSpec
    tokenizer: TextTokenizer
    session: Any  # onnxruntime.InferenceSession
    precision: Precision

    @property
    def dimension(self) -> int:
        return self.spec.encoder.hidden_size

    def check_max_tokens(self, max_tokens: int) -> int:
        return checked_max_tokens(max_tokens, self.tokenizer, self.spec)

    def encode(
        self, texts: Sequence[str], *, max_tokens: int, batch_size: int, progress: Progress | None = None
    ) -> np.ndarray:
        """Unit vectors (len(texts), dimension), float32; batches hold texts of similar token length."""
        token_ids, order = tokenized_by_length(self, texts, max_tokens, batch_size)
        vectors = np.empty((len(token_ids), self.dimension), dtype=F32)
        for batch in length_batches([len(token_ids[index]) for index in order], batch_size, BATCH_TOKENS):
            rows = [order[position] for position in batch]
            ids, mask = padded_batch([token_ids[index] for index in rows], self.spec.encoder.pad_token_id)
            vectors[rows] = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            if progress is not None:
                progress(len(rows))
        return vectors


def length_batches(sorted_lengths: Sequence[int], max_texts: int, max_tokens: int) -> list[range]:
    """Consecutive batches of ascending lengths with at most `max_texts` texts and, padded to their longest, at
    most `max_tokens` tokens (a single text longer than that still gets a batch of its own)."""
    batches: list[range] = []
    start = 0
    for end in range(1, len(sorted_lengths) + 1):
        count = end - start
        if count > max_texts or count * sorted_lengths[end - 1] > max_tokens and count > 1:
            batches.append(range(start, end - 1))
            start = end - 1
    if start < len(sorted_lengths):
        batches.append(range(start, len(sorted_lengths)))
    return batches


def padded_batch(sequences: Sequence[np.ndarray], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """(ids, mask), both int64 (batch, longest): sequences left-aligned, the rest pad ids with mask 0."""
    longest = max((len(sequence) for sequence in sequences), default=0)
    ids = np.full((len(sequences), longest), pad_id, dtype=np.int64)
    mask = np.zeros((len(sequences), longest), dtype=np.int64)
    for row, sequence in enumerate(sequences):
        ids[row, : len(sequence)] = sequence
        mask[row, : len(sequence)] = 1
    return ids, mask


def load_onnx_encoder(
    model_dir: Path, precision: Precision, cache_dir: Path, threads: int | None = None
) -> OnnxSentenceEncoder:
    """Reads the model directory, builds its ONNX graph into `cache_dir` on first use, opens a CPU session."""
    ort = _ort()
    spec = read_model_spec(model_dir)
    path = onnx_model_path(spec, precision, cache_dir)
    if not path.is_file():
        try:
            build_onnx_model(spec, precision, path)
        except OSError as exc:
            raise EmbeddingError(f"could not write the ONNX model {path}: {exc}") from exc
    options = ort.SessionOptions()
    options.log_severity_level = 3  # shape-merge notices about com.microsoft outputs are noise
    if threads is not None:
        options.intra_op_num_threads = threads
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own Fail/InvalidGraph types
        raise EmbeddingError(f"ONNX model {path} could not be loaded ({exc}); delete it to rebuild") from exc
    return OnnxSentenceEncoder(
        spec=spec,
        tokenizer=load_tokenizer(spec.tokenizer_path, lowercase=spec.do_lower_case),
        session=session,
        precision=precision,
    )
