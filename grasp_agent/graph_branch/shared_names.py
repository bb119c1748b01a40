"""A name several types share ("Georgia": a country and a US state; "Zürich": a city and a canton): which type a
question means (issue #31, 4e). Both link exactly, so the cosine cannot choose, and the first type listed used
to win. Two readings, both from the loaded schema:

1. a word of one type stands next to the name ("the US state of Georgia", "the city of Zürich", "the UN
   sub-region South America"): the type words are the schema's labels and aliases; not the word that names
   the asked type ("what is the capital of Luxembourg" asks for a city of the country);
2. else the type whose route to the asked type is better: one whose relations the question's words name, then
   the shorter ("which counties are in Georgia": a US state is one hop from its counties, the country two).
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from grasp_agent.graph_branch.entity_table import EntityRow
from grasp_agent.graph_branch.schema_paths import type_words
from grasp_agent.skb.schema import SkbSchema

TIE = 0.01  # exact names of two types link within cosine noise of each other
WORDS_BEFORE = 4  # "the UN sub-region of <name>", "the Belgian province of <name>"
WORDS_AFTER = 2  # "<name> the country", "<name> county"
_WORD = re.compile(r"[\w'-]+")


def tied_types(row: EntityRow, tie: float = TIE) -> list[str]:
    """The types whose best link is within `tie` of the row's best (in the row's order)."""
    best = row.best
    if best is None:
        return []
    return [label for label, links in row.links.items() if links and links[0].score >= best.score - tie]


def _window(question: str, mention: str) -> str:
    """The words around the mention's first occurrence, lower case, hyphens kept ("sub-region")."""
    lowered = question.lower()
    start = lowered.find(mention.lower())
    if start < 0:
        return ""
    before = _WORD.findall(lowered[:start])[-WORDS_BEFORE:]
    after = _WORD.findall(lowered[start + len(mention) :])[:WORDS_AFTER]
    return " " + " ".join(before) + " | " + " ".join(after) + " "


def named_type_near(
    question: str, mention: str, candidates: Sequence[str], schema: SkbSchema, asked: str | None = None
) -> str | None:
    """The one candidate type a word next to the mention names; None when none or several are named. `asked`:
    the words that name the asked type ("What is the *capital* of Luxembourg?"), which name the answer, not
    the mention."""
    window = _window(question, mention)
    if asked:
        window = window.replace(f" {asked.lower()} ", " ", 1)
    named = [
        label for label in candidates if any(f" {word} " in window for word in type_words(schema.node_type(label)))
    ]
    return named[0] if len(named) == 1 else None


def better_routed(candidates: Sequence[str], route_key: Callable[[str], tuple[int, int] | None]) -> str | None:
    """The candidate whose route ranks first by `route_key` (larger is better; None: no route), if only one."""
    keyed = [(key, label) for label in candidates if (key := route_key(label)) is not None]
    if not keyed:
        return None
    best = max(key for key, _ in keyed)
    leaders = [label for key, label in keyed if key == best]
    return leaders[0] if len(leaders) == 1 else None


__all__ = ["TIE", "better_routed", "named_type_near", "tied_types"]
