"""Questions with known answers over the HPO SKB, built from the same records the loader writes to Neo4j.

Gold answers follow the stored edges exactly (no IS_A closure): "presents with p" means a HAS_PHENOTYPE edge
to p itself, "lacks p" a LACKS_PHENOTYPE edge, "associated with gene g" an ASSOCIATED_WITH edge, and a
"subtype of p" an IS_A edge to p. Anchors (the nodes a question names) are phenotypic abnormalities
(below HP:0000118), diseases and genes whose stored name is at most 60 characters, has no brackets, is not
all capitals (diseases), and belongs to no other node (case-insensitive), so the name alone identifies it.
"""

from __future__ import annotations

import hashlib
import logging
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from grasp_agent.evaluation.questions import GoldAnchor, Question, QuestionGenerationError, Split
from grasp_agent.skb.hpo import HpoSource

logger = logging.getLogger(__name__)

PHENOTYPIC_ABNORMALITY = "HP:0000118"
MAX_ANCHOR_NAME = 60
_BRACKETS = frozenset("()[]{}<>")
_SPLITS: tuple[tuple[int, Split], ...] = ((60, "train"), (80, "valid"), (100, "test"))  # cumulative percent
_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
# Words of disease names too generic to narrow a question down (type words and OMIM name glue).
_GENERIC_WORDS = frozenset({"with", "without", "and", "type", "types", "form", "forms", "group", "syndrome",
                            "syndromes", "disease", "diseases", "disorder", "condition", "included", "susceptibility",
                            "due", "from", "like", "other", "associated", "related", "isolated", "familial",
                            "hereditary"})
_MIN_KEYWORD = 5

PHRASINGS: dict[str, tuple[str, ...]] = {
    "phenotype_gene_disease": ("Which disease presents with {p} and is associated with the gene {g}?",
                               "Which disorder linked to {g} has {p} as a symptom?",
                               "What condition associated with the {g} gene shows {p}?"),
    "two_phenotypes_disease": ("Which diseases present with both {p} and {q}?",
                               "What disorder has {p} and {q} as features?",
                               "Which condition shows the symptoms {p} and {q} together?"),
    "disease_genes": ("Which genes are associated with {d}?", "What genes are linked to the disorder {d}?",
                      "Which genes have been implicated in the condition {d}?"),
    "phenotype_genes": ("Which genes are associated with the phenotype {p}?", "What genes are linked to the symptom {p}?",
                        "Which genes are associated with the clinical feature {p}?"),
    "phenotype_lacked_disease": ("Which disease presents with {p} but is documented not to have {q}?",
                                 "Which disorder shows {p} while {q} is explicitly excluded?",
                                 "What condition has {p} as a feature but is known to lack {q}?"),
    "phenotype_subtypes": ("What are the immediate subtypes of {p}?", "Which phenotypes are direct, more specific kinds of {p}?",
                           "Which features are classified directly under {p} as more specific forms?"),
    "disease_phenotype_text": ('Which disease with "{k}" in its name presents with {p}?',
                               'Which disorder whose name contains the word "{k}" has {p} as a feature?',
                               'What "{k}" condition presents with {p}?'),
}
TEMPLATES = tuple(PHRASINGS)


@dataclass(frozen=True)
class _Draft:
    template: str
    anchors: tuple[str, ...]  # in the order of the phrasing slots
    answers: frozenset[str]
    keyword: str = ""


Links = dict[str, set[str]]
_NONE: frozenset[str] = frozenset()


@dataclass
class _HpoIndex:
    """Every node name and edge of the source as adjacency sets (read with `.get(id, _NONE)`)."""

    names: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
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
    def read(cls, source: HpoSource) -> _HpoIndex:
        index = cls()
        for node in source.nodes():
            index.names[str(node.id)] = node.name
            index.labels[str(node.id)] = node.label
        canon = {node_id: node_id for node_id in index.names}  # one string object per id, shared by all sets
        pairs: dict[str, tuple[Links | None, Links]] = {  # (source -> targets, target -> sources)
            "HAS_PHENOTYPE": (index.disease_phenotypes, index.phenotype_diseases),
            "LACKS_PHENOTYPE": (index.disease_lacks, index.lacks_diseases),
            "IS_A": (index.parents, index.children),
            "ASSOCIATED_WITH:Disease": (index.gene_diseases, index.disease_genes),
            "ASSOCIATED_WITH:Phenotype": (None, index.phenotype_genes),
        }
        for edge in source.edges():
            forward, backward = pairs[f"{edge.type}:{edge.target_label}" if edge.type == "ASSOCIATED_WITH" else edge.type]
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
            node_id for node_id, name in self.names.items()
            if len(name) <= MAX_ANCHOR_NAME and not _BRACKETS.intersection(name) and name_counts[name.casefold()] == 1
            and (node_id in abnormalities if self.labels[node_id] == "Phenotype" else True)
            and not (self.labels[node_id] == "Disease" and name == name.upper()))

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


# ---- templates: each yields drafts in a seeded random order, one try per shuffled start node ----------------
def _shuffled(keys: Iterable[str], rng: random.Random) -> list[str]:
    order = sorted(keys)
    rng.shuffle(order)
    return order


def _phenotype_gene_disease(index: _HpoIndex, rng: random.Random) -> Iterator[_Draft]:
    for disease in _shuffled(index.disease_genes, rng):
        phenotypes = index.usable(index.disease_phenotypes.get(disease, _NONE))
        genes = index.usable(index.disease_genes[disease])
        if phenotypes and genes:
            phenotype, gene = rng.choice(phenotypes), rng.choice(genes)
            answers = index.phenotype_diseases[phenotype] & index.gene_diseases[gene]
            yield _Draft("phenotype_gene_disease", (phenotype, gene), frozenset(answers))


def _two_phenotypes_disease(index: _HpoIndex, rng: random.Random) -> Iterator[_Draft]:
    for disease in _shuffled(index.disease_phenotypes, rng):
        phenotypes = index.usable(index.disease_phenotypes[disease])
        if len(phenotypes) >= 2:
            first, second = sorted(rng.sample(phenotypes, 2))
            if not index.related(first, second):
                answers = index.phenotype_diseases[first] & index.phenotype_diseases[second]
                yield _Draft("two_phenotypes_disease", (first, second), frozenset(answers))


def _disease_genes(index: _HpoIndex, rng: random.Random) -> Iterator[_Draft]:
    for disease in _shuffled(index.usable(index.disease_genes), rng):
        yield _Draft("disease_genes", (disease,), frozenset(index.disease_genes[disease]))


def _phenotype_genes(index: _HpoIndex, rng: random.Random) -> Iterator[_Draft]:
    for phenotype in _shuffled(index.usable(index.phenotype_genes), rng):
        yield _Draft("phenotype_genes", (phenotype,), frozenset(index.phenotype_genes[phenotype]))


def _phenotype_lacked_disease(index: _HpoIndex, rng: random.Random) -> Iterator[_Draft]:
    for disease in _shuffled(index.disease_lacks, rng):
        lacked = index.usable(index.disease_lacks[disease])
        present = index.usable(index.disease_phenotypes.get(disease, _NONE) - index.disease_lacks[disease])
        if lacked and present:
            phenotype, absent = rng.choice(present), rng.choice(lacked)
            answers = index.phenotype_diseases[phenotype] & index.lacks_diseases[absent]
            yield _Draft("phenotype_lacked_disease", (phenotype, absent), frozenset(answers))


def _phenotype_subtypes(index: _HpoIndex, rng: random.Random) -> Iterator[_Draft]:
    for phenotype in _shuffled(index.usable(index.children), rng):
        yield _Draft("phenotype_subtypes", (phenotype,), frozenset(index.children[phenotype]))


def _disease_phenotype_text(index: _HpoIndex, rng: random.Random) -> Iterator[_Draft]:
    """A keyword of the disease's own name (not of the phenotype's) narrows the diseases presenting it."""
    for disease in _shuffled(index.disease_phenotypes, rng):
        phenotypes = index.usable(index.disease_phenotypes[disease])
        if not phenotypes:
            continue
        phenotype = rng.choice(phenotypes)
        keywords = sorted(_keywords(index.names[disease]).items())
        keywords = [(word, shown) for word, shown in keywords if word not in _words(index.names[phenotype])]
        if keywords:
            keyword, shown = rng.choice(keywords)
            presenting = index.phenotype_diseases[phenotype]
            answers = frozenset(other for other in presenting if keyword in _words(index.names[other]))
            if len(answers) < len(presenting):
                yield _Draft("disease_phenotype_text", (phenotype,), answers, shown)


def _words(name: str) -> set[str]:
    """Lower-cased words of a name: hyphenated compounds whole ("x-linked") and split ("x", "linked")."""
    compounds = {word.lower() for word in _WORD.findall(name)}
    return compounds | {part for word in compounds for part in word.split("-")}


def _keywords(name: str) -> dict[str, str]:
    """Distinctive words of a name, lower-cased -> as written: letters (and hyphens), no acronym or generic word."""
    return {word.lower(): word for word in _WORD.findall(name)
            if word.replace("-", "").isalpha() and len(word) >= _MIN_KEYWORD and not word.isupper()
            and word.lower() not in _GENERIC_WORDS}


Generate = Callable[[_HpoIndex, random.Random], Iterator[_Draft]]
_TEMPLATES: dict[str, tuple[Generate, str, str]] = {  # name -> (drafts, answer type, placeholders in anchor order)
    "phenotype_gene_disease": (_phenotype_gene_disease, "Disease", "pg"),
    "two_phenotypes_disease": (_two_phenotypes_disease, "Disease", "pq"),
    "disease_genes": (_disease_genes, "Gene", "d"),
    "phenotype_genes": (_phenotype_genes, "Gene", "p"),
    "phenotype_lacked_disease": (_phenotype_lacked_disease, "Disease", "pq"),
    "phenotype_subtypes": (_phenotype_subtypes, "Phenotype", "p"),
    "disease_phenotype_text": (_disease_phenotype_text, "Disease", "p"),
}


# ---- rendering --------------------------------------------------------------------------------------------
def _question(index: _HpoIndex, draft: _Draft, rng: random.Random) -> Question:
    _, target_type, slot_names = _TEMPLATES[draft.template]
    slots = {slot: index.names[anchor] for slot, anchor in zip(slot_names, draft.anchors, strict=True)}
    text = rng.choice(PHRASINGS[draft.template]).format(k=draft.keyword, **slots)
    key = "|".join((draft.template, *draft.anchors, draft.keyword.lower()))
    question_id = f"hpo-{draft.template}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    anchors = tuple(GoldAnchor(id=anchor, type=index.labels[anchor], name=index.names[anchor])
                    for anchor in draft.anchors)
    return Question(id=question_id, text=text, answer_ids=tuple(sorted(draft.answers)), template=draft.template,
                    target_type=target_type, anchors=anchors, split=split_of(question_id))


def split_of(question_id: str) -> Split:
    """60/20/20 train/valid/test by a hash of the id: stable across seeds, processes and machines."""
    bucket = int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 100
    return next(split for limit, split in _SPLITS if bucket < limit)


def generate_hpo_questions(source: HpoSource, count: int, seed: int = 0, max_answers: int = 20) -> list[Question]:
    """`count` distinct questions (fewer if the source runs out), spread round-robin over `TEMPLATES`.

    Each template walks its start nodes in an order drawn from `seed` and keeps drafts whose answer set has
    1..`max_answers` nodes; a template with no eligible instance left is skipped. The same source, count
    and seed always give the same list.

    Raises:
        QuestionGenerationError: `count` is negative or `max_answers` is below 1.
    """
    if count < 0:
        raise QuestionGenerationError(f"count must be >= 0, got {count}")
    if max_answers < 1:
        raise QuestionGenerationError(f"max_answers must be >= 1, got {max_answers}")
    started = time.perf_counter()
    index = _HpoIndex.read(source) if count else _HpoIndex()  # nothing to read for no questions
    logger.info("HPO question index: %d nodes, %d anchor candidates in %.1f s",
                len(index.names), len(index.anchors), time.perf_counter() - started)
    rngs = {template: random.Random(f"{seed}:{template}") for template in TEMPLATES}
    pending = {template: _TEMPLATES[template][0](index, rngs[template]) for template in TEMPLATES}
    questions: list[Question] = []
    seen: set[str] = set()
    while pending and len(questions) < count:
        for template in list(pending)[:count - len(questions)]:
            question = _next_question(index, pending[template], rngs[template], max_answers, seen)
            if question is None:
                del pending[template]
            else:
                questions.append(question)
    logger.info("generated %d HPO questions in %.1f s", len(questions), time.perf_counter() - started)
    return questions


def _next_question(index: _HpoIndex, drafts: Iterator[_Draft], rng: random.Random, max_answers: int,
                   seen: set[str]) -> Question | None:
    """The template's next draft that is in range and new, rendered; None once the template is exhausted."""
    for draft in drafts:
        if 1 <= len(draft.answers) <= max_answers:
            question = _question(index, draft, rng)
            if question.id not in seen and question.text not in seen:
                seen.update((question.id, question.text))
                return question
    return None


__all__ = ["MAX_ANCHOR_NAME", "PHENOTYPIC_ABNORMALITY", "PHRASINGS", "TEMPLATES", "generate_hpo_questions", "split_of"]
