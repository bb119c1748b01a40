"""Importing a package the core install may leave out, with an error that says how to install it.

    torch = require("torch", need="training field weights needs torch", hint="pip install 'grasp-agent[train]'",
                    error_type=TextBranchError)

Optional packages are imported inside the functions that use them, so importing grasp never needs them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from grasp_agent.errors import GraspError


def require(module_name: str, *, need: str, hint: str, error_type: type[GraspError] = GraspError) -> ModuleType:
    """`module_name`, imported. If it cannot be, `error_type` raised from the ImportError, saying `need` (what
    needs which package), the import error and `hint` (what to install, or to set instead)."""
    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        raise error_type(f"{need}, which cannot be imported ({error}); run: {hint}") from error
