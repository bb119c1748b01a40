"""Which nodes a described clause reads as, by their own text fields (a definition, synonyms, a comment): by cosine,
and by the share of the clause's words their text holds.

Why words too: the encoder reads "a height below that which is expected according to age and gender norms" as Tall
stature (cosine 0.87) before Short stature (0.79), whose definitions differ by one word, "above" for "below"; and a
definition cut mid-phrase ("a deviance from the norm of the origin or course of the right brachiocephalic") reads
below the own-text bar though it copies the definition word for word. The share of the clause's distinct terms,
each weighted by its idf, that a node's own text holds tells both apart: 1.0 for Short stature, 0.91 for Tall
stature. The words count only when they tell one node apart: the one node holding a larger share than any other
is read at the better of its cosine and its share, on one scale, so the readers' bars (the own-text bar, a
quoted definition's) apply to both; every other node at its cosine. When two nodes hold as much ("an elevation in
bone density in one or more phalanges of the fingers" is in a term's definition and in its child's), the words
do not choose, and the cosine orders them as before. Only a clause of `MIN_SHARED_WORDS` terms or more is read by
its words: a few common words are in many definitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grasp_agent.text_branch.bm25_index import LexicalIndex
from grasp_agent.text_branch.dense_fields import DenseFieldIndex
from grasp_agent.text_branch.fields import NAME_FIELD, NodeId

# distinct terms (stemmed, without stopwords) a clause needs before the share of them a text holds counts
MIN_SHARED_WORDS = 5
SAME_SHARE = 1e-9  # two texts holding the same terms have the same share, up to the float sums' order


@dataclass(frozen=True)
class OwnTextReader:
    """The nodes' own text fields as the graph branch reads them: the dense index's cosines, and with a lexical
    index, the share of a clause's words each node's own text holds (the dense index's fields, but the name)."""

    dense: DenseFieldIndex
    lexical: LexicalIndex | None = None
    min_words: int = MIN_SHARED_WORDS

    @property
    def fields(self) -> tuple[str, ...]:
        """The own text fields both indexes hold: every dense field but the name."""
        lexical = self.lexical.fields if self.lexical is not None else ()
        return tuple(name for name in self.dense.fields if name != NAME_FIELD and name in lexical)

    def best_field_cosine(self, query_vector: np.ndarray, ids: Sequence[NodeId]) -> list[float | None]:
        """Per node, the best cosine of the vector with its own text fields; None for a node without."""
        return self.dense.best_field_cosine(query_vector, ids)

    def own_text_matches(
        self,
        query_vectors: np.ndarray,
        k: int,
        node_types: Sequence[str | None] | None = None,
        texts: Sequence[str | None] | None = None,
    ) -> list[list[tuple[NodeId, str, float]]]:
        """Per query row (of its type in `node_types`, when given), the `k` nodes whose own text reads closest:
        (id, type, the better of its best cosine and, given the row's text in `texts` (not None), the share of
        that text's words it holds when it alone holds most: `sole_best`), best first, ties by id."""
        found = self.dense.own_text_matches(query_vectors, k, node_types)
        fields = self.fields
        if texts is None or self.lexical is None or not fields:
            return found
        if len(texts) != len(found):
            raise ValueError(f"{len(texts)} texts for {len(found)} query vectors")
        merged = []
        for row, (by_cosine, text) in enumerate(zip(found, texts, strict=True)):
            if text is None:
                merged.append(by_cosine)
                continue
            node_type = node_types[row] if node_types is not None else None
            by_words = self.lexical.held_word_shares(text, fields, 2, node_type, self.min_words)
            merged.append(better_readings(by_cosine, sole_best(by_words), k))
        return merged


def sole_best(readings: Sequence[tuple[NodeId, str, float]]) -> list[tuple[NodeId, str, float]]:
    """The first of readings ordered best first when it scores above the second, else none (pure)."""
    if not readings or (len(readings) > 1 and readings[1][2] >= readings[0][2] - SAME_SHARE):
        return []
    return [readings[0]]


def better_readings(
    first: Sequence[tuple[NodeId, str, float]], second: Sequence[tuple[NodeId, str, float]], k: int
) -> list[tuple[NodeId, str, float]]:
    """The `k` best nodes of two readings, each at the better of its two scores (absent: not read), best first,
    ties by id (pure)."""
    best: dict[NodeId, tuple[str, float]] = {}
    for node_id, label, score in (*first, *second):
        if node_id not in best or score > best[node_id][1]:
            best[node_id] = (label, score)
    ranked = sorted(best.items(), key=lambda item: (-item[1][1], str(item[0])))[:k]
    return [(node_id, label, score) for node_id, (label, score) in ranked]
