"""A STaRK-style benchmark over the HPO SKB: meta-path templates of 1-3 hops, each query worded at one of
three surface levels, answers computed exactly from the records the loader writes.

Construction (STaRK, Wu et al. 2024, section 3): a template is a relational requirement along a meta-path;
anchors are sampled, the answers are exactly the nodes that satisfy it (stored edges, no IS_A closure), and
a query is kept when it has 1..`max_answers` answers. One template adds a textual requirement on the answer
(a word of its name), as STaRK does. `hops` counts the relation edges of the requirement; a "direct subtype"
is one IS_A edge. Levels, after AdaPath's BioStrat-QA: `explicit` (anchor names written out), `implicit`
(each phenotype anchor replaced by the first clause of its definition, when that clause is unique and does
not contain the name; genes and diseases have no definition, so their templates have no implicit queries),
`bare` (minimal wording). Each draft is worded once, at one level; levels rotate within a template and the
templates take turns, so counts stay balanced while instances last.

Splits are train/valid/test at 50/20/30 by a hash of the id (the id hashes the requirement, not its wording),
named as grasp Questions name them (`valid`, where STaRK says `val`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from grasp_agent.evaluation.hpo_index import (
    NONE,
    Draft,
    HpoIndex,
    keyword_drafts,
    name_words,
    one_hop_drafts,
    phenotype_gene_drafts,
    shuffled,
    split_by_hash,
)
from grasp_agent.evaluation.query_sets import GoldAnchor
from grasp_agent.evaluation.questions import check_generation
from grasp_agent.skb.hpo import HpoSource

logger = logging.getLogger(__name__)

LEVELS = ("explicit", "implicit", "bare")
SPLITS: tuple[tuple[int, str], ...] = ((50, "train"), (70, "valid"), (100, "test"))  # cumulative percent
MAX_ANSWERS = 20
_CLAUSE_END = re.compile(r"(?<=[A-Za-z0-9])\.\s|;\s")
_BRACKETED = re.compile(r"\s*\([^()]*\)")
_ARTICLES = frozenset({"A", "An", "The", "Any"})
_MIN_CLAUSE, _MAX_CLAUSE = 20, 200
_DESCRIPTIONS = (
    'the phenotype defined as "{}"',
    'the abnormality described as "{}"',
    'the clinical feature characterised as "{}"',
)

Generate = Callable[[HpoIndex, random.Random, int], Iterator[Draft]]


@dataclass(frozen=True)
class Template:
    hops: int
    answer_type: str
    slots: str  # one letter per anchor, in anchor order: p phenotype, g gene, d disease (k is the keyword)
    drafts: Generate
    explicit: tuple[str, ...]  # also worded implicitly, with phenotype slots described
    bare: tuple[str, ...]

    def levels(self) -> tuple[str, ...]:
        return LEVELS if "p" in self.slots else ("explicit", "bare")


@dataclass(frozen=True)
class BenchQuery:
    id: str
    query: str
    answer_ids: tuple[str, ...]
    split: str
    template: str
    hops: int
    level: str
    anchors: tuple[GoldAnchor, ...]
    keyword: str = ""

    def record(self) -> dict[str, object]:
        """The JSONL line `query_sets.read_jsonl_queries` reads (it refuses other keys)."""
        return {
            "id": self.id,
            "query": self.query,
            "answer_ids": list(self.answer_ids),
            "split": self.split,
            "template": self.template,
            "hops": self.hops,
            "level": self.level,
            "topic_ids": [anchor.id for anchor in self.anchors],
        }

    def anchor_record(self) -> dict[str, object]:
        """The anchors and keyword, for analysis beside the query file."""
        return {"id": self.id, "anchors": [anchor.model_dump() for anchor in self.anchors], "keyword": self.keyword}


# ---- templates: drafts in a seeded order, answer sets bounded early so broad starts cost little ---------------
def _union(groups: Iterable[Iterable[str]], limit: int) -> frozenset[str] | None:
    """The union of `groups`, or None once it passes `limit`."""
    found: set[str] = set()
    for group in groups:
        found.update(group)
        if len(found) > limit:
            return None
    return frozenset(found)


def _subtype_diseases(index: HpoIndex, phenotype: str) -> Iterator[set[str]]:
    return (index.phenotype_diseases.get(child, set()) for child in sorted(index.children.get(phenotype, NONE)))


def _phenotype_diseases(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    return one_hop_drafts(index, rng, "phenotype_diseases", index.phenotype_diseases)


def _disease_genes(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    return one_hop_drafts(index, rng, "disease_genes", index.disease_genes)


def _gene_diseases(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    return one_hop_drafts(index, rng, "gene_diseases", index.gene_diseases)


def _phenotype_diseases_named(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    return keyword_drafts(index, rng, "phenotype_diseases_named")


def _phenotype_gene_diseases(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    return phenotype_gene_drafts(index, rng, "phenotype_gene_diseases")


def _subtype_diseases_of(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    for phenotype in shuffled(index.usable(index.children), rng):
        answers = _union(_subtype_diseases(index, phenotype), limit)
        if answers:
            yield Draft("subtype_diseases", (phenotype,), answers)


def _phenotype_disease_genes(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    for phenotype in shuffled(index.usable(index.phenotype_diseases), rng):
        diseases = sorted(index.phenotype_diseases[phenotype])
        answers = _union((index.disease_genes.get(disease, NONE) for disease in diseases), limit)
        if answers:
            yield Draft("phenotype_disease_genes", (phenotype,), answers)


def _subtype_gene_diseases(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    """Start from a disease with a gene and a phenotype that has a parent: that parent and gene are the anchors."""
    for disease in shuffled(index.disease_genes, rng):
        parents = index.usable(
            parent for child in index.disease_phenotypes.get(disease, NONE) for parent in index.parents.get(child, NONE)
        )
        genes = index.usable(index.disease_genes[disease])
        if parents and genes:
            phenotype, gene = rng.choice(parents), rng.choice(genes)
            children = index.children[phenotype]
            answers = frozenset(
                other
                for other in index.gene_diseases[gene]
                if not children.isdisjoint(index.disease_phenotypes.get(other, NONE))
            )
            yield Draft("subtype_gene_diseases", (phenotype, gene), answers)


def _shared_gene_phenotype_diseases(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    """Other diseases sharing a gene with the anchor disease and presenting the anchor phenotype (taken from one)."""
    for disease in shuffled(index.usable(index.disease_genes), rng):
        partners = set().union(*(index.gene_diseases[gene] for gene in index.disease_genes[disease])) - {disease}
        if partners:
            partner = rng.choice(sorted(partners))
            phenotypes = index.usable(index.disease_phenotypes.get(partner, NONE))
            if phenotypes:
                phenotype = rng.choice(phenotypes)
                answers = frozenset(partners & index.phenotype_diseases[phenotype])
                yield Draft("shared_gene_phenotype_diseases", (disease, phenotype), answers)


def _subtype_disease_genes(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    for phenotype in shuffled(index.usable(index.children), rng):
        diseases = _union(_subtype_diseases(index, phenotype), 50 * limit)
        if diseases:
            answers = _union((index.disease_genes.get(disease, NONE) for disease in sorted(diseases)), limit)
            if answers:
                yield Draft("subtype_disease_genes", (phenotype,), answers)


_SUBTYPE = ("a direct subtype of {p}", "a feature classified directly under {p}", "a more specific form of {p}")
TEMPLATES: dict[str, Template] = {
    "phenotype_diseases": Template(
        1,
        "Disease",
        "p",
        _phenotype_diseases,
        (
            "Which diseases present with {p}?",
            "What disorders have {p} as a clinical feature?",
            "Which conditions are annotated with {p}?",
        ),
        ("{p}: diseases?", "diseases with {p}", "{p} -> diseases"),
    ),
    "disease_genes": Template(
        1,
        "Gene",
        "d",
        _disease_genes,
        (
            "Which genes are associated with {d}?",
            "What genes are linked to the disorder {d}?",
            "Which genes have been implicated in {d}?",
        ),
        ("{d}: genes?", "genes of {d}", "{d} -> genes"),
    ),
    "gene_diseases": Template(
        1,
        "Disease",
        "g",
        _gene_diseases,
        (
            "Which diseases are associated with the gene {g}?",
            "What disorders is {g} linked to?",
            "Which conditions has the gene {g} been implicated in?",
        ),
        ("{g}: diseases?", "diseases of gene {g}", "{g} -> diseases"),
    ),
    "phenotype_diseases_named": Template(
        1,
        "Disease",
        "p",
        _phenotype_diseases_named,
        (
            'Which diseases with "{k}" in their name present with {p}?',
            'Which disorders whose name contains the word "{k}" have {p} as a feature?',
            'What "{k}" conditions present with {p}?',
        ),
        ('{p}; name ~ "{k}": diseases?', 'diseases "{k}" with {p}', '{p} -> diseases named "{k}"'),
    ),
    "phenotype_gene_diseases": Template(
        2,
        "Disease",
        "pg",
        _phenotype_gene_diseases,
        (
            "Which diseases present with {p} and are associated with the gene {g}?",
            "Which disorders linked to {g} have {p} as a feature?",
            "What conditions associated with {g} show {p}?",
        ),
        ("{p}; {g}: diseases?", "diseases with {p} and gene {g}", "{g} + {p} -> diseases"),
    ),
    "subtype_diseases": Template(
        2,
        "Disease",
        "p",
        _subtype_diseases_of,
        tuple(
            f"{lead} {subtype}?"
            for lead, subtype in zip(
                ("Which diseases present with", "What disorders show", "Which conditions have"), _SUBTYPE, strict=True
            )
        ),
        ("subtype of {p}: diseases?", "diseases with a child term of {p}", "{p} > subtype -> diseases"),
    ),
    "phenotype_disease_genes": Template(
        2,
        "Gene",
        "p",
        _phenotype_disease_genes,
        (
            "Which genes are associated with a disease that presents with {p}?",
            "What genes are linked to disorders showing {p}?",
            "Which genes are implicated in conditions that have {p} as a feature?",
        ),
        ("{p} -> disease -> genes?", "genes of diseases with {p}", "{p}: disease genes?"),
    ),
    "subtype_gene_diseases": Template(
        3,
        "Disease",
        "pg",
        _subtype_gene_diseases,
        tuple(
            f"{lead} {subtype}?"
            for lead, subtype in zip(
                (
                    "Which diseases associated with the gene {g} present with",
                    "What disorders linked to {g} show",
                    "Which conditions associated with {g} have",
                ),
                _SUBTYPE,
                strict=True,
            )
        ),
        (
            "subtype of {p}; {g}: diseases?",
            "diseases with gene {g} and a child term of {p}",
            "{g} + ({p} > subtype) -> diseases",
        ),
    ),
    "shared_gene_phenotype_diseases": Template(
        3,
        "Disease",
        "dp",
        _shared_gene_phenotype_diseases,
        (
            "Which other diseases share an associated gene with {d} and present with {p}?",
            "What disorders with {p} are linked to a gene that is also associated with {d}?",
            "Besides {d} itself, which conditions sharing one of its genes show {p}?",
        ),
        (
            "{d} -> gene -> other diseases with {p}?",
            "{d}; shared gene; {p}: other diseases?",
            "other diseases sharing a gene with {d}, with {p}",
        ),
    ),
    "subtype_disease_genes": Template(
        3,
        "Gene",
        "p",
        _subtype_disease_genes,
        tuple(
            f"{lead} {subtype}?"
            for lead, subtype in zip(
                (
                    "Which genes are associated with a disease that presents with",
                    "What genes are linked to disorders showing",
                    "Which genes are implicated in conditions with",
                ),
                _SUBTYPE,
                strict=True,
            )
        ),
        (
            "{p} > subtype -> disease -> genes?",
            "genes of diseases with a child term of {p}",
            "subtype of {p}: disease genes?",
        ),
    ),
}


# ---- wording -----------------------------------------------------------------------------------------------
def describe(name: str, definition: str) -> str | None:
    """The first clause of a definition, brackets removed, or None when it is too short or long, quotes, or
    holds every word of the name (so the text would give the name away)."""
    text, previous = definition.strip(), ""
    while text != previous:  # nested brackets go inside-out
        text, previous = _BRACKETED.sub("", text), text
    clause = _CLAUSE_END.split(text, maxsplit=1)[0].strip().rstrip(".")
    giveaway = {word for word in name_words(name) if len(word) > 2} <= name_words(clause)
    if not _MIN_CLAUSE <= len(clause) <= _MAX_CLAUSE or giveaway or '"' in clause:
        return None
    first, _, rest = clause.partition(" ")
    return f"{first.lower()} {rest}" if first in _ARTICLES else clause


def descriptions(index: HpoIndex) -> dict[str, str]:
    """Anchor phenotype -> a description of it no other anchor phenotype shares."""
    described = {
        term: text
        for term in index.usable(index.definitions)
        if (text := describe(index.names[term], index.definitions[term])) is not None
    }
    counts = Counter(text.casefold() for text in described.values())
    return {term: text for term, text in described.items() if counts[text.casefold()] == 1}


def _render(index: HpoIndex, described: dict[str, str], draft: Draft, level: str, rng: random.Random) -> BenchQuery:
    template = TEMPLATES[draft.template]
    shown = [
        rng.choice(_DESCRIPTIONS).format(described[anchor])
        if level == "implicit" and anchor in described
        else index.names[anchor]
        for anchor in draft.anchors
    ]
    text = rng.choice(template.bare if level == "bare" else template.explicit).format(
        k=draft.keyword, **dict(zip(template.slots, shown, strict=True))
    )
    query_id = f"hpob-{draft.template}-{hashlib.sha256(draft.key().encode()).hexdigest()[:12]}"
    anchors = tuple(
        GoldAnchor(id=anchor, type=index.labels[anchor], name=index.names[anchor]) for anchor in draft.anchors
    )
    return BenchQuery(
        id=query_id,
        query=text[0].upper() + text[1:],
        answer_ids=tuple(sorted(draft.answers)),
        split=split_by_hash(query_id, SPLITS),
        template=draft.template,
        hops=template.hops,
        level=level,
        anchors=anchors,
        keyword=draft.keyword,
    )


# ---- generation --------------------------------------------------------------------------------------------
@dataclass
class _Cursor:
    """One template's drafts, handed out level by level; drafts that fit no level asked yet wait in `stash`."""

    name: str
    drafts: Iterator[Draft]
    rng: random.Random
    levels: list[str]
    stash: list[Draft] = field(default_factory=list)
    turn: int = 0

    def next_draft(
        self, fits: Callable[[Draft, str], bool], fresh: Callable[[Draft], bool]
    ) -> tuple[Draft, str] | None:
        """The next fresh draft for the level whose turn it is; a level no draft fits anymore is dropped."""
        while self.levels:
            level = self.levels[self.turn % len(self.levels)]
            draft = self._take(level, fits, fresh)
            if draft is not None:
                self.turn += 1
                return draft, level
            self.levels.remove(level)
        return None

    def _take(self, level: str, fits: Callable[[Draft, str], bool], fresh: Callable[[Draft], bool]) -> Draft | None:
        self.stash = [draft for draft in self.stash if fresh(draft)]
        for position, draft in enumerate(self.stash):
            if fits(draft, level):
                return self.stash.pop(position)
        for draft in self.drafts:
            if fresh(draft):
                if fits(draft, level):
                    return draft
                self.stash.append(draft)
        return None


def build_hpo_benchmark(
    source: HpoSource, count: int, seed: int = 0, max_answers: int = MAX_ANSWERS
) -> list[BenchQuery]:
    """`count` distinct queries (fewer if the source runs out), the templates taking turns.

    The same source, count and seed always give the same list; a query's id and split do not depend on
    the seed or the count.

    Raises:
        QuestionGenerationError: `count` is negative or `max_answers` is below 1.
    """
    check_generation(count, max_answers)
    started = time.perf_counter()
    index = HpoIndex.read(source) if count else HpoIndex()
    described = descriptions(index)
    logger.info(
        "HPO benchmark index: %d nodes, %d anchors, %d described in %.1f s",
        len(index.names),
        len(index.anchors),
        len(described),
        time.perf_counter() - started,
    )
    seen: set[str] = set()

    def fits(draft: Draft, level: str) -> bool:
        """Implicit needs a described anchor whose name no other anchor's name (or the keyword) repeats."""
        if level != "implicit":
            return True
        shown = [index.names[anchor].casefold() for anchor in draft.anchors if anchor not in described]
        hidden = [index.names[anchor].casefold() for anchor in draft.anchors if anchor in described]
        return bool(hidden) and not any(name in text for name in hidden for text in (*shown, draft.keyword.casefold()))

    def fresh(draft: Draft) -> bool:
        return 1 <= len(draft.answers) <= max_answers and draft.key() not in seen

    cursors = []
    for name, template in TEMPLATES.items():
        rng = random.Random(f"{seed}:{name}")
        cursors.append(_Cursor(name, template.drafts(index, rng, max_answers), rng, list(template.levels())))
    queries: list[BenchQuery] = []
    while cursors and len(queries) < count:
        for cursor in list(cursors)[: count - len(queries)]:
            taken = cursor.next_draft(fits, fresh)
            if taken is None:
                cursors.remove(cursor)
                continue
            seen.add(taken[0].key())
            queries.append(_render(index, described, *taken, cursor.rng))
    logger.info("built %d HPO benchmark queries in %.1f s", len(queries), time.perf_counter() - started)
    return queries


def write_benchmark(path: Path, queries: Iterable[BenchQuery], anchors_path: Path | None = None) -> None:
    """Write the queries as JSONL (the keys `read_jsonl_queries` accepts) and, if asked, their anchors beside."""
    queries = list(queries)
    with Path(path).open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(query.record()) + "\n" for query in queries)
    if anchors_path is not None:
        with Path(anchors_path).open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(query.anchor_record()) + "\n" for query in queries)


__all__ = [
    "LEVELS",
    "MAX_ANSWERS",
    "SPLITS",
    "TEMPLATES",
    "BenchQuery",
    "Template",
    "build_hpo_benchmark",
    "describe",
    "descriptions",
    "write_benchmark",
]
