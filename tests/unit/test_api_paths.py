"""`Grasp.paths()` checks its arguments before any work, as `search()` does (issue #32, finding 9): a wrong type,
an out-of-range k or an unknown mode is a ValidationError naming the argument, not a TypeError or OverflowError
from the driver, nor a value silently read as something else."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from grasp_agent.api import MAX_TOPIC_IDS, Grasp, PathArguments

BAD_ARGUMENTS: list[tuple[str, Any]] = [
    ("k", 0),
    ("k", -3),
    ("k", 1001),
    ("k", 2**70),  # was an OverflowError in the driver
    ("k", "5"),  # was a TypeError
    ("k", 5.0),
    ("k", True),
    ("topic_ids", "OMIM:1"),  # was read as the ids 'O', 'M', 'I', ...
    ("topic_ids", ["OMIM:1", None]),
    ("topic_ids", [1.5]),
    ("topic_ids", [True]),
    ("topic_ids", [2**63]),  # beyond Neo4j's 64-bit integers
    ("topic_ids", [""]),
    ("topic_ids", [{"id": "OMIM:1"}]),
    ("topic_ids", ["HP:1"] * (MAX_TOPIC_IDS + 1)),
    ("meta_paths", "bogus"),
    ("meta_paths", None),
    ("scorer", "bogus"),
    ("scorer", ""),
    ("exclude_bank_queries", "q1"),
    ("exclude_bank_queries", [1]),
]


def unconnected_grasp() -> Grasp:
    """A Grasp with no parts at all: anything past the argument check would fail on a missing attribute."""
    return Grasp.__new__(Grasp)


@pytest.mark.parametrize(
    ("name", "value"), BAD_ARGUMENTS, ids=[f"{name}={value!r:.30}" for name, value in BAD_ARGUMENTS]
)
def test_paths_refuses_a_bad_argument_before_any_work(name: str, value: Any) -> None:
    with pytest.raises(ValidationError) as refused:
        unconnected_grasp().paths("Which genes are associated with West syndrome?", **{name: value})
    assert [error["loc"][0] for error in refused.value.errors()] == [name] * len(refused.value.errors())


def test_good_arguments_are_kept_as_given() -> None:
    arguments = PathArguments(
        topic_ids=["OMIM:308350", 1001, -(2**63)],
        meta_paths="none",
        scorer="llm",
        k=1000,
        exclude_bank_queries=["q1"],
    )
    assert arguments.topic_ids == ["OMIM:308350", 1001, -(2**63)]
    assert (arguments.meta_paths, arguments.scorer, arguments.k) == ("none", "llm", 1000)
    assert arguments.exclude_bank_queries == ["q1"]
    defaults = PathArguments()
    assert (defaults.topic_ids, defaults.meta_paths, defaults.scorer, defaults.k) == (None, "bank", None, None)
    assert PathArguments.model_validate({"topic_ids": ("HP:1",)}).topic_ids == ["HP:1"]  # a tuple will do
    assert PathArguments(topic_ids=[]).topic_ids == []  # no ids given: paths() links the question's anchors
