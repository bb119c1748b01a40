"""This process's own memory use, for benchmark and training reports (the server's sizing is db/memory.py)."""

from __future__ import annotations

import resource


def peak_rss_mib() -> float:
    """The most resident memory this process has held so far, in MiB (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
