"""What the persisted text-branch indexes share: versioned manifests, installing a build atomically, clearing
the staging folders of builds that died, and moving an index out of the old shared root into its instance's."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grasp_agent.private_files import make_private_dirs
from grasp_agent.text_branch.index_files import IndexDamaged, one_line, read_json

logger = logging.getLogger(__name__)

_STAGING = re.compile(r"^\..+\.building-(?P<pid>\d+)$")


def read_manifest(directory: Path, file_name: str, version: int, what: str = "index") -> dict[str, Any] | None:
    """The manifest in `directory` when it exists and has this format version; None when there is none (or an
    older format: built again). One that exists but cannot be read, a FIFO included, is `IndexDamaged`."""
    path = directory / file_name
    if not os.path.lexists(path):
        return None
    try:
        manifest = read_json(path)
    except (OSError, ValueError) as error:
        raise IndexDamaged(f"{what} {directory} is damaged ({file_name}: {one_line(error)})") from error
    if not isinstance(manifest, dict):
        raise IndexDamaged(f"{what} {directory} is damaged ({file_name} is not a JSON object)")
    return manifest if manifest.get("format") == version else None


def has_manifest(directory: Path, file_name: str, version: int) -> bool:
    """Whether `directory` holds a readable manifest of this version (what marks a complete index)."""
    try:
        return read_manifest(directory, file_name, version) is not None
    except IndexDamaged:
        return False


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def remove_path(path: Path) -> None:
    """Removes a folder tree, or whatever else stands at `path` (a file, a FIFO, a link)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def clean_stale_staging(parent: Path) -> None:
    """Removes the staging folders in `parent` whose building process is gone (killed mid-save: each can hold
    a whole index, ~250 MB for the HPO). A live builder's folder, or one of a reused pid, is kept."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        match = _STAGING.match(entry.name)
        if match and not _process_alive(int(match["pid"])):
            logger.info("removing the staging folder of a build that did not finish: %s", entry)
            remove_path(entry)


def install_build(directory: Path, save: Callable[[Path], None], is_complete: Callable[[Path], bool]) -> bool:
    """Saves a build into a staging sibling and renames it into place, so an interrupted build leaves nothing
    that loads; losing the rename to another process's build of the same content is fine. The staging name
    carries the pid, so a later open can tell a dead build's folder (`clean_stale_staging`).

    A save that fails for lack of space or permission removes its staging folder and returns False: the
    caller still has the build in memory and serves from it; the next start builds again.
    """
    staging = directory.with_name(f".{directory.name}.building-{os.getpid()}")
    remove_path(staging)
    clean_stale_staging(directory.parent)
    try:
        make_private_dirs(directory.parent)
        save(staging)
    except OSError as error:
        remove_path(staging)
        logger.warning(
            "could not save the index to %s (%s); it is used from memory and built again on the next start",
            directory,
            error,
        )
        return False
    remove_path(directory)
    try:
        staging.rename(directory)
    except OSError:
        remove_path(staging)
        if not is_complete(directory):
            raise
    return True


def adopt_legacy(
    root: Path, legacy_root: Path | None, relative: Path, what: str, is_complete: Callable[[Path], bool]
) -> Path:
    """Where to load the index `root / relative` from. Indexes used to share one root for all instances; when
    this instance's root lacks the index and the old shared root holds it, it is moved here (a rename: instant,
    nothing copied), once, with one line saying so. Other indexes in the old root are left alone. When the
    move is impossible (another file system), the old folder is used where it is."""
    directory = root / relative
    if legacy_root is None or legacy_root == root:
        return directory
    legacy = legacy_root / relative
    if is_complete(directory) or not is_complete(legacy):
        return directory
    try:
        make_private_dirs(directory.parent)
        if os.path.lexists(directory):
            remove_path(directory)  # an incomplete leftover of our own: the loader would rebuild it anyway
        os.rename(legacy, directory)
    except FileNotFoundError:
        return directory  # another process of this instance moved it first
    except OSError as error:
        if is_complete(directory):
            return directory
        logger.warning("could not move the %s %s into this instance (%s); using it in place", what, legacy, error)
        return legacy
    logger.warning("moved the %s %s into this instance's own folder: %s", what, legacy, directory)
    for emptied in list(legacy.parents)[: len(relative.parts) - 1]:  # below the old root, only if left empty
        try:
            emptied.rmdir()
        except OSError:
            break
    return directory
