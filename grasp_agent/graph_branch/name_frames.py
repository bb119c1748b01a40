"""Keywords a question frames by the word for a name: 'diseases whose name contains spastic', 'the countries
with "land" in their name', 'a film whose title includes Star'.

Such a word is asked of the answer's name, as a quoted keyword is (`quoted_words`): it is no mention to link
("spastic" is not the phenotype Spasticity here) and no description. The words for a name come from the schema
(each type's `name_field`, split at underscores, and `name`, the property every loaded node has); the verbs and
prepositions that tie a keyword to them are English grammar, not any SKB's terms. A framed keyword is one word
(hyphens and apostrophes inside it, "X-linked"), or a run of up to MAX_WORDS capitalised ones ("Van Maldergem");
a lower-case second word is left out, since nothing marks where an unquoted keyword ends, and its first word
alone still narrows the names to a superset. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from grasp_agent.graph_branch.function_words import FUNCTION_WORDS
from grasp_agent.graph_branch.quoted_words import MAX_WORDS
from grasp_agent.skb.schema import SkbSchema

# What a name does to a keyword it holds: 'name contains X', 'name has the word X', 'title starting with X'.
_HOLDS = (
    r"(?:contains?|containing|includes?|including|has|having|holds?|holding|mentions?|mentioning|features?|"
    r"featuring|bears?|bearing|carries|carrying|uses?|using|says|reads|starts?\s+with|starting\s+with|"
    r"begins?\s+with|beginning\s+with|ends?\s+with|ending\s+with|with)"
)
_FILLER = r"(?:(?:the|a)\s+(?:word|term|string|part|text)\s+)?"
_WORD = r"[^\W_][\w'’-]*"


def name_words(name_fields: Iterable[str]) -> frozenset[str]:
    """The words for a name: 'name', and the words of each type's name property ('full_title' -> full, title)."""
    words = {"name"}
    for field in name_fields:
        words.update(part for part in field.lower().split("_") if len(part) > 2)
    return frozenset(words)


def schema_name_words(schema: SkbSchema) -> frozenset[str]:
    """`name_words` of every type's name property in the schema."""
    return name_words(node_type.name_field for node_type in schema.node_types)


def _frames(words: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    alternatives = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    noun = rf"(?:{alternatives})s?"
    after = re.compile(
        rf"\b(?P<noun>{noun})\s+(?P<relative>that\s+|which\s+)?{_HOLDS}\s+{_FILLER}[\"'“‘]?(?P<keyword>{_WORD})", re.I
    )
    around = re.compile(
        rf"\bwith\s+{_FILLER}[\"'“‘]?(?P<keyword>{_WORD})[\"'”’]?\s+in\s+(?:its|their|the|his|her)\s+{noun}\b", re.I
    )
    return after, around


def framed_keywords(question: str, words: frozenset[str]) -> list[tuple[int, int]]:
    """(start, end) of each keyword the question frames by a word for a name (`words`, from `name_words`), in
    question order; a quoted keyword is left to `quoted_words`."""
    found: list[tuple[int, int]] = []
    for pattern in _frames(words):
        for match in pattern.finditer(question):
            if _relative_of_another_noun(question, match):
                continue
            start, end = match.span("keyword")
            if start > 0 and question[start - 1] in "\"'“‘":
                continue  # quoted: `quoted_words` reads it
            found.append((start, _capitalised_run(question, start, end)))
    return sorted(set(found))


# A name given outright to a thing the speaker cannot say more of: "something called X", "anything named X". After
# a noun ("the country called Chad", "the one named X") the words name that entity, which is a mention, not the
# answer's name.
_CALLED = re.compile(
    rf"\b(?:something|anything|someone|somebody)\s+(?:called|named|termed)\s+(?P<keyword>{_WORD})", re.I
)


def called_keywords(question: str) -> list[tuple[int, int]]:
    """(start, end) of each keyword a question gives as a name outright ("The doctor mentioned something called
    Myopia ..."): a word of the named thing's name, or a run of capitalised ones (`_capitalised_run`), in question
    order. Unlike a framed keyword it may be an entity's own name too, so it is left to the mentions as well; a
    quoted one is `quoted_words`' and a function word is none. Pure."""
    found = []
    for match in _CALLED.finditer(question):
        start, end = match.span("keyword")
        if match.group("keyword").lower() in FUNCTION_WORDS:
            continue
        found.append((start, _capitalised_run(question, start, end)))
    return found


# The name as the object of "in": "a disease with X in its name that features Y" ends the frame at "name".
_IN_THE_NAME = re.compile(r"\bin\s+(?:its|their|the|his|her)\s+$", re.I)


def _relative_of_another_noun(question: str, match: re.Match[str]) -> bool:
    """Whether a relative clause after the word for a name belongs to the noun before it: in "a disease with X
    in its name that features Y" the disease features Y, its name does not hold Y."""
    return (
        "relative" in match.groupdict()
        and match.group("relative") is not None
        and _IN_THE_NAME.search(question, 0, match.start("noun")) is not None
    )


def _capitalised_run(question: str, start: int, end: int) -> int:
    """The end of the keyword: its one word, or up to MAX_WORDS capitalised words in a row when it is one."""
    if not question[start].isupper():
        return end
    for _ in range(MAX_WORDS - 1):
        following = re.match(rf"\s+(?P<word>{_WORD})", question[end:])
        if following is None or not following.group("word")[0].isupper():
            break
        end += following.end()
    return end


__all__ = ["called_keywords", "framed_keywords", "name_words", "schema_name_words"]
