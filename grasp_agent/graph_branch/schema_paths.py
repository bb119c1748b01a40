"""Pure helpers the heuristic planner uses: which type a question asks for, and how to get there.

Everything here is a function of the question text and the SKB schema (with the edge counts
`grasp.schema()` reports); nothing touches the database.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from itertools import pairwise

from grasp_agent.skb.schema import NodeType, SkbSchema

_WH = re.compile(r"\b(which|what|list|name|find|identify|show|give)\b", re.IGNORECASE)
# Words that make a "lacks"/"absent" relation the better reading of a pair with several relations.
_NEGATION = re.compile(r"\b(lack|lacks|lacking|absent|absence|without|not|no|excluded|never)\b", re.IGNORECASE)
_NEGATIVE_PREFIXES = ("LACK", "ABSEN", "NEGATIV", "EXCLUD", "CONTRAINDICAT")


def is_negative_relation(relation: str) -> bool:
    """LACKS_PHENOTYPE, PHENOTYPE_ABSENT, CONTRAINDICATION, NOT_ASSOCIATED...: judged per word, because
    substrings mislead (phe-NOT-ype)."""
    return any(part in {"NOT", "NO", "NON"} or part.startswith(_NEGATIVE_PREFIXES) for part in relation.upper().split("_"))


@dataclass(frozen=True)
class SchemaHop:
    """One step of a meta-path: from `source` type along `relation` to `target` type; `outgoing` says whether the
    step walks the stored direction (True), against it (False) or either (None: the schema's shortest paths)."""

    source: str
    relation: str
    target: str
    outgoing: bool | None = None


def type_words(node_type: NodeType) -> list[str]:
    """Lower-case words naming a type: its label split at capitals (GeneProtein -> 'gene protein'), aliases,
    and simple plurals of both."""
    base = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", node_type.label).replace("_", " ").lower()
    words = [base, *[alias.lower() for alias in node_type.aliases]]
    plurals = [w[:-1] + "ies" if w.endswith("y") else w + ("es" if w.endswith(("s", "x", "sh", "ch")) else "s")
               for w in words]
    return sorted(set(words + plurals), key=len, reverse=True)


def _first_mention(question: str, node_type: NodeType, after: int = 0) -> tuple[int, str] | None:
    """Position and text of the first word naming `node_type` at or after `after`."""
    lowered = question.lower()
    found = [(m.start(), question[m.start():m.end()]) for w in type_words(node_type)
             for m in re.finditer(rf"\b{re.escape(w)}\b", lowered) if m.start() >= after]
    return min(found, key=lambda hit: (hit[0], -len(hit[1]))) if found else None


def target_mention(question: str, schema: SkbSchema) -> tuple[str, str] | None:
    """(type, the words naming it) a question asks for: the first type word after a wh-word ('Which
    diseases ...'), else the first type word at all, else None."""
    wh = _WH.search(question)
    for after in ((wh.end(),) if wh else ()) + (0,):
        found = [(hit[0], t.label, hit[1]) for t in schema.node_types
                 if (hit := _first_mention(question, t, after)) is not None]
        if found:
            _, label, words = min(found)
            return label, words
    return None


def target_type(question: str, schema: SkbSchema) -> str | None:
    """The type a question asks for (see `target_mention`)."""
    found = target_mention(question, schema)
    return found[0] if found else None


def relation_counts(patterns: list[dict[str, object]]) -> dict[tuple[str, str, str], int]:
    """grasp.schema() patterns as {(source, type, target): count}."""
    return {(str(p["source"]), str(p["type"]), str(p["target"])): int(p["count"]) for p in patterns}  # type: ignore[call-overload]


def _choose_relation(options: dict[str, int], question: str) -> str:
    """Among relations joining the same two types, the negative one when the question negates, else the largest."""
    negative = [rel for rel in options if is_negative_relation(rel)]
    if negative and _NEGATION.search(question):
        return max(negative, key=lambda rel: options[rel])
    positive = [rel for rel in options if rel not in negative] or list(options)
    return max(positive, key=lambda rel: (options[rel], rel))


def shortest_meta_path(source: str, target: str, counts: dict[tuple[str, str, str], int],
                       question: str = "") -> list[SchemaHop] | None:
    """Fewest hops from `source` type to `target` type over the schema, hops undirected.

    Between the same two types the question picks the relation (see `_choose_relation`). For source == target
    a self-relation (e.g. IS_A) is one hop when one exists; otherwise the empty path. None when unreachable.
    """
    neighbours: dict[str, dict[str, dict[str, int]]] = {}  # type -> other type -> relation -> count
    for (a, rel, b), count in counts.items():
        neighbours.setdefault(a, {}).setdefault(b, {})[rel] = count
        neighbours.setdefault(b, {}).setdefault(a, {})[rel] = count
    if source == target:
        loops = neighbours.get(source, {}).get(source)
        return [SchemaHop(source, _choose_relation(loops, question), source)] if loops else []
    previous: dict[str, str] = {source: source}
    queue = deque([source])
    while queue:
        current = queue.popleft()
        for other in sorted(neighbours.get(current, {})):
            if other not in previous:
                previous[other] = current
                queue.append(other)
    if target not in previous:
        return None
    chain = [target]
    while chain[-1] != source:
        chain.append(previous[chain[-1]])
    chain.reverse()
    return [SchemaHop(a, _choose_relation(neighbours[a][b], question), b) for a, b in pairwise(chain)]


def relevance_text(question: str, removed: list[str]) -> str:
    """The question minus the anchor mentions (case-insensitive), tidied: what the hops cannot express."""
    text = question
    for mention in sorted(removed, key=len, reverse=True):
        text = re.sub(re.escape(mention), " ", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s+([,.;:?!])", r"\1", text).strip(" ,.;:")
