"""require(): the module when it imports, else the caller's error naming what needs it and how to install it."""

from __future__ import annotations

import json
import sys

import pytest

from grasp_agent.errors import EmbeddingError
from grasp_agent.optional_imports import require


def test_an_importable_module_comes_back() -> None:
    assert require("json", need="x needs json", hint="nothing") is json


def test_a_missing_module_raises_the_callers_error_with_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` fail
    with pytest.raises(
        EmbeddingError,
        match=r"^the backend needs onnxruntime, which cannot be imported \(.*\); "
        r"run: pip install onnxruntime$",
    ) as error:
        require(
            "onnxruntime",
            need="the backend needs onnxruntime",
            hint="pip install onnxruntime",
            error_type=EmbeddingError,
        )
    assert isinstance(error.value.__cause__, ImportError)
