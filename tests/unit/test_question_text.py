"""The question gate: what is refused before any work, and that a good question passes unchanged but stripped."""

from __future__ import annotations

import pytest

from grasp_agent.errors import QuestionError
from grasp_agent.question_text import checked_question


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"the question is empty"),
        (" \t\n ", r"the question is empty"),
        ("x" * 2001, r"the question is 2,001 characters; at most 2,000 are accepted \(GRASP_MAX_QUESTION_CHARS\)"),
        ("which genes \ud800 cause it?", r"lone surrogate '\\ud800' at character 12"),
        ("?!? ...", r"has no letters or digits"),
        (None, r"a question is text, got NoneType"),
    ],
)
def test_bad_questions_are_refused_with_the_reason(text: object, message: str) -> None:
    with pytest.raises(QuestionError, match=message):
        checked_question(text)


def test_a_good_question_passes_stripped_and_the_limit_is_a_parameter() -> None:
    assert checked_question("  Which diseases present with seizures?\n") == "Which diseases present with seizures?"
    assert checked_question("épilepsie 癫痫") == "épilepsie 癫痫"
    with pytest.raises(QuestionError, match="at most 20"):
        checked_question("a" * 21, max_chars=20)


def test_the_error_is_a_value_error_for_callers_that_catch_those() -> None:
    with pytest.raises(ValueError):
        checked_question("")
