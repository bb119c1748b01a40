"""Questions with known answers, and their JSONL files (one `Question` object per line)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from grasp_agent.errors import DataFileError, GraspError

Split = Literal["train", "valid", "test"]


class QuestionFileError(DataFileError):
    """A question file is missing or has a malformed line; the message names the file and line."""


class QuestionGenerationError(GraspError):
    """A question generator was given an argument outside its allowed range."""


def check_generation(count: int, max_answers: int) -> None:
    """The arguments every question generator shares: how many, and the most answers a question may have."""
    if count < 0:
        raise QuestionGenerationError(f"count must be >= 0, got {count}")
    if max_answers < 1:
        raise QuestionGenerationError(f"max_answers must be >= 1, got {max_answers}")


class GoldAnchor(BaseModel):
    """A node the question mentions by name (what an entity linker should find)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    type: str = Field(min_length=1)
    name: str = Field(min_length=1)


class Question(BaseModel):
    """A natural-language question whose correct answers are the nodes `answer_ids` (all of `target_type`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    answer_ids: tuple[str, ...] = Field(min_length=1)
    template: str = Field(min_length=1)
    target_type: str = Field(min_length=1)
    anchors: tuple[GoldAnchor, ...]
    split: Split

    @field_validator("answer_ids")
    @classmethod
    def _distinct_answers(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({answer for answer in value if value.count(answer) > 1})
        if repeated:
            raise ValueError(f"answer ids must be distinct; repeated: {repeated}")
        return value


def write_questions(path: Path, questions: Iterable[Question]) -> None:
    """Write `questions` to `path` as JSONL (UTF-8, one object per line), replacing the file."""
    with Path(path).open("w", encoding="utf-8") as handle:
        handle.writelines(question.model_dump_json() + "\n" for question in questions)


def read_questions(path: Path) -> list[Question]:
    """The questions of a JSONL file in file order; blank lines are allowed.

    Raises:
        QuestionFileError: the file is missing, a line is not a JSON object, fails validation
            (the message lists each bad field), or repeats an earlier question id.
    """
    path = Path(path)
    if not path.is_file():
        raise QuestionFileError(path, None, "question file not found")
    questions: list[Question] = []
    first_line: dict[str, int] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            question = _parse_line(path, number, line)
            if question.id in first_line:
                raise QuestionFileError(path, number, f"duplicate question id {question.id!r} "
                                                      f"(first on line {first_line[question.id]})")
            first_line[question.id] = number
            questions.append(question)
    return questions


def json_object_line(path: Path, number: int, line: str, error_type: type[DataFileError]) -> dict[str, Any]:
    """One JSONL line as a JSON object; anything else is `error_type` naming the file and line."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise error_type(path, number, f"not valid JSON ({error.msg} at column {error.colno})") from error
    if not isinstance(data, dict):
        raise error_type(path, number, f"expected a JSON object, got {type(data).__name__}")
    return data


def _parse_line(path: Path, number: int, line: str) -> Question:
    data = json_object_line(path, number, line, QuestionFileError)
    try:
        return Question.model_validate(data)
    except ValidationError as error:
        problems = [f"{'.'.join(str(part) for part in item['loc']) or '<line>'}: {item['msg']}"
                    for item in error.errors()]
        raise QuestionFileError(path, number, "invalid question: " + "; ".join(problems), problems) from error


__all__ = ["GoldAnchor", "Question", "QuestionFileError", "QuestionGenerationError", "Split",
           "read_questions", "write_questions"]
