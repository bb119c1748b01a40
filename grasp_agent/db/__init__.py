"""The Neo4j side of grasp: assembling the runtime, running a local server, connecting to any server."""

from grasp_agent.db.connection import open_driver
from grasp_agent.db.server import LocalServer, ServerState

__all__ = ["LocalServer", "ServerState", "open_driver"]
