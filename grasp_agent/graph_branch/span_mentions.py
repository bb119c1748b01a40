"""Mentions without an LLM: word spans of the question that closely match a node name of some type.

Every span of up to `max_words` words that neither starts nor ends with a function word is embedded with the
name encoder and linked (top 1 per type) in one round trip; spans are then taken greedily, best cosine first,
longer first on ties, never overlapping. Works because node names are short noun phrases and the name
encoder scores a paraphrase of a name ("epileptic spasms") close to it (0.94) and a sentence fragment
around it lower ("present with epileptic spasms", 0.92).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.mentions import Mention, MentionRole
from grasp_agent.graph_branch.procedure_calls import GraphProcedures
from grasp_agent.graph_branch.schema_paths import target_mention, type_words
from grasp_agent.skb.schema import SkbSchema

FUNCTION_WORDS = frozenset(
    """
a an the and or but nor of in on at to for from by with without within into onto about as than that this these
those is are was were be been being has have had do does did can could may might must shall should will would
which what who whom whose where when why how whether not no any all some each every both either neither
there their its it they them he she his her we our you your i me my also only just very more most less least
other another such same kind kinds type types sort related relate relates linked link links associated
associate associates present presents presenting show shows showing feature features featuring cause causes
caused have having known list name find identify give tell specific particular certain
exclude excluded excluding lack lacks lacking lacked documented explicitly
""".split()
)  # noqa: SIM905 (a word list reads best as text)
_WORD = re.compile(r"[\w][\w'+/.:-]*\w|\w")
_QUOTE_MARKS = ('"', "\u201c", "\u201d", "\u00ab", "\u00bb")
DEFAULT_MIN_SCORE = 0.9
# HPO names run long ("Mixed hypo- and hyperpigmentation of the skin" is 7 words); spans grow linearly with it.
MAX_SPAN_WORDS = 8


@dataclass(frozen=True)
class Span:
    start: int  # character offsets into the question
    end: int
    text: str
    words: int


def candidate_spans(
    question: str,
    max_words: int = 6,
    function_words: frozenset[str] = FUNCTION_WORDS,
    excluded: frozenset[str] = frozenset(),
) -> list[Span]:
    """Spans of 1..max_words words whose first and last words are content words; `excluded` phrases
    (e.g. type words like 'diseases') are never spans themselves, and no span crosses a quotation mark (a name
    does not hold one: 'abnormality described as "Head' is half a frame and half a quoted definition)."""
    words = list(_WORD.finditer(question))
    spans = []
    for i, first in enumerate(words):
        if first.group().lower() in function_words:
            continue
        for j in range(i, min(len(words), i + max_words)):
            last = words[j]
            if last.group().lower() in function_words:
                continue
            text = question[first.start() : last.end()]
            if any(mark in text for mark in _QUOTE_MARKS):
                break  # longer spans from this word cross it too
            if text.lower() not in excluded:
                spans.append(Span(first.start(), last.end(), text, j - i + 1))
    return spans


class SpanMentionFinder:
    """The heuristic extractor: anchor mentions from name-index matches, the target from the type word."""

    name = "spans"

    def __init__(
        self,
        procedures: GraphProcedures,
        name_embedder: GraspEmbedder,
        schema: SkbSchema,
        min_score: float = DEFAULT_MIN_SCORE,
        max_words: int = MAX_SPAN_WORDS,
    ) -> None:
        self._procedures = procedures
        self._embedder = name_embedder
        self._schema = schema
        self._min_score = min_score
        self._max_words = max_words
        self._type_words = frozenset(w for t in schema.node_types for w in type_words(t))

    def extract(self, question: str) -> list[Mention]:
        mentions = [Mention(text=span.text, types=(label,)) for span, label in self._linked_spans(question)]
        target = target_mention(question, self._schema, [m.text for m in mentions])
        if target is not None:
            mentions.append(Mention(text=target[1], types=(target[0],), role=MentionRole.TARGET))
        return mentions

    def _linked_spans(self, question: str) -> list[tuple[Span, str]]:
        spans = candidate_spans(question, self._max_words, excluded=self._type_words)
        if not spans:
            return []
        vectors = self._embedder.embed_texts([span.text for span in spans])
        labels = [t.label for t in self._schema.node_types]
        links = self._procedures.link_many({str(i): v for i, v in enumerate(vectors)}, labels, "name", 1, 0.0)
        scored = []
        for i, span in enumerate(spans):
            best = max(links[str(i)], key=lambda link: link.score, default=None)
            if best is not None and best.score >= self._min_score:
                scored.append((best.score, span.words, span, best.label))
        chosen: list[tuple[Span, str]] = []
        for _, _, span, label in sorted(scored, key=lambda item: (-item[0], -item[1], item[2].start)):
            if all(span.end <= other.start or span.start >= other.end for other, _ in chosen):
                chosen.append((span, label))
        return sorted(chosen, key=lambda item: item[0].start)
