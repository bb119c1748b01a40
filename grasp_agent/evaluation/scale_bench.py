"""`grasp bench scale`: how load, store, plan execution and the text branch grow with the SKB's size.

For each scale: generate a synthetic SKB with a measured shape (grasp_agent/skb/synthetic.py), start a fresh
local Neo4j instance for it alone, load it with the generic loader and the hashing stand-in embedder (the
point is the database and retrieval curves, not embedding speed or quality), measure, stop the instance and
delete its folder unless asked to keep it. Results are plain dataclasses, written as JSON and plotted log-log.
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.db.memory import total_memory_bytes
from grasp_agent.db.runtime import ensure_runtime
from grasp_agent.db.server import LocalServer
from grasp_agent.db.store_size import store_size
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.cache import CachedEmbedder
from grasp_agent.errors import ConfigError
from grasp_agent.evaluation.hashing_embedder import HashingEmbedder
from grasp_agent.evaluation.scale_probes import (
    MIB,
    Latency,
    PlanTimings,
    heap_used_mib,
    text_queries,
    time_plans,
    time_text_branch,
)
from grasp_agent.process_memory import peak_rss_mib
from grasp_agent.skb.loader import LoadOptions, load_skb
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.skb.synthetic import generate_skb, node_id
from grasp_agent.skb.synthetic_shape import SkbShape
from grasp_agent.text_branch.from_database import open_text_branch

BOLT_PORT, HTTP_PORT = 17787, 17574  # away from the default instance's 7687/7474
STAND_IN_TOKENS = 256  # documents cut where MiniLM (the default model) cuts them
# Building the text branch holds every node's stored name and document vectors (float32) and the dense field
# matrices it builds from them, plus its texts; beyond a share of the free memory the build would swap or die.
TEXT_BYTES_PER_NODE = 2 * 2 * 384 * 4 + 6_000
TEXT_MEMORY_SHARE = 0.7


@dataclass(frozen=True)
class ScaleOptions:
    work_dir: Path
    seed: int = 0
    plans_per_hop: int = 30
    hop_counts: tuple[int, ...] = (1, 2, 3)
    text_queries: int = 30
    keep: bool = False
    progress: bool = True


@dataclass
class ScaleResult:
    scale: float
    embedder: str
    nodes: int = 0
    edges: int = 0
    nodes_by_label: dict[str, int] = field(default_factory=dict)
    edges_by_triple: dict[str, int] = field(default_factory=dict)
    generate_seconds: float = 0.0
    load_seconds: dict[str, float] = field(default_factory=dict)  # per loader stage
    store_mib: float = 0.0  # database files
    tx_log_mib: float = 0.0  # transaction logs (preallocated by Neo4j)
    plans: list[PlanTimings] = field(default_factory=list)
    text_index_seconds: float | None = None
    text: Latency | None = None
    text_note: str = ""  # why the text branch was not measured, when it was not
    python_peak_rss_mib: float = 0.0  # peak of this process so far (scales run in ascending order)
    heap_used_mib_after_load: float = math.nan
    heap_used_mib_after_queries: float = math.nan

    @property
    def load_total_seconds(self) -> float:
        return sum(self.load_seconds.values())


def scale_tag(scale: float) -> str:
    """An instance-name-safe form of a scale: 0.02 -> 0p02, 30 -> 30."""
    return f"{scale:g}".replace(".", "p").replace("+", "").replace("-", "m")


def parse_scales(text: str) -> list[float]:
    try:
        scales = [float(part) for part in text.split(",") if part.strip()]
    except ValueError as error:
        raise ConfigError(f"scales must be comma-separated numbers such as 1,10,30; got {text!r}") from error
    bad = [scale for scale in scales if not (scale > 0 and math.isfinite(scale))]
    if not scales or bad:
        raise ConfigError(f"scales must be positive numbers (1 = the measured size); got {text!r}")
    return sorted(set(scales))


def bench_settings(base: Settings, folder: Path, scale: float) -> Settings:
    """The base settings with a private instance, ports and index folders under `folder`."""
    return base.model_copy(
        update={
            "instance": f"scale-{scale_tag(scale)}",
            "instances_dir": folder / "instances",
            "neo4j_uri": None,
            "neo4j_database": "neo4j",
            "bolt_port": BOLT_PORT,
            "http_port": HTTP_PORT,
            "text_index_dir": folder / "text_index",
            "dense_index_dir": folder / "dense_index",
            "field_weights_dir": folder / "field_weights",
        }
    )


@contextmanager
def dedicated_instance(settings: Settings) -> Iterator[None]:
    """A fresh server for `settings.instance`: a leftover folder from a kept run is started over."""
    server = LocalServer(settings)
    server.stop()  # a kept run's server, if any; a no-op otherwise
    shutil.rmtree(settings.instance_dir, ignore_errors=True)
    ensure_runtime(settings)
    server.start()
    try:
        yield
    finally:
        server.stop()


def available_memory_bytes() -> int:
    """MemAvailable from /proc/meminfo (what can be allocated without swapping); total memory elsewhere."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return total_memory_bytes()


def run_scale(shape: SkbShape, scale: float, base: Settings, options: ScaleOptions) -> ScaleResult:
    folder = options.work_dir / f"scale-{scale_tag(scale)}"
    shutil.rmtree(folder, ignore_errors=True)
    generated = generate_skb(shape, scale, options.seed, folder / "skb", progress=options.progress)
    # Behind the vector cache as in production, so the text branch reuses the vectors the load stored.
    embedder = CachedEmbedder(HashingEmbedder(max_tokens=STAND_IN_TOKENS), folder / "embeddings.sqlite")
    result = ScaleResult(
        scale, f"{embedder.model_id} (stand-in: feature hashing, no semantics)", generate_seconds=generated.seconds
    )
    settings = bench_settings(base, folder, scale)
    database = settings.neo4j_database
    try:
        with dedicated_instance(settings), open_driver(settings) as driver:
            summary = load_skb(driver, database, generated.source(), embedder, LoadOptions(progress=options.progress))
            result.load_seconds = dict(summary.stage_seconds)
            result.nodes_by_label, result.edges_by_triple = summary.nodes, summary.edges
            result.nodes, result.edges = sum(summary.nodes.values()), sum(summary.edges.values())
            size = store_size(settings)
            result.store_mib, result.tx_log_mib = size.database_bytes / MIB, size.transaction_log_bytes / MIB
            result.heap_used_mib_after_load = heap_used_mib(driver, database)
            schema = generated.source().schema()
            result.plans = [
                time_plans(
                    driver,
                    database,
                    schema,
                    embedder,
                    generated.nodes,
                    node_id,
                    hops,
                    options.plans_per_hop,
                    options.seed,
                )
                for hops in options.hop_counts
            ]
            _measure_text_branch(driver, settings, embedder, schema, result, options)
            result.heap_used_mib_after_queries = heap_used_mib(driver, database)
    finally:
        embedder.close()
        result.python_peak_rss_mib = peak_rss_mib()
        if not options.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return result


def _measure_text_branch(
    driver: Driver,
    settings: Settings,
    embedder: GraspEmbedder,
    schema: SkbSchema,
    result: ScaleResult,
    options: ScaleOptions,
) -> None:
    needed, free = result.nodes * TEXT_BYTES_PER_NODE, available_memory_bytes()
    if needed > TEXT_MEMORY_SHARE * free:
        result.text_note = (
            f"not built: the index build holds every node's stored vectors in Python, about "
            f"{needed / 2**30:.1f} GiB for {result.nodes:,} nodes, over {TEXT_MEMORY_SHARE:.0%} of "
            f"the {free / 2**30:.1f} GiB available"
        )
        return
    started = time.monotonic()
    branch = open_text_branch(driver, settings, embedder, schema, progress=options.progress)
    result.text_index_seconds = time.monotonic() - started
    queries = text_queries(driver, settings.neo4j_database, branch, options.text_queries, options.seed)
    result.text = time_text_branch(branch, queries)


def run_scale_bench(
    shape: SkbShape, scales: Sequence[float], base: Settings, options: ScaleOptions
) -> list[ScaleResult]:
    """One result per scale, smallest first (the Python peak RSS is cumulative, so ascending order keeps it
    meaningful)."""
    if not scales or any(not (scale > 0 and math.isfinite(scale)) for scale in scales):
        raise ConfigError(f"scales must be positive numbers; got {list(scales)}")
    return [run_scale(shape, scale, base, options) for scale in sorted(scales)]
