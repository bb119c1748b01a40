"""Where text-branch indexes live and who may touch them: one root per instance (a build on one instance never
removes another's index), the move out of the old shared root, staging folders of killed builds, private
permissions, and the file check that hashes only what changed."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.config import Settings
from grasp_agent.embed.cache import CachedEmbedder
from grasp_agent.text_branch.bm25_index import (
    LexicalIndex,
    default_index_root,
    index_directory,
    legacy_index_root,
    open_lexical_index,
)
from grasp_agent.text_branch.dense_fields import (
    default_dense_root,
    dense_index_directory,
    legacy_dense_root,
    open_dense_index,
)
from grasp_agent.text_branch.fields import FieldCorpus
from grasp_agent.text_branch.index_files import FileRecord, check_files
from tests.unit.test_embed_cache import HashEmbedder
from tests.unit.test_text_branch_dense import random_corpus
from tests.unit.test_text_branch_fields import toy_corpus

ROOT = Path(__file__).resolve().parents[2]


def must_not_build() -> FieldCorpus:
    raise AssertionError("this index should have loaded, not been built")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _modes(directory: Path) -> set[tuple[str, int]]:
    """(kind, mode) of the folder and everything below it."""
    return {("dir" if path.is_dir() else "file", _mode(path)) for path in [directory, *directory.rglob("*")]}


PRIVATE = {("dir", 0o700), ("file", 0o600)}


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


# ---- one root per instance ------------------------------------------------------------------------------
def test_each_instance_has_its_own_index_roots(tmp_path: Path) -> None:
    first = Settings(project_root=tmp_path, instance="full")
    second = Settings(project_root=tmp_path, instance="demo")
    assert default_index_root(first) == first.instance_dir / "text_index"
    assert default_dense_root(first) == first.instance_dir / "dense_index"
    assert default_index_root(first) != default_index_root(second)
    assert default_dense_root(first) != default_dense_root(second)
    assert legacy_index_root(first) == tmp_path / ".grasp" / "text_index"
    assert legacy_dense_root(first) == tmp_path / ".grasp" / "dense_index"
    chosen = Settings(project_root=tmp_path, text_index_dir=tmp_path / "t", dense_index_dir=tmp_path / "d")
    assert (default_index_root(chosen), legacy_index_root(chosen)) == (tmp_path / "t", None)
    assert (default_dense_root(chosen), legacy_dense_root(chosen)) == (tmp_path / "d", None)


def test_a_build_on_one_instance_keeps_another_instances_index(tmp_path: Path) -> None:
    """The slice demo on one instance used to remove the full HPO index of another (same SKB name)."""
    full = Settings(project_root=tmp_path, instance="full")
    demo = Settings(project_root=tmp_path, instance="demo")
    source, embedder = random_corpus(nodes=20)
    open_lexical_index(default_index_root(full), "hpo", "full-content", toy_corpus, progress=False)
    open_dense_index(default_dense_root(full), "hpo", "full-content", lambda: source, embedder, progress=False)

    open_lexical_index(default_index_root(demo), "hpo", "slice-content", toy_corpus, progress=False)
    open_dense_index(default_dense_root(demo), "hpo", "slice-content", lambda: source, embedder, progress=False)

    open_lexical_index(default_index_root(full), "hpo", "full-content", must_not_build, progress=False)
    open_dense_index(default_dense_root(full), "hpo", "full-content", must_not_build, embedder, progress=False)


# ---- the old shared root --------------------------------------------------------------------------------
def test_an_index_in_the_old_shared_root_moves_into_its_instance_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(project_root=tmp_path, instance="default")
    legacy_text, legacy_dense = legacy_index_root(settings), legacy_dense_root(settings)
    assert legacy_text is not None and legacy_dense is not None
    source, embedder = random_corpus(nodes=20)
    built_text = open_lexical_index(legacy_text, "hpo", "mine", toy_corpus, progress=False)
    built_dense = open_dense_index(legacy_dense, "hpo", "mine", lambda: source, embedder, progress=False)
    # another instance's index in the old root, of other content under the same SKB name
    other = tmp_path / "elsewhere"
    open_lexical_index(other, "hpo", "theirs", toy_corpus, progress=False)
    open_dense_index(other / "dense", "hpo", "theirs", lambda: source, embedder, progress=False)
    os.rename(index_directory(other, "hpo", "theirs"), index_directory(legacy_text, "hpo", "theirs"))
    os.rename(other / "dense" / "hpo" / "theirs", legacy_dense / "hpo" / "theirs")
    for path in [legacy_text, *legacy_text.rglob("*"), legacy_dense, *legacy_dense.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # as the old version left them

    caplog.clear()
    text = open_lexical_index(
        default_index_root(settings), "hpo", "mine", must_not_build, progress=False, legacy_root=legacy_text
    )
    dense = open_dense_index(
        default_dense_root(settings), "hpo", "mine", must_not_build, embedder, progress=False, legacy_root=legacy_dense
    )
    moved = _warnings(caplog)
    assert len(moved) == 2 and all("moved the" in message for message in moved), moved
    assert text.search("seizure") == built_text.search("seizure")
    query = np.asarray(embedder.embed_query("title 3"), dtype=np.float32)
    assert dense.search(query, 5) == built_dense.search(query, 5)
    mine_text = index_directory(default_index_root(settings), "hpo", "mine")
    mine_dense = dense_index_directory(default_dense_root(settings), "hpo", "mine", embedder.model_id)
    assert _modes(mine_text) == _modes(mine_dense) == PRIVATE  # tightened on open
    assert not index_directory(legacy_text, "hpo", "mine").exists()
    assert not (legacy_dense / "hpo" / "mine").exists()  # left empty by the move, so removed
    # the other instance's indexes stay where they were, whole
    assert LexicalIndex.load(index_directory(legacy_text, "hpo", "theirs")).search("seizure")
    assert (dense_index_directory(legacy_dense, "hpo", "theirs", embedder.model_id) / "manifest.json").is_file()

    caplog.clear()
    open_lexical_index(
        default_index_root(settings), "hpo", "mine", must_not_build, progress=False, legacy_root=legacy_text
    )
    open_dense_index(
        default_dense_root(settings), "hpo", "mine", must_not_build, embedder, progress=False, legacy_root=legacy_dense
    )
    assert _warnings(caplog) == []  # said once


def test_an_index_saved_before_files_were_recorded_still_loads_and_gets_recorded(tmp_path: Path) -> None:
    source, embedder = random_corpus(nodes=20)
    open_dense_index(tmp_path, "toy", "v1", lambda: source, embedder, progress=False)
    directory = dense_index_directory(tmp_path, "toy", "v1", embedder.model_id)
    manifest = json.loads((directory / "manifest.json").read_text())
    del manifest["files"]  # as an index of the previous version
    (directory / "manifest.json").write_text(json.dumps(manifest))
    (directory / "verified.json").unlink()

    open_dense_index(tmp_path, "toy", "v1", must_not_build, embedder, progress=False)
    recorded = json.loads((directory / "manifest.json").read_text())["files"]
    assert set(recorded) == {path.relative_to(directory).as_posix() for path in directory.rglob("*.npy")} | {
        "nodes.json"
    }


def test_a_legacy_index_with_nan_vectors_is_built_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    source, embedder = random_corpus(nodes=20)
    open_dense_index(tmp_path, "toy", "v1", lambda: source, embedder, progress=False)
    directory = dense_index_directory(tmp_path, "toy", "v1", embedder.model_id)
    manifest = json.loads((directory / "manifest.json").read_text())
    del manifest["files"]
    (directory / "manifest.json").write_text(json.dumps(manifest))
    vectors = np.load(directory / "fields" / "title.vectors.npy")
    vectors[0, 0] = np.nan
    np.save(directory / "fields" / "title.vectors.npy", vectors)

    builds: list[FieldCorpus] = []

    def corpus() -> FieldCorpus:
        builds.append(source)
        return source

    open_dense_index(tmp_path, "toy", "v1", corpus, embedder, progress=False)
    assert len(builds) == 1 and "non-finite" in caplog.text


def test_a_valid_index_is_hashed_only_after_a_change(tmp_path: Path) -> None:
    open_lexical_index(tmp_path, "toy", "fp1", toy_corpus, progress=False)
    directory = index_directory(tmp_path, "toy", "fp1")
    records = json.loads((directory / "manifest.json").read_text())["files"]
    recorded = {name: FileRecord(**record) for name, record in records.items()}
    assert not check_files(directory, recorded).full  # the save left the stamp: no hashing
    os.utime(directory / "nodes.json")  # any change of a file changes its ctime
    check = check_files(directory, recorded)
    assert check.full
    check.commit()
    assert not check_files(directory, recorded).full


# ---- staging folders of builds that died ---------------------------------------------------------------
KILLED_SAVE = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from grasp_agent.text_branch.index_store import install_build

    def save(staging: Path) -> None:
        staging.mkdir(parents=True)
        (staging / "half.npy").write_bytes(b"x" * 4096)
        print("saving", flush=True)
        time.sleep(120)

    install_build(Path(sys.argv[1]), save, lambda path: False)
""")


def test_a_build_killed_mid_save_leaves_nothing_after_the_next_open(tmp_path: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_SAVE, str(index_directory(tmp_path, "toy", "fp1"))],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "saving"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    staging = tmp_path / "toy" / f".fp1.building-{child.pid}"
    assert staging.is_dir()
    alive = subprocess.Popen(["sleep", "60"])
    try:
        busy = tmp_path / "toy" / f".fp2.building-{alive.pid}"  # a build still running in another process
        busy.mkdir()
        open_lexical_index(tmp_path, "toy", "fp1", toy_corpus, progress=False)
        assert not staging.exists() and busy.is_dir()
        assert sorted(path.name for path in (tmp_path / "toy").iterdir()) == [busy.name, "fp1"]
    finally:
        alive.kill()
        alive.wait()


def test_dense_staging_of_dead_builds_goes_in_every_content_folder(tmp_path: Path) -> None:
    source, embedder = random_corpus(nodes=10)
    dead = _dead_pid()
    stale_here = tmp_path / "toy" / "v1" / f".table-0.building-{dead}"
    stale_old = tmp_path / "toy" / "v0" / f".table-0.building-{dead}"
    for folder in (stale_here, stale_old):
        (folder / "fields").mkdir(parents=True)
        (folder / "fields" / "title.vectors.npy").write_bytes(b"\x93NUMPY")
    open_dense_index(tmp_path, "toy", "v1", lambda: source, embedder, progress=False)
    assert not stale_here.exists() and not (tmp_path / "toy" / "v0").exists()


# ---- private files --------------------------------------------------------------------------------------
def test_indexes_are_private_whatever_the_umask(tmp_path: Path) -> None:
    source, embedder = random_corpus(nodes=10)
    previous = os.umask(0o022)
    try:
        open_lexical_index(tmp_path / "text", "toy", "fp1", toy_corpus, progress=False)
        open_dense_index(tmp_path / "dense", "toy", "v1", lambda: source, embedder, progress=False)
    finally:
        os.umask(previous)
    for root in (tmp_path / "text", tmp_path / "dense"):
        assert _modes(root / "toy") == PRIVATE


def test_a_loose_index_is_tightened_on_open(tmp_path: Path) -> None:
    open_lexical_index(tmp_path, "toy", "fp1", toy_corpus, progress=False)
    directory = index_directory(tmp_path, "toy", "fp1")
    for path in [directory, *directory.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    open_lexical_index(tmp_path, "toy", "fp1", must_not_build, progress=False)
    assert _modes(directory) == PRIVATE


def test_the_embedding_cache_is_private(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        fresh = tmp_path / "new" / "embeddings.sqlite"
        with CachedEmbedder(HashEmbedder(), fresh) as cache:
            cache.embed_texts(["alpha", "beta"])
            companions = [fresh.with_name(fresh.name + suffix) for suffix in ("-wal", "-shm")]
            assert all(_mode(path) == 0o600 for path in [fresh, *companions] if path.exists())
            assert any(path.exists() for path in companions)
        assert _mode(fresh.parent) == 0o700

        old = tmp_path / "old.sqlite"
        shutil.copy(fresh, old)
        old.chmod(0o644)
        with CachedEmbedder(HashEmbedder(), old) as cache:
            assert cache.embed_texts(["alpha"]).shape == (1, 8)
        assert _mode(old) == 0o600
    finally:
        os.umask(previous)
