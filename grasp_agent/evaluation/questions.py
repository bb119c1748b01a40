"""What the question generators (HPO questions, the HPO benchmark) and the query readers share: the split
names, argument checks, one JSONL line as a JSON object. A generated question is an `EvalQuery`
(query_sets.py), the one type of a question with known answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from grasp_agent.errors import DataFileError, GraspError

Split = Literal["train", "valid", "test"]


class QuestionGenerationError(GraspError):
    """A question generator was given an argument outside its allowed range."""


def check_generation(count: int, max_answers: int) -> None:
    """The arguments every question generator shares: how many, and the most answers a question may have."""
    if count < 0:
        raise QuestionGenerationError(f"count must be >= 0, got {count}")
    if max_answers < 1:
        raise QuestionGenerationError(f"max_answers must be >= 1, got {max_answers}")


def json_object_line(path: Path, number: int, line: str, error_type: type[DataFileError]) -> dict[str, Any]:
    """One JSONL line as a JSON object; anything else is `error_type` naming the file and line."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise error_type(path, number, f"not valid JSON ({error.msg} at column {error.colno})") from error
    except RecursionError as error:  # past Python's recursion limit (~1,000 levels)
        raise error_type(path, number, "JSON nested too deeply") from error
    if not isinstance(data, dict):
        raise error_type(path, number, f"expected a JSON object, got {type(data).__name__}")
    return data


__all__ = ["QuestionGenerationError", "Split", "check_generation", "json_object_line"]
