"""Builds the Path-Bank from a query file's training queries: paths per query (bank_build), stored (bank_store).

Resumable: queries already in the bank are skipped, so an interrupted build continues where it stopped.
Queries without topic ids or answers in the SKB are counted and skipped, never guessed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from neo4j import Driver
from tqdm import tqdm

from grasp_agent.adapath.bank_build import BankConfig, BankQuery, PathBankBuilder
from grasp_agent.adapath.bank_store import BankIdentity, BankStore
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.skb.schema import SkbSchema


class TrainingQuery(Protocol):
    """What a bank is built from (an `EvalQuery` of a query file is one)."""

    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def topic_ids(self) -> tuple[str, ...]: ...

    @property
    def answer_ids(self) -> tuple[str, ...]: ...


@dataclass
class BankBuildSummary:
    queries: int = 0  # asked for
    built: int = 0  # searched and stored now
    already_stored: int = 0
    without_topic: int = 0
    without_paths: int = 0
    meta_paths: int = 0  # distinct meta-paths in the bank afterwards
    uses: int = 0  # query -> meta-path links
    seconds_per_query: list[float] = field(default_factory=list)

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds_per_query) if self.seconds_per_query else 0.0

    @property
    def p95_seconds(self) -> float:
        times = sorted(self.seconds_per_query)
        return times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0


def build_bank(
    driver: Driver,
    database: str,
    schema: SkbSchema,
    fingerprint: str,
    embedder: GraspEmbedder,
    queries: Sequence[TrainingQuery],
    config: BankConfig = BankConfig(),
    *,
    rebuild: bool = False,
    progress: bool = True,
) -> BankBuildSummary:
    store = BankStore(driver, database)
    store.claim(BankIdentity(schema.name, fingerprint, embedder.model_id), config, embedder.dimension, rebuild)
    done = store.stored_query_ids()
    summary = BankBuildSummary(queries=len(queries))
    todo = []
    for query in queries:
        if query.id in done:
            summary.already_stored += 1
        elif not query.topic_ids:
            summary.without_topic += 1
        else:
            todo.append(query)
    with (
        PathBankBuilder(driver, database, schema, embedder, config) as builder,
        tqdm(total=len(todo), desc="Path-Bank", unit="query", disable=not progress) as bar,
    ):
        for query in todo:
            started = time.perf_counter()
            found = builder.paths_for(BankQuery(query.text, query.topic_ids, query.answer_ids))
            store.write(query.id, found, found.query_vector or embedder.embed_query(query.text))
            summary.seconds_per_query.append(time.perf_counter() - started)
            summary.built += 1
            summary.without_paths += not found.paths
            bar.update(1)
    summary.meta_paths, summary.uses = store.refresh_support()
    return summary
