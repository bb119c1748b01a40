"""grasp: Neo4j-native hybrid retrieval over semi-structured knowledge bases.

from grasp_agent import Grasp
with Grasp.from_config() as grasp:
    print(grasp.search("Which diseases present with epileptic spasms?", k=5).hits)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from grasp_agent.api import Grasp


def __getattr__(name: str) -> Any:
    # Lazy: `import grasp_agent` (every CLI command) must not pay for LangGraph and the pipeline.
    if name == "Grasp":
        from grasp_agent.api import Grasp

        return Grasp
    raise AttributeError(f"module 'grasp_agent' has no attribute {name!r}")


__all__ = ["Grasp", "__version__"]
