"""Load progress kept in the database itself (a :GraspMeta node), written in the same transaction as the
batch it describes, so an interrupted load resumes exactly where the last committed batch ended."""

from __future__ import annotations

from neo4j import ManagedTransaction, Session
from pydantic import BaseModel, Field

from grasp_agent.cypher_queries import load_statements


class LoadState(BaseModel):
    skb: str
    fingerprint: str
    embedder: str
    # Stamped on every node and edge this load writes (grasp_load); a reload counts up, and what the
    # previous generation wrote but this one did not is removed.
    generation: int = 1
    nodes_done: int = 0
    edges_done: int = 0
    nodes_complete: bool = False
    edges_complete: bool = False
    documents_after: dict[str, str | int | None] = Field(default_factory=dict)  # label -> last id embedded
    documents_complete: list[str] = Field(default_factory=list)
    complete: bool = False

    def matches(self, fingerprint: str, embedder: str) -> bool:
        return self.fingerprint == fingerprint and self.embedder == embedder


SCHEMA_KEY_PREFIX = "schema:"  # the schema stored at load time, one GraspMeta node per SKB


def state_key(skb: str) -> str:
    return f"load:{skb}"


def read_state(session: Session, skb: str) -> LoadState | None:
    records = session.run(load_statements("skb.cypher")["read_meta"], key=state_key(skb)).data()
    if not records:
        return None
    return LoadState.model_validate_json(records[0]["value"])


def write_state(tx: ManagedTransaction, state: LoadState) -> None:
    tx.run(
        load_statements("skb.cypher")["write_meta"], key=state_key(state.skb), value=state.model_dump_json()
    ).consume()


def write_meta(tx: ManagedTransaction, key: str, value: str) -> None:
    tx.run(load_statements("skb.cypher")["write_meta"], key=key, value=value).consume()
