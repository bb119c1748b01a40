"""What the persisted text-branch indexes share: versioned manifests, and installing a build atomically."""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def read_manifest(directory: Path, file_name: str, version: int) -> dict[str, Any] | None:
    """The manifest in `directory` when it exists, parses and has this format version; else None."""
    try:
        manifest = json.loads((directory / file_name).read_text())
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == version else None


def install_build(directory: Path, save: Callable[[Path], None], is_complete: Callable[[Path], bool]) -> bool:
    """Saves a build into a staging sibling and renames it into place, so an interrupted build leaves nothing
    that loads; losing the rename to another process's build of the same content is fine.

    A save that fails for lack of space or permission removes its staging folder and returns False: the
    caller still has the build in memory and serves from it; the next start builds again.
    """
    staging = directory.with_name(f".{directory.name}.building-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        save(staging)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        logger.warning(
            "could not save the index to %s (%s); it is used from memory and built again on the next start",
            directory,
            error,
        )
        return False
    shutil.rmtree(directory, ignore_errors=True)
    try:
        staging.rename(directory)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not is_complete(directory):
            raise
    return True
