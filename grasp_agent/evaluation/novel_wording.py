"""A novel-wording yardstick for the HPO: the benchmark's relational requirements (and two more kinds) worded
the way people write, in wording families the benchmark's templates never use.

Why: the generated benchmark's test split shares its train split's phrasings, so a reader tuned on train can
score well on test and still fail on questions worded by anyone else. This set is written once, frozen under
`docs/eval/novel-wording/`, and only reported on (never mined for rules); see docs/benchmarks.md for when.

Requirements and answers come from the benchmark's own draft generators (exact answer sets from the stored
edges, 1..20 answers), drawn with another seed, and drafts the benchmark file already holds are left out.
Every question is worded in one family (stored as its `level`, so reports break results down by family):

- `vignette`: a patient or family story around the requirement
- `related`: hyphen compounds and "X-related" phrasing ("SCN1A-associated disorders")
- `terse`: note-style fragments
- `list`: imperative requests ("List every ...")
- `lowercase`: an ordinary question typed all in lower case, gene symbols included
- `typo`: an ordinary question whose anchor names carry one misspelling each
- `abbreviated`: phenotypes named by an HPO synonym, and abbreviations in the frame ("dz", "w/", "assoc.")
- `paraphrased`: phenotypes described by a reworded, unquoted clause of their definition
- `context`: an ordinary question inside irrelevant context

A second file holds perturbation groups: one requirement worded ten ways, to check the top answer is stable.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from grasp_agent.evaluation.hpo_benchmark import MAX_ANSWERS, TEMPLATES, descriptions
from grasp_agent.evaluation.hpo_index import Draft, HpoIndex, shuffled
from grasp_agent.skb.hpo import HpoSource

FAMILIES = (
    "vignette",
    "related",
    "terse",
    "list",
    "lowercase",
    "typo",
    "abbreviated",
    "paraphrased",
    "context",
)
SPLIT = "novel"  # neither train, valid nor test: nothing may be fitted on it
PER_CELL = 4
PERTURBATION_GROUPS = 30
PERTURBATION_SIZE = 10


@dataclass(frozen=True)
class Kind:
    """A requirement (a benchmark template or one of the extra kinds) and its frames per style."""

    hops: int
    slots: str  # p phenotype, g gene, d disease, q second phenotype, r third phenotype (k: keyword)
    question: tuple[str, ...]
    vignette: tuple[str, ...]
    related: tuple[str, ...]
    terse: tuple[str, ...]
    listing: tuple[str, ...]


_SUB = ("a more specific kind of {p}", "some narrower form of {p}", "any child term under {p}")
KINDS: dict[str, Kind] = {
    "phenotype_diseases": Kind(
        1,
        "p",
        ("What disorders can cause {p}?", "In which diseases is {p} seen?", "Which genetic conditions list {p}?"),
        (
            "My son has {p}. What disease could he have?",
            "A patient presents with {p}; which disorders belong on the differential?",
        ),
        ("{p}-related disorders?", "What conditions are {p}-associated?"),
        ("{p} - differential", "{p}, which dx?"),
        ("List every disease annotated with {p}.", "Give me all disorders featuring {p}."),
    ),
    "disease_genes": Kind(
        1,
        "d",
        ("What gene causes {d}?", "Which genes are mutated in {d}?", "Mutations in which gene underlie {d}?"),
        (
            "My niece was diagnosed with {d}. Which gene should the lab sequence?",
            "We suspect {d} in a newborn; what gene is behind it?",
        ),
        ("{d}-causing genes?", "Genes behind {d}-type disease?"),
        ("{d} gene", "{d} causative gene(s)"),
        ("List the genes known for {d}.", "Name all genes implicated in {d}."),
    ),
    "gene_diseases": Kind(
        1,
        "g",
        ("Which disorders result from {g} variants?", "What diseases does {g} cause?", "Which conditions involve {g}?"),
        (
            "Genetic testing found a pathogenic {g} variant in my daughter. What conditions does this cause?",
            "A child carries a de novo variant in {g}. Which disorders fit?",
        ),
        ("Which {g}-related disorders are known?", "{g}-associated conditions?"),
        ("{g} disorders", "{g}: which disease(s)"),
        ("List all {g}-linked diseases.", "Name every disorder caused by {g}."),
    ),
    "phenotype_diseases_named": Kind(
        1,
        "p",
        (
            "Which {k} disorders cause {p}?",
            "I'm looking for a disease with {k} in its name that features {p}.",
            "What kind of {k} condition shows {p}?",
        ),
        (
            "The doctor mentioned something called {k} for my son's {p}. Which disease could that be?",
            "A patient with {p} was told it is some form of {k}. Which one?",
        ),
        ("{p}-related {k} disorders?", "Which {k} forms are {p}-associated?"),
        ("{k} + {p}", "{p}; {k}-something"),
        ("List the {k} diseases that show {p}.", "Name all {k} conditions presenting {p}."),
    ),
    "phenotype_gene_diseases": Kind(
        2,
        "pg",
        (
            "What disease caused by {g} features {p}?",
            "Which disorder involves both {g} and {p}?",
            "{g} mutations plus {p}: which disease is it?",
        ),
        (
            "A patient carries a variant in {g} and shows {p}. Which condition fits?",
            "My son has {p} and the genetic panel flagged {g}. What could this be?",
        ),
        ("Which {g}-related disorder presents with {p}?", "{g}-associated disease with {p}?"),
        ("{g} + {p} -> dx?", "{p}, {g} positive"),
        ("List the {g} disorders that include {p}.", "Name the diseases linked to {g} which show {p}."),
    ),
    "subtype_diseases": Kind(
        2,
        "p",
        tuple(f"Which diseases feature {sub}?" for sub in _SUB),
        (
            "My daughter has some specific type of {p}, we don't know which. What diseases could it be?",
            "A patient shows a particular subtype of {p}. Which disorders have such a finding?",
        ),
        ("Disorders related to subtypes of {p}?", "Diseases with any {p}-subtype finding?"),
        ("narrower terms of {p} -> disease", "{p} (specific subtype): diseases"),
        (
            "List diseases annotated with a more specific kind of {p}.",
            "Name every disorder that has a child term of {p}.",
        ),
    ),
    "phenotype_disease_genes": Kind(
        2,
        "p",
        (
            "Which genes underlie disorders featuring {p}?",
            "What genes cause diseases in which {p} is seen?",
            "Mutations in which genes lead to conditions with {p}?",
        ),
        (
            "My son has {p}. Which genes should a panel cover?",
            "A patient presents with {p}. What genes might carry the causal variant?",
        ),
        ("{p}-related disease genes?", "Genes of {p}-associated disorders?"),
        ("{p} gene panel", "{p}: candidate genes"),
        ("List the genes of all diseases with {p}.", "Name all genes behind disorders showing {p}."),
    ),
    "subtype_gene_diseases": Kind(
        3,
        "pg",
        tuple(f"Which {{g}} disorders feature {sub}?" for sub in _SUB),
        (
            "A patient has a {g} variant and a specific type of {p}. Which disease fits?",
            "My child carries a {g} mutation and shows some particular form of {p}. What could it be?",
        ),
        ("Which {g}-related disorder has a subtype of {p}?", "{g}-associated disease with a specific {p}?"),
        ("{g} + narrower {p} -> dx", "{g}; {p} (subtype)"),
        ("List the {g} diseases with a more specific kind of {p}.", "Name all {g} disorders showing some {p} subtype."),
    ),
    "shared_gene_phenotype_diseases": Kind(
        3,
        "dp",
        (
            "Apart from {d}, which diseases caused by the same gene show {p}?",
            "What other disorders share a gene with {d} and feature {p}?",
            "Which disease besides {d} is caused by one of its genes and presents {p}?",
        ),
        (
            "My brother has {d}. Which related genetic disorders, sharing a gene with it, also cause {p}?",
            "A family has {d}; which other diseases from the same gene come with {p}?",
        ),
        ("Other gene-related disorders of {d} with {p}?", "{d}-allelic diseases featuring {p}?"),
        ("same gene as {d}, with {p} -> other dz", "{d} allelic disorders w/ {p}"),
        (
            "List the other diseases sharing a gene with {d} that show {p}.",
            "Name every disorder, not {d} itself, that shares one of its genes and has {p}.",
        ),
    ),
    "subtype_disease_genes": Kind(
        3,
        "p",
        tuple(f"Which genes cause disorders featuring {sub}?" for sub in _SUB),
        (
            "My son has a specific subtype of {p}. Which genes could be responsible?",
            "A patient shows a particular form of {p}. What genes should be tested?",
        ),
        ("Genes of disorders with a {p}-subtype?", "Which genes cause subtype-of-{p}-related disease?"),
        ("narrower {p} -> dz -> genes", "{p} subtypes: genes"),
        ("List the genes of diseases with a more specific kind of {p}.", "Name all genes behind a {p} subtype."),
    ),
    # Beyond the benchmark's templates: a conjunction of named phenotypes, and a subtype picked by its definition.
    "phenotypes_disease": Kind(
        2,
        "pqr",
        (
            "Which disease features {p}, {q} and {r}?",
            "What disorder has {p} together with {q} and {r}?",
            "{p}, {q} and {r}: what is the diagnosis?",
        ),
        (
            "My daughter has {p}, {q} and {r}. What could this be?",
            "A child presents with {p}, {q}, and {r}. Which condition fits best?",
        ),
        ("{p}-related disease that also has {q} and {r}?", "Which {q}-associated disorder also shows {p} and {r}?"),
        ("{p} + {q} + {r} -> dx", "{p}; {q}; {r}"),
        ("List diseases with {p}, {q} and {r}.", "Name all disorders that show {p}, {q} and {r}."),
    ),
    "subtype_by_definition": Kind(
        1,
        "p",
        (
            "Which kind of {p} is described as involving {k}?",
            "What specific subtype of {p} has {k} in its definition?",
            "Which narrower term of {p} mentions {k}?",
        ),
        (
            "The report says my son has a form of {p} involving {k}. Which term is that?",
            "A patient has some type of {p}, the one with {k}. Which subtype is meant?",
        ),
        ("The {k}-related subtype of {p}?", "Which {p} subtype is {k}-associated?"),
        ("{p} subtype: {k}", "{p} > child, {k}"),
        ("Name the subtype of {p} defined by {k}.", "List the {p} subtypes whose definitions mention {k}."),
    ),
}

_CONTEXT_BEFORE = (
    "I'm preparing slides for our journal club on Thursday and got stuck. ",
    "Sorry if this is a basic question, I'm a first-year student. ",
    "Our clinic moved buildings last week and the wifi is terrible, so I'll ask here. ",
    "Background: I have been reading about rare diseases for a novel I'm writing. ",
)
_CONTEXT_AFTER = (" Thanks a lot!", " (Asking for a genetics class.)", " Any pointers appreciated.", "")
# Frame words people shorten in notes; applied to the ordinary question frame, never to anchor names.
_ABBREVIATIONS = (
    (r"\bdiseases\b", "dz"),
    (r"\bdisease\b", "dz"),
    (r"\bdisorders\b", "d/o"),
    (r"\bdisorder\b", "d/o"),
    (r"\bwith\b", "w/"),
    (r"\bwithout\b", "w/o"),
    (r"\bassociated\b", "assoc."),
    (r"\bpatient\b", "pt"),
    (r"\bmutations\b", "muts"),
    (r"\bconditions\b", "conds"),
)
# Ordinary-language rewordings for definition clauses (the generator's thesaurus; the reader never sees it).
_PARAPHRASE = (
    (r"\bincreased\b", "raised"),
    (r"\bdecreased\b", "lowered"),
    (r"\breduced\b", "diminished"),
    (r"\babnormal\b", "atypical"),
    (r"\babnormality\b", "anomaly"),
    (r"\bthe presence of\b", "having"),
    (r"\bpresence of\b", "having"),
    (r"\bpresence\b", "occurrence"),
    (r"\benlarged\b", "bigger than usual"),
    (r"\benlargement\b", "swelling"),
    (r"\bsmall\b", "undersized"),
    (r"\blarge\b", "big"),
    (r"\bdefect\b", "fault"),
    (r"\bcongenital\b", "inborn"),
    (r"\bsevere\b", "marked"),
    (r"\bmalformation\b", "deformity"),
    (r"\binability\b", "failure"),
)
_TRAILING = frozenset("a an the of in on for to with and or by from at as that which".split())
_PARAPHRASE_FRAMES = ("a problem where {}", "the finding of {}", "something like {}", "{}")


@dataclass(frozen=True)
class NovelQuery:
    id: str
    query: str
    answer_ids: tuple[str, ...]
    template: str
    hops: int
    family: str
    topic_ids: tuple[str, ...]

    def record(self) -> dict[str, object]:
        """The JSONL line `query_sets.read_jsonl_queries` reads; the family is its `level`."""
        return {
            "id": self.id,
            "query": self.query,
            "answer_ids": list(self.answer_ids),
            "split": SPLIT,
            "template": self.template,
            "hops": self.hops,
            "level": self.family,
            "topic_ids": list(self.topic_ids),
        }


# ---- drafts ------------------------------------------------------------------------------------------------
def _phenotypes_disease_drafts(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    """Three phenotypes of one disease, each not an ancestor of another; answers: diseases with all three."""
    for disease in shuffled(index.disease_phenotypes, rng):
        phenotypes = index.usable(index.disease_phenotypes[disease])
        if len(phenotypes) < 3:
            continue
        chosen = rng.sample(phenotypes, 3)
        if any(index.related(a, b) for a in chosen for b in chosen if a < b):
            continue
        answers = frozenset.intersection(*(frozenset(index.phenotype_diseases[p]) for p in chosen))
        yield Draft("phenotypes_disease", tuple(chosen), answers)


_DEF_WORD = re.compile(r"[a-z]{6,}")


def _subtype_by_definition_drafts(index: HpoIndex, rng: random.Random, limit: int) -> Iterator[Draft]:
    """A phenotype's child picked by a word of its definition that neither its own name nor any sibling's
    definition or name holds; the answer is that child."""
    for parent in shuffled(index.usable(index.children), rng):
        children = sorted(index.children[parent])
        if len(children) < 2:
            continue
        child = rng.choice(children)
        definition = index.definitions.get(child, "").lower()
        own = index.names[child].lower() + " " + index.names[parent].lower()
        siblings = " ".join(
            index.definitions.get(other, "").lower() + " " + index.names[other].lower()
            for other in children
            if other != child
        )
        words = sorted({w for w in _DEF_WORD.findall(definition) if w not in own and w not in siblings})
        if words:  # the longest such word: the most specific ("inflammation" over "surrounds")
            yield Draft("subtype_by_definition", (parent,), frozenset({child}), max(words, key=lambda w: (len(w), w)))


def _drafts(kind: str, index: HpoIndex, rng: random.Random) -> Iterator[Draft]:
    if kind == "phenotypes_disease":
        return _phenotypes_disease_drafts(index, rng, MAX_ANSWERS)
    if kind == "subtype_by_definition":
        return _subtype_by_definition_drafts(index, rng, MAX_ANSWERS)
    return TEMPLATES[kind].drafts(index, rng, MAX_ANSWERS)


# ---- wording -----------------------------------------------------------------------------------------------
def _misspell(word: str, rng: random.Random) -> str:
    """One typing slip inside a word of 5+ letters: two inner letters swapped, one dropped or one doubled."""
    if len(word) < 5 or not word.isalpha():
        return word
    position = rng.randrange(1, len(word) - 2)
    slip = rng.choice(("swap", "drop", "double"))
    if slip == "swap" and word[position] != word[position + 1]:
        return word[:position] + word[position + 1] + word[position] + word[position + 2 :]
    if slip == "drop":
        return word[:position] + word[position + 1 :]
    return word[:position] + word[position] + word[position:]


def misspelled(name: str, rng: random.Random) -> str:
    """The name with its longest word (5+ letters) misspelled once; short names stay as they are."""
    words = name.split(" ")
    longest = max(range(len(words)), key=lambda i: (len(words[i]), -i))
    words[longest] = _misspell(words[longest], rng)
    return " ".join(words)


def _substitute(text: str, rules: Iterable[tuple[str, str]]) -> str:
    for pattern, replacement in rules:
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    return text


def paraphrased(clause: str, rng: random.Random) -> str:
    """A definition clause reworded without quotes: ordinary words for the usual terms, cut at 14 words."""
    words = _substitute(clause, _PARAPHRASE).split()[:14]
    while len(words) > 1 and words[-1].lower().strip(",;:") in _TRAILING:
        words.pop()
    text = " ".join(words).rstrip(",;:")
    return rng.choice(_PARAPHRASE_FRAMES).format(text[0].lower() + text[1:] if text else text)


def _synonym(anchor: str, synonyms: dict[str, tuple[str, ...]], index: HpoIndex, rng: random.Random) -> str:
    """An HPO synonym that differs from the name (the shortest of two drawn, as people abbreviate)."""
    options = [s for s in synonyms.get(anchor, ()) if s.casefold() != index.names[anchor].casefold() and "_" not in s]
    if not options:
        return index.names[anchor]
    return min(rng.sample(options, min(2, len(options))), key=len)


@dataclass
class _Wording:
    index: HpoIndex
    described: dict[str, str]
    synonyms: dict[str, tuple[str, ...]]

    def usable(self, draft: Draft, family: str) -> bool:
        """Whether the family can word this draft: paraphrase and synonyms need a phenotype anchor that has one."""
        phenotypes = [a for a in draft.anchors if self.index.labels[a] == "Phenotype"]
        if family == "paraphrased":
            return any(a in self.described for a in phenotypes) and draft.template != "subtype_by_definition"
        return True

    def render(self, draft: Draft, family: str, rng: random.Random, variant: int = 0) -> str:
        kind = KINDS[draft.template]
        shown = [self._anchor(anchor, family, rng) for anchor in draft.anchors]
        style = {"vignette": kind.vignette, "related": kind.related, "terse": kind.terse, "list": kind.listing}
        frames = style.get(family, kind.question)
        frame = frames[variant % len(frames)] if variant else rng.choice(frames)
        if family == "abbreviated":  # the frame's words, never the anchors' names
            frame = _substitute(frame, _ABBREVIATIONS)
        text = frame.format(k=draft.keyword, **dict(zip(kind.slots, shown, strict=True)))
        if family == "lowercase":
            text = text.lower()
        elif family == "context":
            text = rng.choice(_CONTEXT_BEFORE) + text + rng.choice(_CONTEXT_AFTER)
        return text[0].upper() + text[1:] if family not in ("lowercase", "terse") else text

    def _anchor(self, anchor: str, family: str, rng: random.Random) -> str:
        name = self.index.names[anchor]
        is_phenotype = self.index.labels[anchor] == "Phenotype"
        if family == "typo":
            return misspelled(name, rng)
        if family == "abbreviated" and is_phenotype:
            return _synonym(anchor, self.synonyms, self.index, rng)
        if family == "paraphrased" and anchor in self.described:
            return paraphrased(self.described[anchor], rng)
        # Mid-sentence, people write a phenotype in lower case ("has microcephaly"); symbols stay as written.
        return name[0].lower() + name[1:] if is_phenotype and not name[:2].isupper() else name


def _query_id(prefix: str, draft: Draft, family: str) -> str:
    digest = hashlib.sha256(f"{draft.key()}|{family}".encode()).hexdigest()[:12]
    return f"{prefix}-{draft.template}-{digest}"


def _read_synonyms(source: HpoSource) -> dict[str, tuple[str, ...]]:
    return {
        str(node.id): tuple(str(synonym) for synonym in synonyms)
        for node in source.nodes()
        if node.label == "Phenotype" and isinstance(synonyms := node.properties.get("synonyms"), list) and synonyms
    }


def _fresh_drafts(index: HpoIndex, kind: str, seed: int, excluded: Callable[[Draft], bool]) -> Iterator[Draft]:
    rng = random.Random(f"novel:{seed}:{kind}")
    seen: set[str] = set()
    for draft in _drafts(kind, index, rng):
        if 1 <= len(draft.answers) <= MAX_ANSWERS and draft.key() not in seen and not excluded(draft):
            seen.add(draft.key())
            yield draft


def build_novel_wording(
    source: HpoSource, seed: int = 0, per_cell: int = PER_CELL, benchmark_ids: frozenset[str] = frozenset()
) -> tuple[list[NovelQuery], list[NovelQuery]]:
    """(the novel-wording set, the perturbation groups). `per_cell` questions per (kind, family) the family can
    word; drafts whose benchmark id is in `benchmark_ids` are skipped. Deterministic by source and seed."""
    index = HpoIndex.read(source)
    wording = _Wording(index, descriptions(index), _read_synonyms(source))

    def in_benchmark(draft: Draft) -> bool:
        return f"hpob-{draft.template}-{hashlib.sha256(draft.key().encode()).hexdigest()[:12]}" in benchmark_ids

    queries: list[NovelQuery] = []
    groups: list[NovelQuery] = []
    for position_of_kind, (kind_name, kind) in enumerate(KINDS.items()):
        drafts = _fresh_drafts(index, kind_name, seed, in_benchmark)
        rng = random.Random(f"novel-wording:{seed}:{kind_name}")
        stash: list[Draft] = []  # drafts a family could not word wait for the next families
        for family in FAMILIES:
            fits = functools.partial(wording.usable, family=family)
            for taken, draft in enumerate(_stashed_then(stash, drafts, fits), start=1):
                text = wording.render(draft, family, rng)
                queries.append(_query(_query_id("hponovel", draft, family), draft, family, text, kind.hops))
                if taken == per_cell:
                    break
        # Perturbation groups: the next drafts, each worded in every family it allows plus ordinary frames; the
        # groups are shared out over the kinds, the first kinds taking one more while the remainder lasts.
        rounds = PERTURBATION_GROUPS // len(KINDS) + (1 if position_of_kind < PERTURBATION_GROUPS % len(KINDS) else 0)
        for draft in drafts:
            if rounds == 0:
                break
            families = [f for f in FAMILIES if wording.usable(draft, f)]
            plain = ["plain"] * (PERTURBATION_SIZE - len(families))
            group_id = _query_id("hpoperturb", draft, "group")
            for position, family in enumerate(families + plain):
                text = wording.render(draft, family, rng, variant=position)
                groups.append(_query(f"{group_id}-{position}", draft, family, text, kind.hops))
            rounds -= 1
    return queries, groups


def _stashed_then(stash: list[Draft], drafts: Iterator[Draft], fits: Callable[[Draft], bool]) -> Iterator[Draft]:
    """The stashed drafts that fit, then fresh ones that fit (at most 50 looked at past the stash, so a family
    no draft of a kind can take, a paraphrase of a gene question, costs little); the others are stashed."""
    for draft in [d for d in stash if fits(d)]:
        stash.remove(draft)
        yield draft
    for _, draft in zip(range(50), drafts, strict=False):
        if fits(draft):
            yield draft
        else:
            stash.append(draft)


def _query(query_id: str, draft: Draft, family: str, text: str, hops: int) -> NovelQuery:
    return NovelQuery(query_id, text, tuple(sorted(draft.answers)), draft.template, hops, family, draft.anchors)


def write_queries(path: Path, queries: Iterable[NovelQuery]) -> None:
    with Path(path).open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(query.record()) + "\n" for query in queries)


__all__ = [
    "FAMILIES",
    "KINDS",
    "NovelQuery",
    "build_novel_wording",
    "misspelled",
    "paraphrased",
    "write_queries",
]
