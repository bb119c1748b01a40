"""A text-branch index that cannot be saved (disk full) leaves no half-written folder, and the build it made in
memory still answers. The disk is filled with a file-size limit (RLIMIT_FSIZE) in a child process: writes past
it fail with EFBIG as writes on a full disk fail with ENOSPC, with no root needed to mount a tiny tmpfs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHILD = textwrap.dedent("""
    import resource, signal, sys
    from pathlib import Path

    import numpy as np

    from grasp_agent.text_branch.bm25_index import open_lexical_index
    from grasp_agent.text_branch.dense_fields import open_dense_index
    from tests.unit.test_text_branch_dense import random_corpus
    from tests.unit.test_text_branch_fields import toy_corpus

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG, not a kill
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))
    root = Path(sys.argv[1])
    lexical = open_lexical_index(root / "bm25", "toy", "fp1", toy_corpus, progress=False)
    print("bm25", lexical.search_field("name", "seizure").ids[0])
    corpus, embedder = random_corpus(nodes=40)
    dense = open_dense_index(root / "dense", "toy", "v1", lambda: corpus, embedder, progress=False)
    query = np.asarray(embedder.embed_query("title 3"), dtype=np.float32)
    print("dense", dense.search_field("title", query, 1).ids[0])
""")


def _files(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def test_a_full_disk_leaves_no_half_index_and_the_build_still_serves(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "bm25 P1" in done.stdout and "dense " in done.stdout  # served from memory
    assert done.stderr.count("could not save the index") == 2, done.stderr
    assert _files(tmp_path) == []  # nothing half-written that a later start could read

    # With room again, the next open builds and saves normally.
    from grasp_agent.text_branch.bm25_index import index_directory, open_lexical_index
    from tests.unit.test_text_branch_fields import toy_corpus

    open_lexical_index(tmp_path / "bm25", "toy", "fp1", toy_corpus, progress=False)
    assert (index_directory(tmp_path / "bm25", "toy", "fp1") / "manifest.json").is_file()
