"""Read STaRK's `torch.save` (.pt) and pickle (.pkl) files without torch, through restricted unpicklers.

We only load files we trust (a STaRK release the user downloaded). The unpicklers are restricted anyway
because pickle runs whatever callable the stream names: a truncated, swapped or tampered file could
otherwise execute code on load. Allowing only the few constructors these files need (tensor rebuild,
storage types, numpy scalars/arrays/dtypes, OrderedDict) turns anything else into a `SourceFormatError`
that names the file and the refused global, and lets us read tensors as numpy arrays with no torch install.

A `torch.save` file (zip format, torch >= 1.6) holds `<archive>/data.pkl` (protocol-2 pickle of the
object), `<archive>/data/<key>` (one raw storage per key), `<archive>/byteorder` ("little"/"big") and
version records. The pickle names storages by persistent id `('storage', <Type>Storage, key, location,
numel)` and rebuilds tensors with `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`.
"""

from __future__ import annotations

import importlib
import pickle
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

import numpy as np

from grasp_agent.errors import SourceFormatError

# Torch storage class -> numpy dtype of one element (little-endian; swapped when the byteorder record says big).
# BFloat16 has no numpy dtype: read as uint16 and widened to float32 below.
_STORAGE_DTYPES: Mapping[str, str] = MappingProxyType(
    {
        "DoubleStorage": "<f8",
        "FloatStorage": "<f4",
        "HalfStorage": "<f2",
        "BFloat16Storage": "<u2",
        "LongStorage": "<i8",
        "IntStorage": "<i4",
        "ShortStorage": "<i2",
        "CharStorage": "<i1",
        "ByteStorage": "<u1",
        "BoolStorage": "|b1",
    }
)
# Errors a malformed pickle stream raises inside the unpickler; anything else is a bug and propagates.
_UNPICKLE_ERRORS = (
    pickle.UnpicklingError,
    EOFError,
    ValueError,
    TypeError,
    AttributeError,
    IndexError,
    KeyError,
    OverflowError,
    UnicodeDecodeError,
)


@dataclass(frozen=True)
class _StorageType:
    name: str


@dataclass(frozen=True)
class _StorageRef:
    key: str
    storage_type: _StorageType
    numel: int


@dataclass(frozen=True)
class _TensorRef:
    storage: _StorageRef
    offset: int
    size: tuple[int, ...]
    stride: tuple[int, ...]


@dataclass(frozen=True)
class TensorSpec:
    """A tensor's shape and numpy dtype, read without loading its storage (for cheap size hints)."""

    shape: tuple[int, ...]
    dtype: str


def _rebuild_tensor(storage: object, offset: object, size: object, stride: object, *_ignored: object) -> _TensorRef:
    # Stands in for torch._utils._rebuild_tensor_v2; requires_grad/hooks/metadata are irrelevant to numpy.
    if not isinstance(storage, _StorageRef) or not isinstance(offset, int):
        raise pickle.UnpicklingError(f"tensor rebuild got storage={type(storage).__name__}, offset={offset!r}")
    if not isinstance(size, tuple) or not isinstance(stride, tuple) or len(size) != len(stride):
        raise pickle.UnpicklingError(f"tensor rebuild got size={size!r}, stride={stride!r}")
    return _TensorRef(storage, offset, tuple(int(s) for s in size), tuple(int(s) for s in stride))


def _latin1_encode(text: str, encoding: str = "utf-8") -> bytes:
    # Protocol-2 pickles write bytes as _codecs.encode(str, 'latin1'); no other codec is needed or allowed.
    if encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(f"_codecs.encode with encoding {encoding!r}; only latin1 is allowed")
    return text.encode("latin1")


def _numpy_attr(module: str, name: str) -> Callable[..., Any]:
    # numpy 2 moved numpy.core to numpy._core; files pickled under either name resolve to what is installed.
    for candidate in (module.replace("numpy.core", "numpy._core"), module.replace("numpy._core", "numpy.core")):
        try:
            attr: Callable[..., Any] = getattr(importlib.import_module(candidate), name)
            return attr
        except (ImportError, AttributeError):
            continue
    raise pickle.UnpicklingError(f"numpy has no {module}.{name}")


def _data_globals() -> dict[tuple[str, str], Any]:
    allowed: dict[tuple[str, str], Any] = {
        ("numpy", "dtype"): np.dtype,
        ("numpy", "ndarray"): np.ndarray,
        ("collections", "OrderedDict"): OrderedDict,
        ("builtins", "set"): set,
        ("builtins", "frozenset"): frozenset,
        ("_codecs", "encode"): _latin1_encode,
    }
    for module in ("numpy.core.multiarray", "numpy._core.multiarray"):
        allowed[(module, "scalar")] = _numpy_attr(module, "scalar")
        allowed[(module, "_reconstruct")] = _numpy_attr(module, "_reconstruct")
    for module in ("numpy.core.numeric", "numpy._core.numeric"):
        allowed[(module, "_frombuffer")] = _numpy_attr(module, "_frombuffer")
    return allowed


class _DataUnpickler(pickle.Unpickler):
    """Plain data only: dicts, lists, str, numbers, numpy scalars/arrays, OrderedDict, sets."""

    def __init__(self, stream: IO[bytes], path: Path) -> None:
        super().__init__(stream)
        self._path = path
        self._allowed = _data_globals()

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self._allowed:
            return self._allowed[(module, name)]
        raise SourceFormatError(
            self._path,
            None,
            f"refused to unpickle global {module}.{name}; allowed: plain data, numpy scalars/arrays, OrderedDict",
        )

    def persistent_load(self, pid: Any) -> Any:
        raise SourceFormatError(self._path, None, f"refused persistent id {pid!r}; a plain pickle has none")


class _TorchUnpickler(_DataUnpickler):
    """data.pkl of a torch.save archive: plain data plus tensors over numpy-backed storages."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if (
            isinstance(pid, tuple)
            and len(pid) == 5
            and pid[0] == "storage"
            and isinstance(pid[1], _StorageType)
            and isinstance(pid[2], str)
            and isinstance(pid[4], int)
        ):
            return _StorageRef(pid[2], pid[1], pid[4])
        raise SourceFormatError(
            self._path,
            None,
            f"unsupported persistent id {pid!r}; expected ('storage', <Type>Storage, key, location, numel)",
        )


def _unpickle(unpickler: pickle.Unpickler, path: Path) -> object:
    try:
        return unpickler.load()
    except _UNPICKLE_ERRORS as error:
        raise SourceFormatError(path, None, f"corrupt pickle: {error}") from error


def load_pickle_file(path: Path) -> object:
    """Load a `.pkl` holding plain data (dicts, lists, str, numbers, numpy scalars and arrays)."""
    if not path.is_file():
        raise SourceFormatError(path, None, "file not found")
    with path.open("rb") as stream:
        return _unpickle(_DataUnpickler(stream, path), path)


def _archive_prefix(archive: zipfile.ZipFile, path: Path) -> str:
    tops = sorted(
        name[: -len("/data.pkl")] for name in archive.namelist() if name.endswith("/data.pkl") and name.count("/") == 1
    )
    if len(tops) != 1:
        raise SourceFormatError(
            path, None, f"expected exactly one <archive>/data.pkl in the torch.save zip, found {tops}"
        )
    return tops[0]


def _open_archive(path: Path) -> zipfile.ZipFile:
    if not path.is_file():
        raise SourceFormatError(path, None, "file not found")
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as error:
        raise SourceFormatError(
            path, None, "not a torch.save zip archive (legacy pre-1.6 format or corrupt); re-save it with torch >= 1.6"
        ) from error


def _read_pickled(archive: zipfile.ZipFile, path: Path) -> tuple[str, object]:
    prefix = _archive_prefix(archive, path)
    with archive.open(f"{prefix}/data.pkl") as stream:
        return prefix, _unpickle(_TorchUnpickler(stream, path), path)


def _map_tensors(obj: object, convert: Callable[[_TensorRef], object]) -> object:
    if isinstance(obj, _TensorRef):
        return convert(obj)
    if isinstance(obj, dict):
        return {key: _map_tensors(value, convert) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return type(obj)(_map_tensors(value, convert) for value in obj)
    return obj


def _numpy_dtype(storage_type: _StorageType, byteorder: str) -> np.dtype[Any]:
    code = _STORAGE_DTYPES[storage_type.name]
    return np.dtype(code.replace("<", ">") if byteorder == "big" else code)


def peek_torch_file(path: Path) -> object:
    """Like `load_torch_file` but tensors become `TensorSpec` (shape, dtype); storages are not read."""
    with _open_archive(path) as archive:
        _, obj = _read_pickled(archive, path)

    def spec(ref: _TensorRef) -> TensorSpec:
        dtype = (
            "float32"
            if ref.storage.storage_type.name == "BFloat16Storage"
            else np.dtype(_STORAGE_DTYPES[ref.storage.storage_type.name]).name
        )
        return TensorSpec(ref.size, dtype)

    return _map_tensors(obj, spec)


def load_torch_file(path: Path) -> object:
    """Load a `torch.save` zip file; tensors come back as numpy arrays (bfloat16 widened to float32)."""
    with _open_archive(path) as archive:
        prefix, obj = _read_pickled(archive, path)
        names = set(archive.namelist())
        byteorder = archive.read(f"{prefix}/byteorder").decode().strip() if f"{prefix}/byteorder" in names else "little"
        if byteorder not in ("little", "big"):
            raise SourceFormatError(path, None, f"byteorder record is {byteorder!r}; allowed: 'little', 'big'")
        storages: dict[str, np.ndarray[Any, Any]] = {}

        def storage_array(ref: _StorageRef) -> np.ndarray[Any, Any]:
            if ref.key not in storages:
                member = f"{prefix}/data/{ref.key}"
                if member not in names:
                    raise SourceFormatError(path, None, f"storage record {member} is missing")
                dtype = _numpy_dtype(ref.storage_type, byteorder)
                raw = archive.read(member)
                if len(raw) != ref.numel * dtype.itemsize:
                    raise SourceFormatError(
                        path,
                        None,
                        f"storage {member} has {len(raw)} bytes; {ref.storage_type.name} of {ref.numel} elements "
                        f"needs {ref.numel * dtype.itemsize}",
                    )
                storages[ref.key] = np.frombuffer(raw, dtype=dtype)
            return storages[ref.key]

        def tensor(ref: _TensorRef) -> np.ndarray[Any, Any]:
            return _view(storage_array(ref.storage), ref, path)

        return _map_tensors(obj, tensor)


def _view(storage: np.ndarray[Any, Any], ref: _TensorRef, path: Path) -> np.ndarray[Any, Any]:
    """Apply offset/size/stride to the flat storage, bounds-checked, as an owned native-endian array."""
    if ref.offset < 0 or any(s < 0 for s in ref.size) or any(st < 0 for st in ref.stride):
        raise SourceFormatError(
            path,
            None,
            f"tensor has offset {ref.offset}, size {ref.size}, stride {ref.stride}; negative values are not allowed",
        )
    count = int(np.prod(ref.size, dtype=np.int64)) if ref.size else 1
    last = (
        ref.offset + sum((s - 1) * st for s, st in zip(ref.size, ref.stride, strict=True)) if count else ref.offset - 1
    )
    if last >= storage.size:
        raise SourceFormatError(
            path,
            None,
            f"tensor of size {ref.size}, stride {ref.stride}, offset {ref.offset} reads element {last}; "
            f"storage {ref.storage.key} has {storage.size}",
        )
    strides = tuple(st * storage.itemsize for st in ref.stride)
    array = (
        np.lib.stride_tricks.as_strided(storage[ref.offset :], shape=ref.size, strides=strides)
        if count
        else np.empty(ref.size, storage.dtype)
    )
    # np.array (not ascontiguousarray, which turns 0-d into 1-d) copies out of the shared read-only buffer.
    native = np.array(array, dtype=array.dtype.newbyteorder("="), order="C", copy=True)
    if ref.storage.storage_type.name == "BFloat16Storage":
        return (native.astype(np.uint32) << 16).view(np.float32)
    return native
