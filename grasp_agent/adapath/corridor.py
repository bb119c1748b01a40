"""The corridor: nodes that personalized PageRank ranks high from the topic AND from the answers.

score(v) = ppr_topic(v) * ppr_answer(v): a node only one walk reaches scores 0, so the corridor is where
the two walks meet, which is where topic-to-answer paths run. The topic and answer nodes are always in it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping


def corridor_nodes(
    from_topic: Mapping[int, float], from_answers: Mapping[int, float], size: int, required: Collection[int]
) -> list[int]:
    """The `size` best nodes by the product of both scores (ties by node id), plus `required`, in that order."""
    if size < 0:
        raise ValueError(f"corridor size must be >= 0; got {size}")
    shared = [
        (from_topic[node] * score, node)
        for node, score in from_answers.items()
        if node in from_topic and from_topic[node] * score > 0
    ]
    best = [node for _, node in sorted(shared, key=lambda item: (-item[0], item[1]))[:size]]
    chosen = dict.fromkeys(best)
    chosen.update(dict.fromkeys(required))
    return list(chosen)
