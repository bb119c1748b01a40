"""The one gate every question passes before any work: empty, over-long and non-Unicode text is refused.

A 100,000-character question once ran 390 s and 2 GB in planning before failing; a lone surrogate broke the
text branch's tokenizer; a whitespace-only one returned arbitrary hits. Pure, so every entry point (API, CLI,
UI, LangChain tool) applies the same rule.
"""

from __future__ import annotations

from grasp_agent.errors import QuestionError

DEFAULT_MAX_QUESTION_CHARS = 2000


def checked_question(text: object, max_chars: int = DEFAULT_MAX_QUESTION_CHARS) -> str:
    """`text` stripped, or a QuestionError that says what is wrong and what is allowed."""
    if not isinstance(text, str):
        raise QuestionError(f"a question is text, got {type(text).__name__}")
    question = text.strip()
    if not question:
        raise QuestionError("the question is empty; ask about the loaded knowledge base in words")
    if len(question) > max_chars:
        raise QuestionError(
            f"the question is {len(question):,} characters; at most {max_chars:,} are accepted "
            "(GRASP_MAX_QUESTION_CHARS)"
        )
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as error:
        raise QuestionError(
            f"the question holds a lone surrogate {question[error.start]!r} at character "
            f"{error.start}; it must be valid Unicode text"
        ) from error
    if not any(character.isalnum() for character in question):
        raise QuestionError(f"the question {question[:40]!r} has no letters or digits")
    return question
