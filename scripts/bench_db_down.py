"""How fast searches come back when Neo4j goes away, and when it returns (issue #16's numbers).

Run from the repository root against the running default instance with an SKB loaded (`make demo` or
`grasp db start && grasp load hpo`):

    .venv/bin/python scripts/bench_db_down.py

The pipeline reaches the server through a local TCP proxy (tests/tcp_proxy.py); stopping the proxy is the
server going away for it, without touching the server. Prints the seconds of two searches with the server
up, three with it gone, and the first after it is back.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for tests.tcp_proxy

from grasp_agent.api import Grasp  # noqa: E402
from grasp_agent.config import Settings  # noqa: E402
from grasp_agent.db.credentials import read_password_file  # noqa: E402
from grasp_agent.embed.factory import make_embedder  # noqa: E402
from grasp_agent.pipeline.parts import assemble_parts  # noqa: E402
from tests.tcp_proxy import TcpProxy  # noqa: E402

UP = ["Which diseases present with infantile spasms?", "genes associated with Dravet syndrome"]
DOWN = ["Which diseases present with epileptic spasm?", "phenotypes of Usher syndrome", "what is a focal seizure"]


def _timed(grasp: Grasp, question: str, when: str) -> None:
    started = time.monotonic()
    result = grasp.search(question)
    print(
        f"{when}: {time.monotonic() - started:.2f} s, {len(result.hits)} hits, "
        f"graph-ranked {sum(hit.graph_rank is not None for hit in result.hits)}, failures {result.failures}"
    )


def main() -> None:
    settings = Settings()
    with TcpProxy(settings.bolt_port) as proxy:
        driver = GraphDatabase.driver(
            f"bolt://127.0.0.1:{proxy.port}",
            connection_timeout=10.0,
            max_transaction_retry_time=settings.neo4j_retry_s,
            notifications_min_severity="OFF",
            auth=(settings.neo4j_user, read_password_file(settings.password_file)),
        )
        with driver:
            grasp = Grasp(assemble_parts(driver, settings, make_embedder(settings), progress=True))
            for question in UP:
                _timed(grasp, question, "up")
            proxy.stop()
            for question in DOWN:
                _timed(grasp, question, "down")
            proxy.start()
            time.sleep(grasp.parts.availability.cooldown_s)  # the next search probes the server again
            _timed(grasp, DOWN[0], "back")


if __name__ == "__main__":
    main()
