"""peak_rss_mib: the process's high-water mark in MiB, which never falls."""

from __future__ import annotations

from grasp_agent.process_memory import peak_rss_mib


def test_the_peak_is_in_mib_and_covers_what_was_allocated() -> None:
    before = peak_rss_mib()
    block = bytearray(64 * 1024 * 1024)  # 64 MiB, touched so it is resident
    block[::4096] = b"x" * len(block[::4096])
    after = peak_rss_mib()
    assert 10 < before < 1_000_000 and after >= before and after >= 64
