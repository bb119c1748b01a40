"""The files of a saved index, checked before anything reads them: regular files (a FIFO would block a read
forever), of the size and sha256 the manifest recorded at save time.

Hashing costs about 0.2 s per 250 MB (the full HPO's dense matrices), so a load hashes only when a file has
changed since the last check: `verified.json` keeps each file's (size, mtime, ctime, inode, device) as the last
full check saw them, and any write, truncation, chmod or replacement changes ctime, which no program can set
back. An unchanged index then costs one stat per file. An index saved before the manifest recorded its files
(format 1 without `files`) gets the structural checks and a scan for non-finite vectors, then its hashes.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grasp_agent.private_files import PRIVATE_FILE, tighten_tree
from grasp_agent.text_branch.fields import TextBranchError

MANIFEST = "manifest.json"
STAMP = "verified.json"  # the file states of the last full check (see the module docstring)


class IndexDamaged(TextBranchError):
    """A saved index whose files do not match what was saved; opening it builds it again."""


class FileRecord(BaseModel):
    """What the manifest records of one file at save time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    size: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


def one_line(error: BaseException) -> str:
    """An exception as one short line (a pydantic or numpy message can span several)."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        return f"{where}: {first['msg']}"
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."


@contextmanager
def damage_guard(what: str, directory: Path) -> Iterator[None]:
    """Turns whatever reading a damaged index raises into one `IndexDamaged` line naming the index."""
    try:
        yield
    except IndexDamaged:
        raise
    except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError, OverflowError) as error:
        raise IndexDamaged(f"{what} {directory} is damaged ({one_line(error)})") from error


def read_regular(path: Path) -> bytes:
    """The bytes of a regular file; a FIFO, device or folder in its place is an error, not a wait."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        return stream.read()


def read_json(path: Path) -> Any:
    return json.loads(read_regular(path))


def write_private_json(path: Path, data: Any, *, indent: int | None = None) -> None:
    """Writes JSON as a 0600 file, atomically (a temporary sibling renamed over it)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, PRIVATE_FILE)
    with os.fdopen(descriptor, "w") as stream:
        stream.write(json.dumps(data, indent=indent))
    os.replace(temporary, path)


def npy_header(path: Path) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """Shape and dtype of a .npy file from its header; the file must hold exactly that many bytes."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        version = np.lib.format.read_magic(stream)
        reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran_order, dtype = reader(stream)
        expected = stream.tell() + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    size = os.stat(path).st_size
    if fortran_order or dtype.hasobject or size != expected:
        raise ValueError(f"{path.name} holds {size} bytes; its header {shape} {dtype} needs {expected}")
    return tuple(shape), dtype


def _file_names(directory: Path) -> list[str]:
    """Every non-folder below `directory` but the manifest, the stamp and hidden temporaries, as relative
    POSIX paths, sorted."""
    names = []
    for parent, folders, files in os.walk(directory):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in files:
            if not name.startswith("."):
                names.append(Path(parent, name).relative_to(directory).as_posix())
    return sorted(name for name in names if name not in (MANIFEST, STAMP))


def _sha256(path: Path) -> str:
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(descriptor, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def record_files(directory: Path) -> dict[str, dict[str, Any]]:
    """Size and sha256 of every file of an index, for its manifest."""
    records = {}
    for name in _file_names(directory):
        path = directory / name
        records[name] = FileRecord(size=os.stat(path).st_size, sha256=_sha256(path)).model_dump()
    return records


def _state(path: Path, name: str) -> list[int]:
    try:
        found = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"{name} is missing") from None
    if not stat.S_ISREG(found.st_mode):
        raise ValueError(f"{name} is not a regular file")
    return [found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_dev]


@dataclass(frozen=True)
class FileCheck:
    """The outcome of `check_files`: `full` when the contents were checked (hashed, or due for a scan)."""

    directory: Path
    states: Mapping[str, list[int]]
    full: bool

    def commit(self) -> None:
        """Remembers these file states as checked, once every other check of the load passed too; a folder
        we may not write to is checked in full on every load instead."""
        if self.full:
            with suppress(OSError):
                write_private_json(self.directory / STAMP, {"files": self.states})


def _safe_name(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts


def check_files(directory: Path, recorded: Mapping[str, FileRecord] | None) -> FileCheck:
    """Checks the files the manifest recorded (every file, for an index saved without records): each a
    regular file of the recorded size, and, unless unchanged since the last full check, of the recorded
    sha256. Tightens their permissions first. Raises ValueError on the first file that differs."""
    tighten_tree(directory)
    names = sorted(recorded) if recorded is not None else _file_names(directory)
    unsafe = [name for name in names if not _safe_name(name)]
    if unsafe:
        raise ValueError(f"the manifest names files outside the index: {unsafe[:3]}")
    states = {name: _state(directory / name, name) for name in names}
    if recorded is not None:
        for name, record in recorded.items():
            if states[name][0] != record.size:
                raise ValueError(f"{name} holds {states[name][0]} bytes; {record.size} were saved")
    try:
        stamp = read_json(directory / STAMP)
    except (OSError, ValueError):
        stamp = None
    if isinstance(stamp, dict) and stamp.get("files") == states:
        return FileCheck(directory, states, full=False)
    if recorded is not None:
        for name, record in recorded.items():
            if _sha256(directory / name) != record.sha256:
                raise ValueError(f"{name} differs from the saved file (sha256)")
    return FileCheck(directory, states, full=True)


def finish_save(directory: Path, manifest: dict[str, Any]) -> None:
    """Completes a save: private permissions, the files' sizes and sha256 in the manifest, the stamp (the
    files were just hashed), then the manifest itself, last, as the mark of a complete index."""
    tighten_tree(directory)
    files = record_files(directory)
    states = {name: _state(directory / name, name) for name in files}
    write_private_json(directory / STAMP, {"files": states})
    write_private_json(directory / MANIFEST, {**manifest, "files": files}, indent=2)


def add_file_records(directory: Path, manifest: dict[str, Any]) -> None:
    """Records the files of an index saved before manifests recorded them, once it passed every other check,
    so that later loads can tell any change; a folder we may not write to stays as it is."""
    with suppress(OSError):
        write_private_json(directory / MANIFEST, {**manifest, "files": record_files(directory)}, indent=2)
