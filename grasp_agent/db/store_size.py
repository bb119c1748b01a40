"""Disk used by a local instance's database: its store files and its transaction logs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grasp_agent.config import Settings


@dataclass(frozen=True)
class StoreSize:
    database_bytes: int
    transaction_log_bytes: int  # Neo4j preallocates log files: a floor on small stores, not a measure of them

    @property
    def total_bytes(self) -> int:
        return self.database_bytes + self.transaction_log_bytes


def store_size(settings: Settings) -> StoreSize:
    data = settings.instance_dir / "data"
    return StoreSize(
        _folder_bytes(data / "databases" / settings.neo4j_database),
        _folder_bytes(data / "transactions" / settings.neo4j_database),
    )


def _folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) if folder.exists() else 0
