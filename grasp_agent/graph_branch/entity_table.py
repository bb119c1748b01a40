"""The entity table: every anchor/target mention linked to its closest nodes of each likely type.

Rule (GRASP 3.1): a mention is matched against the name index of each predicted type (top 3, with cosine and
degree); one further type is added when its best match is near-exact or beats the predicted types' best by a
margin, because extractors often guess a plausible but wrong type ("Marfan" as a Gene). A mention in doc mode
(an entity described, not named) is matched the same way against the document indexes, with the document
encoder. Attributes are listed without links. A name mention that writes a name or synonym of the SKB's name
dictionary (a plural, a lower-case symbol, a synonym) is embedded as that node's name, so it links exactly; the
row keeps the nodes it names by an alias (a synonym or key, not the name), which a question asking for the node
itself writes ("which country is the Hellenic Republic").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.described_mentions import OwnTextSearch
from grasp_agent.graph_branch.mentions import Mention, MentionRole
from grasp_agent.graph_branch.name_dictionary import NameDictionary
from grasp_agent.graph_branch.plan import MatchMode
from grasp_agent.graph_branch.procedure_calls import GraphProcedures, NodeId, NodeLink

LINKS_PER_TYPE = 3
NEAR_EXACT = 0.99
EXTRA_TYPE_MARGIN = 0.02


@dataclass(frozen=True)
class EntityRow:
    mention: Mention
    links: dict[str, tuple[NodeLink, ...]]  # type -> best first; predicted types first, then the added one
    added_type: str | None = None
    # a type the question's words chose among types whose names tie (`shared_names`); its best link is `best`
    preferred: str | None = None
    # the nodes the mention names by an alias (a synonym or key of theirs, none of their names)
    aliases: frozenset[NodeId] = frozenset()

    @property
    def names_best_by_alias(self) -> bool:
        best = self.best
        return best is not None and best.node_id in self.aliases

    @property
    def best(self) -> NodeLink | None:
        if self.preferred is not None and self.links.get(self.preferred):
            return self.links[self.preferred][0]
        candidates = [links[0] for links in self.links.values() if links]
        return max(candidates, key=lambda link: link.score) if candidates else None


@dataclass(frozen=True)
class EntityTable:
    rows: tuple[EntityRow, ...]

    def linked(self, min_score: float = 0.0) -> list[EntityRow]:
        return [row for row in self.rows if row.best is not None and row.best.score >= min_score]

    def anchor_choices(self, min_score: float = 0.5) -> list[tuple[str, str, MatchMode]]:
        """(type, text, match mode) of every anchor mention under each type it links to with at least
        `min_score`."""
        return [
            (label, row.mention.text, row.mention.match_mode)
            for row in self.rows
            if row.mention.role is MentionRole.ANCHOR
            for label, links in row.links.items()
            if links and links[0].score >= min_score
        ]

    def target_types(self) -> list[str]:
        """The types the question asks for, as the extractor typed its target mentions."""
        return list(
            dict.fromkeys(t for row in self.rows if row.mention.role is MentionRole.TARGET for t in row.mention.types)
        )

    def to_prompt(self) -> str:
        """The table as the planner reads it: one line per mention, then its candidates per type."""
        if not self.rows:
            return "(no entity mentions found)"
        lines = []
        for index, row in enumerate(self.rows):
            types = ", ".join(row.mention.types) or "-"
            added = f" (+{row.added_type}: strong match)" if row.added_type else ""
            if row.mention.role is MentionRole.TARGET:  # its name matches mislead planners into anchoring on them
                lines.append(f'[{index}] "{row.mention.text}" role=target (the type asked for: {types})')
                continue
            mode = " mode=doc (described, linked by definition)" if row.mention.match_mode is MatchMode.DOC else ""
            lines.append(f'[{index}] "{row.mention.text}" role={row.mention.role.value} types={types}{added}{mode}')
            for label, links in row.links.items():
                shown = "; ".join(f"{link.name} (cos {link.score:.2f}, degree {link.degree})" for link in links)
                lines.append(f"    {label}: {shown or 'no match'}")
        return "\n".join(lines)


def choose_types(
    predicted: Sequence[str],
    best_by_type: dict[str, float],
    near_exact: float = NEAR_EXACT,
    margin: float = EXTRA_TYPE_MARGIN,
) -> tuple[list[str], str | None]:
    """The types whose links a row keeps: the predicted ones, plus at most one other type whose best cosine is
    near-exact or beats the predicted types' best by `margin`. Pure, for testing the rule alone."""
    kept = [label for label in predicted if label in best_by_type]
    predicted_best = max((best_by_type[label] for label in kept), default=float("-inf"))
    others = sorted(((score, label) for label, score in best_by_type.items() if label not in kept), reverse=True)
    if others:
        score, label = others[0]
        if score >= near_exact or score >= predicted_best + margin:
            return kept, label
    return kept, None


def build_entity_table(
    mentions: Sequence[Mention],
    procedures: GraphProcedures,
    name_embedder: GraspEmbedder,
    labels: Sequence[str],
    links_per_type: int = LINKS_PER_TYPE,
    doc_embedder: GraspEmbedder | None = None,
    dictionary: NameDictionary | None = None,
    own_text: OwnTextSearch | None = None,
) -> EntityTable:
    """Links every anchor/target mention against every label's name index (doc-mode mentions: doc index, with
    `doc_embedder`, and the nodes' own text fields with `own_text`) in one round trip per mode, then keeps the
    predicted types (+ one strong other type) per mention."""
    found: dict[str, list[NodeLink]] = {}
    for mode, embedder in ((MatchMode.NAME, name_embedder), (MatchMode.DOC, doc_embedder or name_embedder)):
        linkable = {
            str(i): m for i, m in enumerate(mentions) if m.role is not MentionRole.ATTRIBUTE and m.match_mode is mode
        }
        if linkable:
            keys = list(linkable)
            texts = [linked_text(linkable[key], dictionary) for key in keys]
            vectors = embedder.embed_texts(texts)
            links = procedures.link_many(dict(zip(keys, vectors, strict=True)), labels, mode.value, links_per_type, 0.0)
            if mode is MatchMode.DOC and own_text is not None:
                own = own_text.own_text_matches(np.asarray(vectors, dtype=np.float32), links_per_type, texts=texts)
                links = with_more_links(links, dict(zip(keys, own, strict=True)), procedures, links_per_type)
            if mode is MatchMode.NAME and dictionary is not None:
                written = {key: dictionary_links(linkable[key], dictionary, labels) for key in keys}
                links = with_more_links(links, written, procedures, links_per_type)
            found |= links
    rows = []
    for index, mention in enumerate(mentions):
        by_type: dict[str, list[NodeLink]] = {}
        for link in found.get(str(index), []):
            by_type.setdefault(link.label, []).append(link)
        if mention.role is MentionRole.ATTRIBUTE:
            rows.append(EntityRow(mention, {}))
            continue
        best_by_type = {label: max(link.score for link in links) for label, links in by_type.items()}
        kept, added = choose_types([t for t in mention.types if t in labels], best_by_type)
        ordered = kept + ([added] if added else [])
        rows.append(
            EntityRow(
                mention,
                {label: tuple(by_type[label]) for label in ordered},
                added,
                aliases=aliases(mention, dictionary),
            )
        )
    return EntityTable(tuple(rows))


def dictionary_links(
    mention: Mention, dictionary: NameDictionary, labels: Sequence[str]
) -> list[tuple[NodeId, str, float]]:
    """The nodes whose name or synonym the mention writes, as exact links (cosine 1): the vector index cannot
    return a node by a synonym of it ("Retinitis pigmentosa", a disease's name and a synonym of the phenotype
    Rod-cone dystrophy), and the mention is embedded as one name only."""
    return [(entry.node_id, entry.label, 1.0) for entry in dictionary.lookup(mention.text) if entry.label in labels]


def with_more_links(
    links: dict[str, list[NodeLink]],
    more: dict[str, list[tuple[NodeId, str, float]]],
    procedures: GraphProcedures,
    per_type: int,
) -> dict[str, list[NodeLink]]:
    """Each key's vector-index links merged with more candidates (`more`: id, type, score; the nodes whose own
    text is closest, those the dictionary names): a node in both keeps the better score; per type the best
    `per_type`, best first. Names and degrees of nodes the index did not return are read from the graph."""
    missing: dict[str, set[NodeId]] = {}
    for key, matches in more.items():
        known = {link.node_id for link in links.get(key, [])}
        for node_id, label, _ in matches:
            if node_id not in known:
                missing.setdefault(label, set()).add(node_id)
    details = {
        (label, node_id): detail
        for label, ids in missing.items()
        for node_id, detail in procedures.nodes_by_id(label, sorted(ids, key=str)).items()
    }
    merged: dict[str, list[NodeLink]] = {}
    for key in links.keys() | more.keys():
        by_id = {link.node_id: link for link in links.get(key, [])}
        for node_id, label, score in more.get(key, []):
            if node_id in by_id:
                by_id[node_id] = replace(by_id[node_id], score=max(score, by_id[node_id].score))
            elif (label, node_id) in details:
                name, degree = details[(label, node_id)]
                by_id[node_id] = NodeLink(node_id, name, label, score, degree)
        counts: dict[str, int] = {}
        merged[key] = []
        for link in sorted(by_id.values(), key=lambda link: (-link.score, str(link.node_id))):
            if counts.get(link.label, 0) < per_type:
                counts[link.label] = counts.get(link.label, 0) + 1
                merged[key].append(link)
    return merged


def aliases(mention: Mention, dictionary: NameDictionary | None) -> frozenset[NodeId]:
    """The nodes a name mention writes a synonym or key of and none of their names."""
    if dictionary is None or mention.match_mode is not MatchMode.NAME:
        return frozenset()
    return dictionary.aliased(mention.text)


def linked_text(mention: Mention, dictionary: NameDictionary | None) -> str:
    """What a mention is embedded as for linking: the name of the node it writes (of a predicted type first)
    when the dictionary knows it as a name or synonym, else its own text; doc mentions always their text."""
    if dictionary is None or mention.match_mode is not MatchMode.NAME:
        return mention.text
    found = dictionary.lookup(mention.text)
    preferred = [entry for entry in found if entry.label in mention.types] or list(found)
    return preferred[0].name if preferred else mention.text
