"""Heap and page-cache sizing for the local server, from the memory this machine (or cgroup) really has."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024
_CGROUP_LIMIT_FILES = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


@dataclass(frozen=True)
class MemoryPlan:
    heap: str
    pagecache: str


def total_memory_bytes() -> int:
    """Physical memory, capped by a cgroup limit when one is set."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit_file in _CGROUP_LIMIT_FILES:
        try:
            raw = limit_file.read_text().strip()
        except OSError:
            continue
        if raw.isdigit():
            total = min(total, int(raw))
    return total


def _share_mib(total_bytes: int, fraction: float, low_mib: int, high_mib: int) -> int:
    share = int(total_bytes * fraction / MIB) // 256 * 256  # whole 256 MiB steps keep the config readable
    return max(low_mib, min(high_mib, share))


def plan_memory(total_bytes: int, heap: str | None = None, pagecache: str | None = None) -> MemoryPlan:
    """Heap = 20% of RAM within [1 GiB, 8 GiB]; page cache = 15% within [512 MiB, 8 GiB].

    Neo4j's own advice gives the database most of a dedicated machine. Here it shares the machine with the
    Python side (embedding models, a local LLM, GDS projections live on the heap), so it takes about a third.
    On 24 GiB that is a 4.75 GiB heap and a 3.5 GiB page cache, far above what the HPO store needs (~0.5 GiB).
    Explicit values (GRASP_HEAP_SIZE, GRASP_PAGECACHE_SIZE) win.
    """
    return MemoryPlan(
        heap=heap or f"{_share_mib(total_bytes, 0.20, 1024, 8192)}m",
        pagecache=pagecache or f"{_share_mib(total_bytes, 0.15, 512, 8192)}m",
    )
