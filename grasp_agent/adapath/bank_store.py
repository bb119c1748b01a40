"""The Path-Bank in the SKB's own database, under labels no SKB schema declares.

(:AdaPathBank {skb, fingerprint, embedder, config}) says which load and embedder the bank was built for; a
bank of another load is refused unless rebuilt. (:AdaPathQuery {id, text, topic_ids, answer_ids, embedding})
holds each training query (and `written`, when it was stored: the vector index's approximate neighbours
depend on that order), with a vector index on the embedding so retrieval is one vector query;
(:AdaPathQuery)-[:ADAPATH_USES {cost, paths}]->(:AdaPathMetaPath {signature, hops, labels, relations,
outgoing, support}) links it to the meta-paths its paths followed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from neo4j import Driver

from grasp_agent.adapath.bank_build import BankConfig, QueryPaths
from grasp_agent.adapath.metapath import MetaPath
from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.errors import GraspError


@dataclass(frozen=True)
class BankIdentity:
    skb: str
    fingerprint: str
    embedder: str


def meta_path_rows(found: QueryPaths) -> list[dict[str, Any]]:
    """Per distinct meta-path of the query: its description, the cheapest cost and how many paths used it."""
    rows: dict[MetaPath, dict[str, Any]] = {}
    for path in sorted(found.paths, key=lambda item: item.cost):
        meta = path.meta_path
        if meta in rows:
            rows[meta]["paths"] += 1
            continue
        rows[meta] = {
            "signature": meta.signature,
            "hops": meta.hops,
            "startLabel": meta.start_label,
            "answerLabel": meta.answer_label,
            **meta.as_lists(),
            "cost": path.cost,
            "paths": 1,
        }
    return list(rows.values())


class BankStore:
    def __init__(self, driver: Driver, database: str) -> None:
        self._run = AdaPathCypher(driver, database).run

    def identity(self) -> BankIdentity | None:
        rows = self._run("read_bank")
        if len(rows) > 1:
            raise GraspError(
                f"the database holds {len(rows)} Path-Banks ({[row['skb'] for row in rows]}); "
                "rebuild with --force to keep one"
            )
        return BankIdentity(**rows[0]) if rows else None

    def claim(self, identity: BankIdentity, config: BankConfig, dimension: int, rebuild: bool) -> None:
        """Make the database's bank this load's: refuse another load's bank unless `rebuild` (which clears it)."""
        stored = self.identity()
        if rebuild:
            self._run("clear_bank")
        elif stored is not None and stored != identity:
            raise GraspError(
                f"the Path-Bank here was built for {stored}, not for the loaded {identity}; "
                "rebuild it (--force) to replace it"
            )
        for name in ("bank_query_constraint", "bank_metapath_constraint"):
            self._run(name)
        self._run("bank_vector_index", dimension=dimension)
        self._run(
            "claim_bank",
            skb=identity.skb,
            fingerprint=identity.fingerprint,
            embedder=identity.embedder,
            config=json.dumps(asdict(config), sort_keys=True),
        )

    def stored_query_ids(self) -> set[str]:
        return {str(row["id"]) for row in self._run("stored_query_ids")}

    def write(self, query_id: str, found: QueryPaths, vector: Sequence[float]) -> int:
        rows = self._run(
            "write_query",
            id=query_id,
            text=found.query.text,
            topicIds=[str(node) for node in found.query.topic_ids],
            answerIds=[str(node) for node in found.query.answer_ids],
            corridorNodes=found.corridor_nodes,
            pathCount=len(found.paths),
            written=time.time_ns(),  # the write order, which an import of the bank replays (bank_transfer.py)
            vector=list(vector),
            metaPaths=meta_path_rows(found),
        )
        return int(rows[0]["written"]) if rows else 0

    def refresh_support(self) -> tuple[int, int]:
        rows = self._run("refresh_support")
        return (int(rows[0]["metaPaths"]), int(rows[0]["uses"] or 0)) if rows else (0, 0)
