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
import time
from collections.abc import Callable, Iterator
from typing import cast

from grasp_agent.evaluation.hpo_index import (
    MAX_ANCHOR_NAME,
    NONE,
    PHENOTYPIC_ABNORMALITY,
    Draft,
    HpoIndex,
    keyword_drafts,
    one_hop_drafts,
    phenotype_gene_drafts,
    shuffled,
    split_by_hash,
)
from grasp_agent.evaluation.query_sets import EvalQuery, GoldAnchor
from grasp_agent.evaluation.questions import Split, check_generation
from grasp_agent.skb.hpo import HpoSource

logger = logging.getLogger(__name__)

_SPLITS: tuple[tuple[int, str], ...] = ((60, "train"), (80, "valid"), (100, "test"))  # cumulative percent

PHRASINGS: dict[str, tuple[str, ...]] = {
    "phenotype_gene_disease": (
        "Which disease presents with {p} and is associated with the gene {g}?",
        "Which disorder linked to {g} has {p} as a symptom?",
        "What condition associated with the {g} gene shows {p}?",
    ),
    "two_phenotypes_disease": (
        "Which diseases present with both {p} and {q}?",
        "What disorder has {p} and {q} as features?",
        "Which condition shows the symptoms {p} and {q} together?",
    ),
    "disease_genes": (
        "Which genes are associated with {d}?",
        "What genes are linked to the disorder {d}?",
        "Which genes have been implicated in the condition {d}?",
    ),
    "phenotype_genes": (
        "Which genes are associated with the phenotype {p}?",
        "What genes are linked to the symptom {p}?",
        "Which genes are associated with the clinical feature {p}?",
    ),
    "phenotype_lacked_disease": (
        "Which disease presents with {p} but is documented not to have {q}?",
        "Which disorder shows {p} while {q} is explicitly excluded?",
        "What condition has {p} as a feature but is known to lack {q}?",
    ),
    "phenotype_subtypes": (
        "What are the immediate subtypes of {p}?",
        "Which phenotypes are direct, more specific kinds of {p}?",
        "Which features are classified directly under {p} as more specific forms?",
    ),
    "disease_phenotype_text": (
        'Which disease with "{k}" in its name presents with {p}?',
        'Which disorder whose name contains the word "{k}" has {p} as a feature?',
        'What "{k}" condition presents with {p}?',
    ),
}
TEMPLATES = tuple(PHRASINGS)


# ---- templates: each yields drafts in a seeded random order, one try per shuffled start node ----------------
def _phenotype_gene_disease(index: HpoIndex, rng: random.Random) -> Iterator[Draft]:
    return phenotype_gene_drafts(index, rng, "phenotype_gene_disease")


def _two_phenotypes_disease(index: HpoIndex, rng: random.Random) -> Iterator[Draft]:
    for disease in shuffled(index.disease_phenotypes, rng):
        phenotypes = index.usable(index.disease_phenotypes[disease])
        if len(phenotypes) >= 2:
            first, second = sorted(rng.sample(phenotypes, 2))
            if not index.related(first, second):
                answers = index.phenotype_diseases[first] & index.phenotype_diseases[second]
                yield Draft("two_phenotypes_disease", (first, second), frozenset(answers))


def _disease_genes(index: HpoIndex, rng: random.Random) -> Iterator[Draft]:
    return one_hop_drafts(index, rng, "disease_genes", index.disease_genes)


def _phenotype_genes(index: HpoIndex, rng: random.Random) -> Iterator[Draft]:
    return one_hop_drafts(index, rng, "phenotype_genes", index.phenotype_genes)


def _phenotype_lacked_disease(index: HpoIndex, rng: random.Random) -> Iterator[Draft]:
    for disease in shuffled(index.disease_lacks, rng):
        lacked = index.usable(index.disease_lacks[disease])
        present = index.usable(index.disease_phenotypes.get(disease, NONE) - index.disease_lacks[disease])
        if lacked and present:
            phenotype, absent = rng.choice(present), rng.choice(lacked)
            answers = index.phenotype_diseases[phenotype] & index.lacks_diseases[absent]
            yield Draft("phenotype_lacked_disease", (phenotype, absent), frozenset(answers))


def _phenotype_subtypes(index: HpoIndex, rng: random.Random) -> Iterator[Draft]:
    for phenotype in shuffled(index.usable(index.children), rng):
        yield Draft("phenotype_subtypes", (phenotype,), frozenset(index.children[phenotype]))


def _disease_phenotype_text(index: HpoIndex, rng: random.Random) -> Iterator[Draft]:
    return keyword_drafts(index, rng, "disease_phenotype_text")


Generate = Callable[[HpoIndex, random.Random], Iterator[Draft]]
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
def _question(index: HpoIndex, draft: Draft, rng: random.Random) -> EvalQuery:
    _, target_type, slot_names = _TEMPLATES[draft.template]
    slots = {slot: index.names[anchor] for slot, anchor in zip(slot_names, draft.anchors, strict=True)}
    text = rng.choice(PHRASINGS[draft.template]).format(k=draft.keyword, **slots)
    key = draft.key()
    question_id = f"hpo-{draft.template}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    anchors = tuple(
        GoldAnchor(id=anchor, type=index.labels[anchor], name=index.names[anchor]) for anchor in draft.anchors
    )
    return EvalQuery(
        id=question_id,
        text=text,
        answer_ids=tuple(sorted(draft.answers)),
        template=draft.template,
        target_type=target_type,
        anchors=anchors,
        split=split_of(question_id),
    )


def split_of(question_id: str) -> Split:
    """60/20/20 train/valid/test by a hash of the id: stable across seeds, processes and machines."""
    return cast(Split, split_by_hash(question_id, _SPLITS))


def generate_hpo_questions(source: HpoSource, count: int, seed: int = 0, max_answers: int = 20) -> list[EvalQuery]:
    """`count` distinct questions (fewer if the source runs out), spread round-robin over `TEMPLATES`.

    Each template walks its start nodes in an order drawn from `seed` and keeps drafts whose answer set has
    1..`max_answers` nodes; a template with no eligible instance left is skipped. The same source, count
    and seed always give the same list.

    Raises:
        QuestionGenerationError: `count` is negative or `max_answers` is below 1.
    """
    check_generation(count, max_answers)
    started = time.perf_counter()
    index = HpoIndex.read(source) if count else HpoIndex()  # nothing to read for no questions
    logger.info(
        "HPO question index: %d nodes, %d anchor candidates in %.1f s",
        len(index.names),
        len(index.anchors),
        time.perf_counter() - started,
    )
    rngs = {template: random.Random(f"{seed}:{template}") for template in TEMPLATES}
    pending = {template: _TEMPLATES[template][0](index, rngs[template]) for template in TEMPLATES}
    questions: list[EvalQuery] = []
    seen: set[str] = set()
    while pending and len(questions) < count:
        for template in list(pending)[: count - len(questions)]:
            question = _next_question(index, pending[template], rngs[template], max_answers, seen)
            if question is None:
                del pending[template]
            else:
                questions.append(question)
    logger.info("generated %d HPO questions in %.1f s", len(questions), time.perf_counter() - started)
    return questions


def _next_question(
    index: HpoIndex, drafts: Iterator[Draft], rng: random.Random, max_answers: int, seen: set[str]
) -> EvalQuery | None:
    """The template's next draft that is in range and new, rendered; None once the template is exhausted."""
    for draft in drafts:
        if 1 <= len(draft.answers) <= max_answers:
            question = _question(index, draft, rng)
            if question.id not in seen and question.text not in seen:
                seen.update((question.id, question.text))
                return question
    return None


__all__ = ["MAX_ANCHOR_NAME", "PHENOTYPIC_ABNORMALITY", "PHRASINGS", "TEMPLATES", "generate_hpo_questions", "split_of"]
