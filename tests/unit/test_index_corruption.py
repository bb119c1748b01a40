"""Damaged text-branch indexes on disk: each kind of damage is found when the index opens, which then builds it
again with one warning line, or, loaded directly, is one clear `TextBranchError`; never a traceback, a hang
on a FIFO, or a silent wrong answer from NaN vectors or permuted rows."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.text_branch.bm25_index import LexicalIndex, index_directory, open_lexical_index
from grasp_agent.text_branch.dense_fields import DenseFieldIndex, dense_index_directory, open_dense_index
from grasp_agent.text_branch.fields import FieldCorpus, TextBranchError
from tests.unit.test_text_branch_dense import TableEmbedder, random_corpus, unit_rows
from tests.unit.test_text_branch_fields import toy_corpus

HANG_LIMIT_S = 3.0  # a FIFO read blocks until a writer comes: the watchdog plays that writer after this
Damage = Callable[[Path], None]


# ---- kinds of damage ------------------------------------------------------------------------------------
def _truncate(relative: str) -> Damage:
    def damage(directory: Path) -> None:
        path = directory / relative
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    return damage


def _garble(relative: str) -> Damage:
    """Same size, bytes in the middle overwritten: what a bad sector or a stray write leaves."""

    def damage(directory: Path) -> None:
        path = directory / relative
        data = bytearray(path.read_bytes())
        middle = len(data) // 2
        data[middle : middle + 16] = b'\xff\x00garbage\x7f{["\xfe\x01'[: len(data[middle : middle + 16])]
        path.write_bytes(bytes(data))

    return damage


def _fifo(relative: str) -> Damage:
    def damage(directory: Path) -> None:
        path = directory / relative
        path.unlink()
        os.mkfifo(path)

    return damage


def _drop_manifest_entry(key: str) -> Damage:
    def damage(directory: Path) -> None:
        manifest = json.loads((directory / "manifest.json").read_text())
        del manifest[key]
        (directory / "manifest.json").write_text(json.dumps(manifest))

    return damage


def _rewrite_array(relative: str, change: Callable[[np.ndarray], np.ndarray]) -> Damage:
    def damage(directory: Path) -> None:
        path = directory / relative
        np.save(path, change(np.load(path)))

    return damage


def _with_nan(vectors: np.ndarray) -> np.ndarray:
    changed = vectors.copy()
    changed[3] = np.nan
    return changed


def _remove(relative: str) -> Damage:
    def damage(directory: Path) -> None:
        path = directory / relative
        for child in sorted(path.rglob("*"), reverse=True):
            child.unlink() if child.is_file() else child.rmdir()
        path.rmdir() if path.is_dir() else path.unlink()

    return damage


LEXICAL_DAMAGE: dict[str, Damage] = {
    "manifest-garbled": _truncate("manifest.json"),
    "manifest-fifo": _fifo("manifest.json"),
    "manifest-missing-fields": _drop_manifest_entry("fields"),
    "manifest-missing-config": _drop_manifest_entry("config"),
    "nodes-truncated": _truncate("nodes.json"),
    "nodes-fifo": _fifo("nodes.json"),
    "rows-truncated": _truncate("fields/name/rows.npy"),
    "rows-permuted": _rewrite_array("fields/definition/rows.npy", lambda rows: rows[::-1].copy()),
    "rows-out-of-range": _rewrite_array("fields/name/rows.npy", lambda rows: rows + 1000),
    "bm25-array-garbled": _garble("fields/doc/data.csc.index.npy"),
    "bm25-indices-permuted": _rewrite_array("fields/doc/indices.csc.index.npy", lambda a: a[::-1].copy()),
    "vocabulary-garbled": _garble("fields/name/vocab.index.json"),
    "bm25-params-fifo": _fifo("fields/name/params.index.json"),
    "field-folder-missing": _remove("fields/definition"),
}
DENSE_DAMAGE: dict[str, Damage] = {
    "manifest-garbled": _truncate("manifest.json"),
    "manifest-fifo": _fifo("manifest.json"),
    "manifest-missing-dimension": _drop_manifest_entry("dimension"),
    "manifest-missing-selection": _drop_manifest_entry("selection"),
    "nodes-garbled": _garble("nodes.json"),
    "vectors-truncated": _truncate("fields/title.vectors.npy"),
    "vectors-nan": _rewrite_array("fields/title.vectors.npy", _with_nan),
    "vectors-permuted": _rewrite_array("fields/title.vectors.npy", lambda vectors: vectors[::-1].copy()),
    "vectors-wrong-shape": _rewrite_array("fields/title.vectors.npy", lambda vectors: vectors[:, :-1].copy()),
    "vectors-garbled": _garble("fields/note.vectors.npy"),
    "vectors-fifo": _fifo("fields/title.vectors.npy"),
    "rows-short": _rewrite_array("fields/note.rows.npy", lambda rows: rows[:-1].copy()),
    "rows-permuted": _rewrite_array("fields/note.rows.npy", lambda rows: rows[::-1].copy()),
    "vectors-missing": _remove("fields/note.vectors.npy"),
}


# ---- helpers ------------------------------------------------------------------------------------------
@contextmanager
def no_hang(directory: Path) -> Iterator[None]:
    """Fails a block that hangs on a FIFO under `directory`: after HANG_LIMIT_S a writer opens and closes each
    FIFO, so the blocked read sees end-of-file and the block ends, late, and the test fails on its time."""
    done = threading.Event()

    def release() -> None:
        while not done.wait(0.1):
            for path in directory.rglob("*"):
                if path.is_fifo():
                    with suppress(OSError):  # no reader yet
                        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    timer = threading.Timer(HANG_LIMIT_S, release)
    timer.start()
    started = time.monotonic()
    try:
        yield
    finally:
        done.set()
        timer.cancel()
    assert time.monotonic() - started < HANG_LIMIT_S, "hung on a file that is not a regular file"


class Counting:
    """A corpus callable that counts builds."""

    def __init__(self, make: Callable[[], FieldCorpus]) -> None:
        self._make = make
        self.builds = 0

    def __call__(self) -> FieldCorpus:
        self.builds += 1
        return self._make()


def _one_warning(caplog: pytest.LogCaptureFixture) -> str:
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warnings) == 1, [record.getMessage() for record in warnings]
    assert warnings[0].exc_info is None  # one line, no traceback
    message = warnings[0].getMessage()
    assert "\n" not in message and "damaged" in message, message
    return message


LEXICAL_QUERIES = ("seizure", "cataract lens", "hearing loss", "abnormality nervous")


# ---- the text (BM25) index ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(LEXICAL_DAMAGE))
def test_a_damaged_text_index_is_built_again(kind: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pristine = open_lexical_index(tmp_path, "toy", "fp1", toy_corpus, progress=False)
    expected = {query: pristine.search(query) for query in LEXICAL_QUERIES}
    directory = index_directory(tmp_path, "toy", "fp1")
    LEXICAL_DAMAGE[kind](directory)

    corpus = Counting(toy_corpus)
    caplog.set_level(logging.WARNING)
    with no_hang(directory):
        reopened = open_lexical_index(tmp_path, "toy", "fp1", corpus, progress=False)
    assert corpus.builds == 1
    assert {query: reopened.search(query) for query in LEXICAL_QUERIES} == expected
    assert str(directory) in _one_warning(caplog)
    caplog.clear()
    again = open_lexical_index(tmp_path, "toy", "fp1", corpus, progress=False)  # the rebuild was saved
    assert corpus.builds == 1 and again.search("seizure") == expected["seizure"]


@pytest.mark.parametrize("kind", [kind for kind in LEXICAL_DAMAGE if not kind.startswith("manifest-")])
def test_loading_a_damaged_text_index_is_one_clear_error(kind: str, tmp_path: Path) -> None:
    open_lexical_index(tmp_path, "toy", "fp1", toy_corpus, progress=False)
    directory = index_directory(tmp_path, "toy", "fp1")
    LEXICAL_DAMAGE[kind](directory)
    with no_hang(directory), pytest.raises(TextBranchError, match="damaged") as raised:
        LexicalIndex.load(directory)
    assert str(directory) in str(raised.value) and "\n" not in str(raised.value)


# ---- the dense index ------------------------------------------------------------------------------------
def _dense_queries() -> np.ndarray:
    return unit_rows(np.random.default_rng(7), 4)


@pytest.mark.parametrize("kind", list(DENSE_DAMAGE))
def test_a_damaged_dense_index_is_built_again(kind: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    source, embedder = random_corpus(nodes=40)
    pristine = open_dense_index(tmp_path, "toy", "v1", lambda: source, embedder, progress=False)
    queries = _dense_queries()
    expected = pristine.batch_search(queries, 5)
    directory = dense_index_directory(tmp_path, "toy", "v1", embedder.model_id)
    DENSE_DAMAGE[kind](directory)

    corpus = Counting(lambda: source)
    caplog.set_level(logging.WARNING)
    with no_hang(directory):
        reopened = open_dense_index(tmp_path, "toy", "v1", corpus, embedder, progress=False)
    assert corpus.builds == 1
    assert reopened.batch_search(queries, 5) == expected
    assert str(directory) in _one_warning(caplog)


@pytest.mark.parametrize("kind", [kind for kind in DENSE_DAMAGE if not kind.startswith("manifest-")])
def test_loading_a_damaged_dense_index_is_one_clear_error(kind: str, tmp_path: Path) -> None:
    source, embedder = random_corpus(nodes=40)
    open_dense_index(tmp_path, "toy", "v1", lambda: source, embedder, progress=False)
    directory = dense_index_directory(tmp_path, "toy", "v1", embedder.model_id)
    DENSE_DAMAGE[kind](directory)
    with no_hang(directory), pytest.raises(TextBranchError, match="damaged") as raised:
        DenseFieldIndex.load(directory)
    assert str(directory) in str(raised.value) and "\n" not in str(raised.value)


def test_an_embedder_that_returns_nan_is_refused_at_build(tmp_path: Path) -> None:
    source, embedder = random_corpus(nodes=10)
    broken = TableEmbedder({text: np.full_like(vector, np.nan) for text, vector in embedder.table.items()})
    with pytest.raises(TextBranchError, match="non-finite"):
        open_dense_index(tmp_path, "toy", "v1", lambda: source, broken, progress=False)
