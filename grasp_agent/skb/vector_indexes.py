"""Per node type, one cosine vector index over names and one over documents, created after the bulk load."""

from __future__ import annotations

import time

from neo4j import Session
from tqdm import tqdm

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.errors import GraspError
from grasp_agent.skb.schema import SkbSchema

EMBEDDING_PROPERTIES = {"name": "name_embedding", "doc": "doc_embedding"}


def index_name(label: str, kind: str) -> str:
    """e.g. ('Phenotype', 'name') -> 'grasp_phenotype_name'; the linking and rescoring code use the same rule."""
    return f"grasp_{label.lower()}_{kind}"


def create_vector_indexes(session: Session, schema: SkbSchema, dimension: int) -> list[str]:
    template = load_statements("skb.cypher")["vector_index"]
    # Quantization (on by default since 5.23) skews scores by several hundredths; linking thresholds
    # (tau x best cosine) need the exact values, and our stores are small enough to keep full floats.
    options = {
        "indexConfig": {
            "vector.dimensions": dimension,
            "vector.similarity_function": "cosine",
            "vector.quantization.enabled": False,
        }
    }
    names = []
    for node_type in schema.node_types:
        for kind, prop in EMBEDDING_PROPERTIES.items():
            name = index_name(node_type.label, kind)
            session.run(
                fill_identifiers(template, label=node_type.label, property=prop), name=name, options=options
            ).consume()
            names.append(name)
    return names


def wait_until_online(session: Session, names: list[str], timeout_s: float = 1800.0, progress: bool = True) -> None:
    """Polls population so a long build shows progress; a FAILED index or a timeout is an error."""
    query = load_statements("skb.cypher")["index_states"]
    deadline = time.monotonic() + timeout_s
    with tqdm(total=100.0 * len(names), desc="vector indexes", unit="%", disable=not progress) as bar:
        while True:
            rows = session.run(query, names=names).data()
            failed = [row["name"] for row in rows if row["state"] == "FAILED"]
            if failed:
                raise GraspError(f"vector index population failed for {failed}; see `grasp db logs`")
            done = sum(float(row["populationPercent"]) for row in rows)
            bar.update(done - bar.n)
            if len(rows) == len(names) and all(row["state"] == "ONLINE" for row in rows):
                return
            if time.monotonic() > deadline:
                raise GraspError(f"vector indexes {names} not ONLINE after {timeout_s:.0f} s: {rows}")
            time.sleep(1.0)
