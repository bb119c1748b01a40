"""Mentions without an LLM: word spans of the question that are, or closely match, a node name of some type.

Two sources of candidates. The SKB's name dictionary (names and synonyms, `name_dictionary`) finds every exact
name the question writes, in any case, inside hyphen compounds, in the plural; those score 1. Every span of up
to `max_words` words that neither starts nor ends with a function word is also embedded with the name encoder
and linked (top 1 per type) in one round trip, for what no dictionary holds (typos, paraphrases). Candidates are
then taken greedily, best score first, longer first on ties, never overlapping: so an exact whole name beats
its exact parts ("distal muscle weakness" over "Distal" and "muscle weakness"). An embedded span that contains
an exact name and links to a longer name holding it ("distal muscle weakenss" -> Distal muscle weakness) counts
as exact too. Works because node names are short noun phrases and the name encoder scores a paraphrase of a
name ("epileptic spasms") close to it (0.94) and a sentence fragment around it lower ("present with epileptic
spasms", 0.92).

Linking costs about 4 ms a span (embedding 1 ms), and spans grow with the question: 1,992 characters of random
two-letter words gave 5,284 spans and a minute of work. So at most `max_spans` spans are linked, shortest first
(every word alone before any pair), in chunks: the first always runs, a later one only if it should end within
`budget_s` of the start of extraction; at most `max_mentions` anchors are kept, best first. The eval sets'
questions (at most 126 spans, 4 anchors) are never cut.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.function_words import FUNCTION_WORDS
from grasp_agent.graph_branch.mentions import Mention, MentionRole
from grasp_agent.graph_branch.name_dictionary import NameDictionary, within_one_edit
from grasp_agent.graph_branch.name_frames import framed_keywords, schema_name_words
from grasp_agent.graph_branch.phrases import holds_words, phrase_key
from grasp_agent.graph_branch.procedure_calls import SCAN_CANDIDATES, GraphProcedures, NodeLink
from grasp_agent.graph_branch.quotes import QUOTE_MARKS, quoted_ranges
from grasp_agent.graph_branch.schema_paths import target_mention, type_words
from grasp_agent.graph_branch.type_words import plural_type_words
from grasp_agent.skb.schema import SkbSchema

_WORD = re.compile(r"[\w][\w'+/.:-]*\w|\w")
DEFAULT_MIN_SCORE = 0.9
# HPO names run long ("Mixed hypo- and hyperpigmentation of the skin" is 7 words); spans grow linearly with it.
MAX_SPAN_WORDS = 8
MAX_SPANS = 256  # GRASP_MENTION_MAX_SPANS: about 1.5 s of embedding and linking on 2 cores
BUDGET_S = 1.0  # GRASP_MENTION_BUDGET_S
# Spans embedded and linked per round trip: the first chunk holds every span of the eval sets' questions (so
# they are never cut); a later chunk starts only when the time the earlier ones took says it ends in budget.
FIRST_CHUNK_SPANS = 128
CHUNK_SPANS = 64
# Anchor mentions kept, best first: the 150 eval questions with the most spans name at most 4 things, and a
# plan joining 19 anchors of random words ran into the graph branch's 5 s execution budget.
MAX_MENTIONS = 6

logger = logging.getLogger(__name__)


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
            if any(mark in text for mark in QUOTE_MARKS):
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
        dictionary: NameDictionary | None = None,
        max_spans: int = MAX_SPANS,
        budget_s: float = BUDGET_S,
        max_mentions: int = MAX_MENTIONS,
    ) -> None:
        self._procedures = procedures
        self._embedder = name_embedder
        self._schema = schema
        self._min_score = min_score
        self._max_words = max_words
        self._dictionary = dictionary
        self._max_spans = max_spans
        self._budget_s = budget_s
        self._max_mentions = max_mentions
        self._type_words = frozenset(w for t in schema.node_types for w in type_words(t))
        self._name_words = schema_name_words(schema)
        self._plural_type_words = plural_type_words(schema)
        # the words a misspelt longer name may be written among (`_spells`): function words and type words
        self._frame_keys = frozenset(phrase_key(word) for word in FUNCTION_WORDS) | frozenset(
            word for phrase in self._type_words for word in phrase_key(phrase).split()
        )

    def extract(self, question: str) -> list[Mention]:
        mentions = [Mention(text=span.text, types=labels) for span, labels in self._linked_spans(question)]
        target = target_mention(question, self._schema, [m.text for m in mentions])
        if target is not None:
            mentions.append(Mention(text=target[1], types=(target[0],), role=MentionRole.TARGET))
        return mentions

    def _linked_spans(self, question: str) -> list[tuple[Span, tuple[str, ...]]]:
        deadline = time.monotonic() + self._budget_s
        exact = self._exact_spans(question)
        embedded = self._embedded_spans(question, exact, deadline)
        return choose_spans([*exact, *embedded], self._max_mentions)

    def _exact_spans(self, question: str) -> list[ScoredSpan]:
        """The dictionary's matches as candidates of score 1, except a type word, only function words, or a match
        inside quotation marks (a quoted passage is a description or a keyword, as the described-mention finder
        reads it, not a name: 'name ~ "X-linked"')."""
        if self._dictionary is None:
            return []
        quoted = quoted_ranges(question)
        framed = framed_keywords(question, self._name_words)
        found = []
        for match in self._dictionary.matches(question):
            words = match.text.lower().split()
            if match.text.lower() in self._type_words or all(w in FUNCTION_WORDS for w in words):
                continue
            if any(start < match.start and match.end <= end for start, end in quoted):
                continue
            if _overlaps(match.start, match.end, framed):
                continue
            span = Span(match.start, match.end, match.text, match.words)
            # a match through a corrected typo yields to an exact one of as many words
            found.append(ScoredSpan(span, 1.0, match.labels[:2], key=phrase_key(match.text), promoted=match.corrected))
        return found

    def _ends_in_a_set(self, span: Span) -> bool:
        """Whether a span of several words ends with a plural type word ("Rhizomelic disorders"): it names a set
        of that type, the asked one, not one node; a cosine would still link it to the nearest single name."""
        lowered = span.text.lower()
        return span.words > 1 and any(lowered.endswith(" " + word) for word in self._plural_type_words)

    def _embedded_spans(self, question: str, exact: list[ScoredSpan], deadline: float) -> list[ScoredSpan]:
        """Spans linked through the name index: those `bounded_spans` keeps, chunk by chunk while time is left;
        none inside quotation marks, as for the dictionary's matches (a quoted passage is a description or a
        keyword: 'diseases named "Amyotrophy"' asks for a word of their names, not for the phenotype)."""
        exact_spans = {(item.span.start, item.span.end) for item in exact}
        quoted = quoted_ranges(question)
        framed = framed_keywords(question, self._name_words)
        spans = [
            span
            for span in candidate_spans(question, self._max_words, excluded=self._type_words)
            if (span.start, span.end) not in exact_spans
            and not any(start < span.start and span.end <= end for start, end in quoted)
            and not _overlaps(span.start, span.end, framed)
            and not self._ends_in_a_set(span)
        ]
        kept = bounded_spans(spans, self._max_spans)
        labels = [t.label for t in self._schema.node_types]
        scored: list[ScoredSpan] = []
        started, done = time.monotonic(), 0
        while done < len(kept):
            size = FIRST_CHUNK_SPANS if done == 0 else CHUNK_SPANS
            now = time.monotonic()
            if done and now + (now - started) / done * min(size, len(kept) - done) > deadline:
                logger.info("mention extraction: out of time after %d of %d spans", done, len(spans))
                break
            chunk, done = kept[done : done + size], done + size
            vectors = self._embedder.embed_texts([span.text for span in chunk])
            links = self._procedures.link_many(
                {str(i): v for i, v in enumerate(vectors)}, labels, "name", 1, 0.0, SCAN_CANDIDATES
            )
            scored += self._scored(chunk, [links[str(i)] for i in range(len(chunk))], exact)
        return scored

    def _scored(self, spans: list[Span], links: list[list[NodeLink]], exact: list[ScoredSpan]) -> list[ScoredSpan]:
        """Each span's best link, if it reaches min_score. One that contains an exact name and links to a longer
        name holding it scores 1 too (promoted), when that name is not itself written exactly in the question, has
        about as many words as the span (within one), the span cuts no exact name in two and writes no word the
        name lacks but a slip of one (`_spells`): a misspelt longer name ("distal muscle weakenss"), not a fragment
        around one ("gene with Autosomal recessive spastic paraplegia", "X conditions presenting Y"), nor a
        reordering of an exact name inside it."""
        exact_keys = {item.key for item in exact}
        scored = []
        for span, candidates in zip(spans, links, strict=True):
            best = max(candidates, key=lambda link: link.score, default=None)
            if best is None or best.score < self._min_score:
                continue
            linked_key, span_key = phrase_key(best.name), phrase_key(span.text)
            if (
                self._dictionary is not None
                and linked_key == span_key
                and self._dictionary.lookup(span.text, best.label)
            ):
                # the dictionary holds this very name and did not admit the span (an ordinary word written like a
                # symbol in lower case: "rest" is no REST); an uncased encoder must not let it back in at cosine 1
                continue
            inside = [item for item in exact if item.span.start >= span.start and item.span.end <= span.end]
            cuts = any(
                item.span.start < span.end and span.start < item.span.end and item not in inside for item in exact
            )
            linked_words = set(linked_key.split())
            promoted = (
                not cuts
                and linked_key not in exact_keys
                # the linked name is no more than an exact name inside, reordered ("Aortic aneurysm, abdominal" for
                # "diseases, Abdominal aortic aneurysm"): the span adds only words around it
                and not any(linked_words <= set(item.key.split()) for item in inside)
                and abs(len(linked_key.split()) - len(span_key.split())) <= 1
                and any(
                    holds_words(linked_key, item.key) and len(linked_key.split()) > len(item.key.split())
                    for item in inside
                )
                and self._spells(span_key, linked_words)
            )
            scored.append(ScoredSpan(span, 1.0 if promoted else best.score, (best.label,), promoted=promoted))
        return scored

    def _spells(self, span_key: str, linked_words: set[str]) -> bool:
        """Whether every word of the span is a word of the linked name, a slip of one (one edit away), or a
        function or type word: what a misspelt name is written with. "Craniosynostosis conditions presenting
        bicoronal synostosis" holds two names and a verb, no misspelling of "Non-syndromic bicoronal
        craniosynostosis"."""
        return all(
            word in self._frame_keys or any(within_one_edit(word, name_word) for name_word in linked_words)
            for word in span_key.split()
        )


@dataclass(frozen=True)
class ScoredSpan:
    span: Span
    score: float
    labels: tuple[str, ...]
    key: str = ""  # the dictionary key of an exact match
    promoted: bool = False  # scored as exact without being one: a corrected typo, an embedded longer name


def _overlaps(start: int, end: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start < stop and begin < end for begin, stop in ranges)


def bounded_spans(spans: list[Span], max_spans: int) -> list[Span]:
    """At most `max_spans` spans in the order they are linked: fewer words first, then earlier. Pure."""
    return sorted(spans, key=lambda span: (span.words, span.start))[:max_spans]


def choose_spans(candidates: list[ScoredSpan], max_mentions: int = MAX_MENTIONS) -> list[tuple[Span, tuple[str, ...]]]:
    """Greedy, best score first, then more words, exact names before promoted spans, then earlier; never
    overlapping; at most `max_mentions`; in question order. A span short of exact whose words a chosen span of
    the same type holds is that span said again ("temper tantrums that occur more frequently compared to the
    temper tantrums that are seen"): as a second anchor it would conjoin one thing with a near neighbour of
    itself, so it is left out. Pure."""
    chosen: list[ScoredSpan] = []
    for item in sorted(candidates, key=lambda c: (-c.score, -c.span.words, c.promoted, c.span.start)):
        if len(chosen) == max_mentions:
            break
        if any(item.span.end > other.span.start and item.span.start < other.span.end for other in chosen):
            continue
        if item.score < 1.0 and any(_repeats(item, other) for other in chosen):
            continue
        chosen.append(item)
    return [(item.span, item.labels) for item in sorted(chosen, key=lambda c: c.span.start)]


def _repeats(item: ScoredSpan, other: ScoredSpan) -> bool:
    """Whether `item` links to a type `other` links to and its words are a run of `other`'s words."""
    part = phrase_key(item.span.text)
    same_type = bool(set(item.labels) & set(other.labels))
    return bool(part) and same_type and holds_words(phrase_key(other.span.text), part)
