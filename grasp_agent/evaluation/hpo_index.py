"""What the HPO question and benchmark generators share: the SKB as adjacency sets, anchor rules, name words,
and the stable hash split.

Gold answers follow the stored edges exactly (no IS_A closure). Anchors (the nodes a question names) are
phenotypic abnormalities (below HP:0000118), diseases and genes whose stored name is at most 60 characters,
has no brackets, is not all capitals (diseases), and belongs to no other node (case-insensitive), so the name
alone identifies it.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from grasp_agent.skb.hpo import HpoSource

PHENOTYPIC_ABNORMALITY = "HP:0000118"
MAX_ANCHOR_NAME = 60
_BRACKETS = frozenset("()[]{}<>")
_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
# Words of disease names too generic to narrow a question down (type words and OMIM name glue).
_GENERIC_WORDS = frozenset(
    {
        "with",
        "without",
        "and",
        "type",
        "types",
        "form",
        "forms",
        "group",
        "syndrome",
        "syndromes",
        "disease",
        "diseases",
        "disorder",
        "condition",
        "included",
        "susceptibility",
        "due",
        "from",
        "like",
        "other",
        "associated",
        "related",
        "isolated",
        "familial",
        "hereditary",
    }
)
_MIN_KEYWORD = 5

Links = dict[str, set[str]]
NONE: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Draft:
    """A relational requirement before wording: its anchors (in slot order), exact answers, optional keyword."""

    template: str
    anchors: tuple[str, ...]
    answers: frozenset[str]
    keyword: str = ""

    def key(self) -> str:
        """What makes two drafts the same requirement (the level and wording aside)."""
        return "|".join((self.template, *self.anchors, self.keyword.lower()))


@dataclass
class HpoIndex:
    """Every node name, definition and edge of the source as adjacency sets (read with `.get(id, NONE)`)."""

    names: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)  # phenotypes that have one
    disease_phenotypes: Links = field(default_factory=dict)
    phenotype_diseases: Links = field(default_factory=dict)
    disease_lacks: Links = field(default_factory=dict)
    lacks_diseases: Links = field(default_factory=dict)
    disease_genes: Links = field(default_factory=dict)
    gene_diseases: Links = field(default_factory=dict)
    phenotype_genes: Links = field(default_factory=dict)
    children: Links = field(default_factory=dict)
    parents: Links = field(default_factory=dict)
    anchors: frozenset[str] = frozenset()

    @classmethod
    def read(cls, source: HpoSource) -> HpoIndex:
        index = cls()
        for node in source.nodes():
            index.names[str(node.id)] = node.name
            index.labels[str(node.id)] = node.label
            definition = node.properties.get("definition")
            if isinstance(definition, str) and definition:
                index.definitions[str(node.id)] = definition
        canon = {node_id: node_id for node_id in index.names}  # one string object per id, shared by all sets
        pairs: dict[str, tuple[Links | None, Links]] = {  # (source -> targets, target -> sources)
            "HAS_PHENOTYPE": (index.disease_phenotypes, index.phenotype_diseases),
            "LACKS_PHENOTYPE": (index.disease_lacks, index.lacks_diseases),
            "IS_A": (index.parents, index.children),
            "ASSOCIATED_WITH:Disease": (index.gene_diseases, index.disease_genes),
            "ASSOCIATED_WITH:Phenotype": (None, index.phenotype_genes),
        }
        for edge in source.edges():
            forward, backward = pairs[
                f"{edge.type}:{edge.target_label}" if edge.type == "ASSOCIATED_WITH" else edge.type
            ]
            start, end = canon[str(edge.source_id)], canon[str(edge.target_id)]
            if forward is not None:
                forward.setdefault(start, set()).add(end)
            backward.setdefault(end, set()).add(start)
        index.anchors = index.anchor_candidates()
        return index

    def anchor_candidates(self) -> frozenset[str]:
        name_counts = Counter(name.casefold() for name in self.names.values())
        abnormalities = self.closure(PHENOTYPIC_ABNORMALITY, self.children)
        return frozenset(
            node_id
            for node_id, name in self.names.items()
            if len(name) <= MAX_ANCHOR_NAME
            and not _BRACKETS.intersection(name)
            and name_counts[name.casefold()] == 1
            and (node_id in abnormalities if self.labels[node_id] == "Phenotype" else True)
            and not (self.labels[node_id] == "Disease" and name == name.upper())
        )

    def closure(self, term: str, links: Links) -> set[str]:
        """`term` and every node reached from it through `links` (children: descendants; parents: ancestors)."""
        seen: set[str] = set()
        stack = [term] if term in self.names else []
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(links.get(current, ()))
        return seen

    def usable(self, ids: Iterable[str]) -> list[str]:
        """The anchor-worthy ids of a set, sorted (set order is not stable across processes)."""
        return sorted(node_id for node_id in ids if node_id in self.anchors)

    def related(self, first: str, second: str) -> bool:
        return first in self.closure(second, self.parents) or second in self.closure(first, self.parents)


def shuffled(keys: Iterable[str], rng: random.Random) -> list[str]:
    """The keys in an order drawn from `rng` (sorted first: set order differs between processes)."""
    order = sorted(keys)
    rng.shuffle(order)
    return order


def name_words(name: str) -> set[str]:
    """Lower-cased words of a name: hyphenated compounds whole ("x-linked") and split ("x", "linked")."""
    compounds = {word.lower() for word in _WORD.findall(name)}
    return compounds | {part for word in compounds for part in word.split("-")}


def name_keywords(name: str) -> dict[str, str]:
    """Distinctive words of a name, lower-cased -> as written: letters (and hyphens), no acronym or generic word."""
    return {
        word.lower(): word
        for word in _WORD.findall(name)
        if word.replace("-", "").isalpha()
        and len(word) >= _MIN_KEYWORD
        and not word.isupper()
        and word.lower() not in _GENERIC_WORDS
    }


def one_hop_drafts(
    index: HpoIndex, rng: random.Random, template: str, answers_of: Mapping[str, Iterable[str]]
) -> Iterator[Draft]:
    """One draft per usable anchor of `answers_of` (anchor id -> answer ids), in an order drawn from `rng`."""
    for anchor in shuffled(index.usable(answers_of), rng):
        yield Draft(template, (anchor,), frozenset(answers_of[anchor]))


def phenotype_gene_drafts(index: HpoIndex, rng: random.Random, template: str) -> Iterator[Draft]:
    """Diseases presenting phenotype P and associated with gene G, both drawn from one disease."""
    for disease in shuffled(index.disease_genes, rng):
        phenotypes = index.usable(index.disease_phenotypes.get(disease, NONE))
        genes = index.usable(index.disease_genes[disease])
        if phenotypes and genes:
            phenotype, gene = rng.choice(phenotypes), rng.choice(genes)
            answers = index.phenotype_diseases[phenotype] & index.gene_diseases[gene]
            yield Draft(template, (phenotype, gene), frozenset(answers))


def keyword_drafts(index: HpoIndex, rng: random.Random, template: str) -> Iterator[Draft]:
    """Diseases presenting a phenotype whose name has a keyword: a word of one such disease's own name (not of
    the phenotype's) that narrows the diseases presenting it. Drafts in an order drawn from `rng`."""
    for disease in shuffled(index.disease_phenotypes, rng):
        phenotypes = index.usable(index.disease_phenotypes[disease])
        if not phenotypes:
            continue
        phenotype = rng.choice(phenotypes)
        keywords = sorted(name_keywords(index.names[disease]).items())
        keywords = [(word, shown) for word, shown in keywords if word not in name_words(index.names[phenotype])]
        if keywords:
            keyword, shown = rng.choice(keywords)
            presenting = index.phenotype_diseases[phenotype]
            answers = frozenset(other for other in presenting if keyword in name_words(index.names[other]))
            if len(answers) < len(presenting):
                yield Draft(template, (phenotype,), answers, shown)


def split_by_hash(query_id: str, cumulative: tuple[tuple[int, str], ...]) -> str:
    """The split whose cumulative percent first exceeds the id's hash bucket (0..99): stable everywhere."""
    bucket = int(hashlib.sha256(query_id.encode()).hexdigest(), 16) % 100
    return next(split for limit, split in cumulative if bucket < limit)


__all__ = [
    "MAX_ANCHOR_NAME",
    "NONE",
    "PHENOTYPIC_ABNORMALITY",
    "Draft",
    "HpoIndex",
    "Links",
    "keyword_drafts",
    "name_keywords",
    "name_words",
    "shuffled",
    "split_by_hash",
]
