"""Model files shipped as slices inside PyPI packages: where an installed slice is, checked against its pins.

Shared by the embedding models (a split zip) and the GGUF planner models (a split file); each caller
joins the slices its own way and raises its own error type.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from pathlib import Path

from grasp_agent.errors import GraspError


@dataclass(frozen=True)
class PackagePart:
    """One slice of a model, shipped as a file inside an installed distribution."""

    distribution: str  # the pip name
    version: str
    path: str  # relative to the distribution's install root, as listed in its RECORD
    size: int
    sha256: str


def locate_part(part: PackagePart, model_name: str, install_hint: str, error: type[GraspError]) -> Path:
    """The installed slice's path; `error` names what is wrong (not installed, file gone, wrong size)."""
    try:
        distribution = importlib.metadata.distribution(part.distribution)
    except importlib.metadata.PackageNotFoundError as exc:
        raise error(
            f"model {model_name} needs the package {part.distribution}, which is not installed; run: {install_hint}"
        ) from exc
    path = Path(str(distribution.locate_file(part.path)))
    if not path.is_file():
        raise error(
            f"package {part.distribution} is installed but its file {path} is missing; reinstall: {install_hint}"
        )
    if path.stat().st_size != part.size:
        raise error(
            f"{path} has {path.stat().st_size} bytes; package {part.distribution} shipped {part.size}; "
            f"reinstall: {install_hint}"
        )
    return path
