"""The asked type of a question that names none, read from the loaded schema's own relations.

"What do people pay with in Japan?" names no type; the planner used to take what training questions with a
Country anchor asked for, or with nothing trained the SKB's most populous type (cities). Each relation step
the schema offers from an anchor's type is a *route card*: the relation's name and the type it reaches in
words ("uses currency currency"), and the relation's schema description ("the country uses the currency
(legal tender there)"). The question around its mentions is embedded and compared with both; a card's score is
the sum of the two cosines, a type's score the best card reaching it, summed over the anchors. The best type is
the asked type when it leads every other type by `margin`; otherwise the caller keeps its default. The planner
asks the reader unless most training questions with such anchors asked for one type (the answer-type prior,
kept by `grasp train all` only when it reads the SKB's valid questions better than the routes alone): read
before such a prior, the routes lost 5 questions on the HPO's frozen novel-wording set.

Nothing here names a term of one SKB: the cards are the schema's names and descriptions, the similarity is the
configured embedder's. The cards are embedded once per reader (and cached with every other text).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.relation_words import spaced_name
from grasp_agent.skb.schema import SkbSchema

# cosine-sum units: below it two types read alike and the caller's default decides. Chosen on the train splits of
# generated questions of two SKBs (HPO, geo): 0.05 let words like "what fits both?" decide; 0.3 left the words
# almost never a say.
DEFAULT_MARGIN = 0.15
# "Where is X?" asks for what X lies in, but "where" alone reads close to nothing on a card; its sense in words
# (English, no term of any SKB) lets the cards whose relation locates things answer it
_WHERE = re.compile(r"^\W*where\b", re.IGNORECASE)
WHERE_SENSE = "located in"


def with_wh_sense(frame: str) -> str:
    """The frame with the sense of a leading "where" added ("Where is?" -> "Where is? located in")."""
    return f"{frame} {WHERE_SENSE}" if _WHERE.match(frame) else frame


@dataclass(frozen=True)
class RouteCard:
    """One relation step from `anchor_type` to `target_type` (`outgoing`: in the stored direction)."""

    anchor_type: str
    relation: str
    outgoing: bool
    target_type: str
    name_text: str  # the relation's and the reached type's names in words, or a phrase of the schema's as a sentence
    description: str  # the relation's schema description (its name words when the schema has none)


def route_cards(schema: SkbSchema, patterns: Sequence[tuple[str, str, str]]) -> tuple[RouteCard, ...]:
    """A card per loaded (source, relation, target) pattern and direction, sorted (pure); and one more per
    phrase the schema gives the relation (`RelationType.phrases`), worded as a sentence in the walk's direction
    ("language is spoken in country" for Country -> Language along HAS_LANGUAGE), so word order tells the two
    directions of a relation apart where its name cannot."""
    relations = {relation.type: relation for relation in schema.relation_types}
    cards = set()
    for source, relation, target in patterns:
        known = relations.get(relation)
        description = known.description if known is not None else ""
        forward = known.phrases if known is not None else ()
        inverse = known.inverse_phrases if known is not None else ()
        for anchor, reached, outgoing in ((source, target, True), (target, source, False)):
            name_text = f"{spaced_name(relation)} {spaced_name(reached)}"
            texts = [name_text]
            # the stored source is the subject of a forward phrase, the stored target of an inverse one
            texts += [f"{spaced_name(source)} {phrase} {spaced_name(target)}" for phrase in forward]
            texts += [f"{spaced_name(target)} {phrase} {spaced_name(source)}" for phrase in inverse]
            for text in texts:
                cards.add(RouteCard(anchor, relation, outgoing, reached, text, description or name_text))
    return tuple(sorted(cards, key=lambda card: (card.anchor_type, card.relation, not card.outgoing, card.target_type)))


def type_scores(
    cards: Sequence[RouteCard], card_scores: Sequence[float], anchor_labels: Sequence[str]
) -> dict[str, float]:
    """Per reachable type, the sum over the anchors of the best score of a card from the anchor's type to it
    (pure). A type some anchor cannot reach in one step gets nothing from that anchor."""
    totals: dict[str, float] = {}
    for label in anchor_labels:
        best: dict[str, float] = {}
        for card, score in zip(cards, card_scores, strict=True):
            if card.anchor_type == label:
                best[card.target_type] = max(best.get(card.target_type, -np.inf), score)
        for target, score in best.items():
            totals[target] = totals.get(target, 0.0) + score
    return totals


def leading_type(scores: Mapping[str, float], margin: float) -> str | None:
    """The best-scoring type when it leads the runner-up by at least `margin` (or is the only one); else None."""
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < margin:
        return None
    return ranked[0][0]


@dataclass
class RouteReader:
    """Scores the schema's route cards against a question's words with an embedder (see the module docstring)."""

    schema: SkbSchema
    patterns: Sequence[tuple[str, str, str]]
    embedder: GraspEmbedder
    margin: float = DEFAULT_MARGIN
    _cards: tuple[RouteCard, ...] | None = field(default=None, init=False, repr=False)
    _vectors: np.ndarray | None = field(default=None, init=False, repr=False)  # names then descriptions
    # the last frame read and its card similarities: one plan asks about the same frame for its target, the
    # asked-type model's evidence and its note
    _last: tuple[str, np.ndarray] | None = field(default=None, init=False, repr=False)

    @property
    def cards(self) -> tuple[RouteCard, ...]:
        if self._cards is None:
            self._cards = route_cards(self.schema, self.patterns)
        return self._cards

    def _card_vectors(self) -> np.ndarray:
        if self._vectors is None:
            texts = [card.name_text for card in self.cards] + [card.description for card in self.cards]
            self._vectors = self.embedder.embed_texts(texts) if texts else np.zeros((0, 0), dtype=np.float32)
        return self._vectors

    def scores(self, frame: str, anchor_labels: Sequence[str]) -> dict[str, float]:
        """Per type reachable from the anchors in one step, how well the question's words read as going there."""
        if not frame.strip() or not anchor_labels or not self.cards:
            return {}
        similarity = self._similarity(with_wh_sense(frame))
        half = len(self.cards)
        card_scores = [float(a + b) for a, b in zip(similarity[:half], similarity[half:], strict=True)]
        return type_scores(self.cards, card_scores, anchor_labels)

    def _similarity(self, frame: str) -> np.ndarray:
        last = self._last  # read once: concurrent searches share the planner, and a tuple swaps whole
        if last is None or last[0] != frame:
            last = (frame, self._card_vectors() @ self.embedder.embed_texts([frame])[0])
            self._last = last
        return last[1]

    def target(self, frame: str, anchor_labels: Sequence[str]) -> str | None:
        """The type the question's words lead to from its anchors, or None when no type clearly leads."""
        return leading_type(self.scores(frame, anchor_labels), self.margin)

    def best_guess(self, frame: str, anchor_labels: Sequence[str]) -> str | None:
        """The best-scoring type one step from the anchors, however narrow its lead (None without a card)."""
        return leading_type(self.scores(frame, anchor_labels), 0.0)


__all__ = [
    "DEFAULT_MARGIN",
    "WHERE_SENSE",
    "RouteCard",
    "RouteReader",
    "leading_type",
    "route_cards",
    "type_scores",
    "with_wh_sense",
]
