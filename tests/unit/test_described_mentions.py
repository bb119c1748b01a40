"""Entities described, not named: the clause splitter, the named-share rule and how the planner uses doc rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from grasp_agent.graph_branch.described_mentions import (
    DESCRIPTION_WORDS,
    FRAME_WORDS,
    QUOTED_DEFINITION_SCORE,
    TRAILING_WORDS,
    Clause,
    DescribedMentionFinder,
    candidate_clauses,
    clause_frame,
    describes_one,
    description_words,
    named_share,
    names_a_symbol,
    names_another_type,
    names_its_link,
    serial_commas,
)
from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable
from grasp_agent.graph_branch.function_words import FUNCTION_WORDS
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.graph_branch.mentions import Mention, MentionRole
from grasp_agent.graph_branch.phrases import phrase_key
from grasp_agent.graph_branch.plan import MatchMode, Risk, plan_json_schema
from grasp_agent.graph_branch.procedure_calls import NodeLink
from grasp_agent.graph_branch.type_words import type_words
from grasp_agent.skb.schema import SkbSchema
from tests.unit.test_graph_branch_units import HPO_CONTEXT


def _texts(question: str, named: tuple[str, ...] = ()) -> list[str]:
    """The clauses that may describe an entity at any reading (not those made of names)."""
    clauses = candidate_clauses(question, clause_frame(HPO_CONTEXT.schema), named)
    return [clause.text for clause in clauses if not (clause.joins_a_name or clause.mostly_names)]


@pytest.mark.parametrize(
    ("question", "named", "expected"),
    [
        # a quoted definition is one clause, its introduction is not
        (
            'Which diseases present with the abnormality described as "a generalized decrease in bone mineral density"?',
            (),
            ["a generalized decrease in bone mineral density"],
        ),
        # unquoted: cut at the coordination and trimmed of the framing verbs; the whole is not one description
        # because one conjunct is a named gene
        (
            "Which diseases present with a generalized decrease in bone mineral density and are associated with DDRGK1?",
            ("DDRGK1",),
            ["generalized decrease in bone mineral density"],
        ),
        # coordination inside a description: the pieces and the whole are candidates
        (
            "Which diseases present with sudden flexion or extension of the proximal and truncal muscles?",
            ("proximal",),
            ["sudden flexion or extension of the proximal and truncal muscles"],
        ),
        # a relative clause
        (
            "What genes are linked to conditions in which the serum contains antibodies against platelets?",
            (),
            ["serum contains antibodies against platelets"],
        ),
        # a description with its own relative clause: each piece before one also with the relative clause after
        # it, up to a coordination ("a problem" is too short alone, not with its "where ..."); the better-linked
        # reading wins
        (
            "Which disorder involves both MAPT and a problem where an failure to name people and objects that are "
            "correctly perceived?",
            ("MAPT",),
            [
                "failure to name people and objects",
                "problem where an failure to name people",
                "objects that are correctly perceived",
                "failure to name people and objects that are correctly perceived",
            ],
        ),
        # ... and not on through the named things a question lists after it
        (
            "What disorder has a problem where underdevelopment of part or all of the female external reproductive "
            "organs together with broad philtrum and hydrocephalus?",
            ("broad philtrum", "hydrocephalus"),
            ["female external reproductive organs", "problem where underdevelopment of part"],
        ),
        # hierarchy words frame the entity; "a direct subtype of X" leaves too few words to be a description
        ("Which diseases present with a direct subtype of Pyelonephritis?", (), []),
        ("Encopresis; DMPK: diseases?", (), []),
        # "with" joins two things a question lists: each piece, the whole, and each without the verb and article
        # that open it ("combines a")
        (
            "Which condition combines a clouded eye lens with reduced gonad function?",
            (),
            [
                "combines a clouded eye lens",
                "reduced gonad function",
                "combines a clouded eye lens with reduced gonad function",
                "clouded eye lens",
                "clouded eye lens with reduced gonad function",
            ],
        ),
        # a sentence ends at a full stop before a capital; a vignette's subject and verb open a second reading
        (
            "My son has reduced function of the testes. Which syndrome could this be?",
            (),
            ["son has reduced function of the testes", "reduced function of the testes"],
        ),
        # a question saying which text field holds a keyword describes nothing: the field's name (the schema's
        # "definition") and the words about text ("mentioning") frame it, and the name stays a name
        (
            "Which child term of Abnormal neutrophil morphology has a definition mentioning characteristic?",
            ("Abnormal neutrophil morphology",),
            [],
        ),
        # a full stop after a word ends a sentence before lower-case wording too, but not inside "e.g."
        (
            "I have been reading about rare diseases for a novel. reduced function of the testes: what is it?",
            (),
            ["reading about rare diseases for a novel", "reduced function of the testes"],
        ),
        (
            "Which disease shows e.g. a reduced function of the testes?",
            (),
            ["e.g. a reduced function of the testes", "reduced function of the testes"],
        ),
        # a name in a hyphen compound is still a name: "2-type" holds the "2" of "Loeys-Dietz syndrome 2"
        ("Genes behind Loeys-Dietz syndrome 2-type disease?", ("Loeys-Dietz syndrome 2",), []),
        # mostly named: "Delayed CNS myelination" is a name the span finder linked
        (
            "Which disorders linked to FANCL have Delayed CNS myelination as a feature?",
            ("FANCL", "Delayed CNS myelination"),
            [],
        ),
    ],
)
def test_candidate_clauses(question: str, named: tuple[str, ...], expected: list[str]) -> None:
    assert _texts(question, named) == expected


def test_clause_offsets_point_into_the_question() -> None:
    question = 'Which genes cause "progressive loss of hair on the scalp"; and which diseases?'
    (clause,) = candidate_clauses(question, clause_frame(HPO_CONTEXT.schema))
    assert question[clause.start : clause.end] == clause.text == "progressive loss of hair on the scalp"


def test_named_share_counts_the_content_words_anchor_mentions_cover() -> None:
    clause = Clause(0, 0, "implicated in conditions with a more specific form of Bowel incontinence")
    frame = clause_frame(HPO_CONTEXT.schema)  # "conditions" is one of the schema's words for a disease
    assert named_share(clause, ["Bowel incontinence"], frame) == pytest.approx(1.0)  # the frame words do not count
    described = Clause(0, 0, "an anomaly of the tongue characterized by loss of filiform papillae")
    assert named_share(described, ["tongue"]) == pytest.approx(1 / 5)  # anomaly tongue loss filiform papillae
    assert named_share(described, []) == 0.0
    # a compound holding a name's word counts part by part: behind, loeys-dietz, syndrome, 2 ("type" frames)
    compound = Clause(0, 0, "behind Loeys-Dietz syndrome 2-type")
    assert named_share(compound, ["Loeys-Dietz syndrome 2"]) == pytest.approx(3 / 4)
    # one holding none stays one word: larsen-like, cognitive, delay
    assert named_share(Clause(0, 0, "Larsen-like conditions feature Cognitive delay"), ["Cognitive delay"], frame) == (
        pytest.approx(2 / 3)
    )


def test_named_share_counts_only_the_words_the_skbs_names_use_when_it_knows_them() -> None:
    frame = clause_frame(HPO_CONTEXT.schema)
    names = frozenset({"adrenal", "hypoplasia", "hypoadrenocorticism", "patient", "form", "loss", "hair", "scalp"})
    vignette = Clause(0, 0, "patient with adrenal hypoplasia was told it is some form of Hypoadrenocorticism")
    # patient adrenal hypoplasia told hypoadrenocorticism: "told" is no word of any name, so it is no word of a
    # description either; what is left is mostly the name
    assert named_share(vignette, ["adrenal hypoplasia"], frame) == pytest.approx(2 / 5)
    assert named_share(vignette, ["adrenal hypoplasia"], frame, names) == pytest.approx(2 / 4)
    assert named_share(vignette, ["adrenal hypoplasia", "Hypoadrenocorticism"], frame, names) == pytest.approx(3 / 4)
    # a description is said in the names' words: the count does not change
    described = Clause(0, 0, "progressive loss of hair on the scalp")
    assert named_share(described, ["scalp"], frame, names | {"progressive"}) == named_share(described, ["scalp"], frame)
    # a named word counts whatever the vocabulary
    assert named_share(Clause(0, 0, "the zzq told"), ["zzq"], frame, frozenset()) == pytest.approx(1.0)


def _doc_row(text: str, label: str, score: float) -> EntityRow:
    link = NodeLink(f"{label}:x", "Osteopenia", label, score, 40)
    return EntityRow(Mention(text=text, types=(label,), match_mode=MatchMode.DOC), {label: (link,)})


def test_the_planner_anchors_a_described_entity_in_doc_mode_at_low_risk_only_when_linked_surely() -> None:
    question = 'Which diseases have the phenotype defined as "a generalized decrease in bone mineral density"?'
    table = EntityTable((_doc_row("a generalized decrease in bone mineral density", "Phenotype", 0.72),))
    plan = HeuristicPlanner(HPO_CONTEXT).build(question, table)
    assert [(a.type, a.match_mode) for a in plan.anchors] == [("Phenotype", MatchMode.DOC)]
    assert [h.relation for h in plan.hops] == ["HAS_PHENOTYPE"]
    assert plan.risk is Risk.MEDIUM  # a definition's nearest document is a guess
    # a quoted definition its node's own text matches as closely as a name: as sure as a name link
    sure = EntityTable((_doc_row("a generalized decrease in bone mineral density", "Phenotype", 0.99),))
    assert HeuristicPlanner(HPO_CONTEXT).build(question, sure).risk is Risk.LOW
    # below the doc threshold it stays text, as a weak name link would
    weak = EntityTable((_doc_row("a generalized decrease in bone mineral density", "Phenotype", 0.45),))
    assert HeuristicPlanner(HPO_CONTEXT).build(question, weak).anchors == ()


def test_hierarchy_words_before_a_description_still_direct_the_hop() -> None:
    question = 'Which diseases have a more specific form of the abnormality described as "an anomaly of the tongue"?'
    table = EntityTable((_doc_row("an anomaly of the tongue", "Phenotype", 0.7),))
    plan = HeuristicPlanner(HPO_CONTEXT).build(question, table)
    assert [(h.relation, h.direction.value) for h in plan.hops] == [("IS_A", "in"), ("HAS_PHENOTYPE", "any")]


def test_the_llm_planner_schema_fixes_each_anchor_choice_to_its_match_mode() -> None:
    table = EntityTable((_doc_row("a generalized decrease in bone mineral density", "Phenotype", 0.72),))
    schema = plan_json_schema(HPO_CONTEXT.labels, HPO_CONTEXT.relations, table.anchor_choices())
    (choice,) = schema["$defs"]["Anchor"]["anyOf"]
    assert choice["properties"]["match_mode"] == {"const": "doc"}
    assert "mode=doc" in table.to_prompt()


def test_a_clause_mostly_naming_other_kinds_of_thing_describes_nothing() -> None:
    question = "Which disorders linked to SCN8A have Bilateral tonic-clonic seizure as a feature?"
    clause, without_verb = candidate_clauses(question, clause_frame(HPO_CONTEXT.schema), ("SCN8A", "seizure"))
    assert (clause.text, without_verb.text) == (
        "SCN8A have Bilateral tonic-clonic seizure",
        "Bilateral tonic-clonic seizure",
    )
    named = [Mention(text="SCN8A", types=("Gene",)), Mention(text="seizure", types=("Phenotype",))]
    assert not describes_one(question, clause, "Disease", named)  # a gene and a phenotype, not a disease
    definition = 'Which genes cause "an increased concentration of the MB isoform of creatine kinase in the blood"?'
    (long,) = candidate_clauses(definition, clause_frame(HPO_CONTEXT.schema), ("MB",))
    assert describes_one(definition, long, "Phenotype", [Mention(text="MB", types=("Gene",))])
    # names of the described entity's own type inside it do not count against it
    assert describes_one(question, clause, "Phenotype", [Mention(text="seizure", types=("Phenotype",))])


def test_a_clause_that_cuts_a_name_at_its_comma_describes_nothing() -> None:
    question = (
        "Find disorders that share a causal gene with Hypophosphatemic rickets, autosomal recessive and involve X"
    )
    name = "Hypophosphatemic rickets, autosomal recessive"
    start = question.index("share")
    cut = Clause(start, question.index(","), question[start : question.index(",")])
    assert not describes_one(question, cut, "Disease", [Mention(text=name, types=("Disease",))])
    assert describes_one(question, cut, "Disease", [Mention(text="X", types=("Phenotype",))])


def test_relation_name_words_tie_named_things_together_and_describe_nothing() -> None:
    frame = clause_frame(HPO_CONTEXT.schema)
    relation_words = {"has", "lack", "lacks", "associated", "with"}
    assert relation_words <= frame
    question = "Which diseases SCN1A is associated to also lack Seizure?"
    # without the relation words, "associated ... lack" made a four-word description of a disease out of two names
    assert candidate_clauses(question, frame - relation_words, ("SCN1A", "Seizure"))
    assert candidate_clauses(question, frame, ("SCN1A", "Seizure")) == []


def test_a_clause_around_a_name_of_another_type_is_told_apart() -> None:
    # the finder keeps such a clause only when it reads as closely as a definition; here it is the gene's sentence
    question = "A girl carries a pathogenic COL1A1 variant. Which disease fits?"
    (clause,) = [
        c for c in candidate_clauses(question, clause_frame(HPO_CONTEXT.schema), ("COL1A1",)) if "COL1A1" in c.text
    ]
    gene = Mention(text="COL1A1", types=("Gene",))
    assert names_another_type(question, clause, "Phenotype", [gene])
    assert not names_another_type(question, clause, "Gene", [gene])  # a name of the described type itself
    assert not names_another_type(question, clause, "Phenotype", [Mention(text="Blue sclerae", types=("Phenotype",))])


def test_a_clause_that_reads_as_the_node_a_name_inside_it_names_is_no_description() -> None:
    # "people speak in Kenya" read by its documents as Kenya: the name says it, and the clause would take "speak"
    question = "What do people speak in Kenya?"
    clause = Clause(question.index("people"), question.index("?"), "people speak in Kenya")
    kenya = Mention(text="Kenya", types=("Country",))
    assert names_its_link(question, clause, "Kenya", [kenya])
    assert names_its_link(question, clause, "kenya", [kenya])  # names compare without case
    assert not names_its_link(question, clause, "Tanzania", [kenya])  # a description of another node stands
    assert not names_its_link(question, clause, "", [kenya])  # an own-text link the documents did not confirm
    outside = Clause(question.index("people"), question.index(" in "), "people speak")
    assert not names_its_link(question, outside, "Kenya", [kenya])


def test_the_words_that_frame_a_description_are_the_schemas_own_type_words() -> None:
    films = SkbSchema.model_validate(
        {
            "name": "films",
            "node_types": [{"label": "Film", "aliases": ["movie"]}, {"label": "Studio"}],
            "relation_types": [{"type": "PRODUCED_BY", "pairs": [{"source": "Film", "target": "Studio"}]}],
        }
    )
    question = "Which studio produced a heist gone wrong in a desert casino as a movie?"
    frame = clause_frame(films)
    (generic,) = candidate_clauses(question, frame, trailing=TRAILING_WORDS)
    assert generic.text == "heist gone wrong in a desert casino as a movie"
    (read,) = candidate_clauses(question, frame, trailing=FUNCTION_WORDS | description_words(films))
    assert read.text == "heist gone wrong in a desert casino"  # "as a movie" frames it in this SKB's words
    # the English lists name no type of an SKB: the HPO's words for its types come from its schema alone
    hpo_words = {w for t in HPO_CONTEXT.schema.node_types for word in type_words(t) for w in word.split()}
    assert {"symptom", "abnormality", "condition"} <= hpo_words <= description_words(HPO_CONTEXT.schema)
    assert hpo_words.isdisjoint(DESCRIPTION_WORDS | (FRAME_WORDS - FUNCTION_WORDS))


def test_a_clause_around_a_symbol_is_a_sentence_about_it() -> None:
    question = "Genetic testing found a pathogenic SLC37A4 variant in my daughter. What conditions does this cause?"
    clause = Clause(0, question.index("."), question[: question.index(".")])
    assert names_a_symbol(question, clause, [Mention(text="SLC37A4", types=("Gene",))])
    # an ordinary word that is also a node's name may be a word of a description
    described = "rods appear more severely affected than cones"
    assert not names_a_symbol(described, Clause(0, len(described), described), [Mention(text="affected")])
    assert not names_a_symbol(question, clause, [Mention(text="SLC37A4", role=MentionRole.TARGET)])


def test_a_coordination_between_quantifiers_joins_no_clauses() -> None:
    question = "Which disease has muscular hypotonia of one or more limbs and a small jaw?"
    assert "muscular hypotonia of one or more limbs" in _texts(question)
    assert "muscular hypotonia of one" not in _texts(question)


def test_the_commas_of_a_list_of_short_items_join_one_further_reading() -> None:
    question = "Which disease features a focal dystonia of the fingers, hand, and/or forearm that appears on writing?"
    assert [question[at - 4 : at] for at in sorted(serial_commas(question))] == ["gers", "hand"]
    texts = _texts(question)
    assert "focal dystonia of the fingers, hand, and/or forearm that appears on writing" in texts
    assert "focal dystonia of the fingers" in texts  # the pieces at those commas stay readings too
    # items of three words or more are no list of short items: the commas break as ever
    listed = "Which disease has short stature, downslanted palpebral fissures and bowing of the long bones?"
    assert serial_commas(listed) == frozenset()
    assert serial_commas("Which disease has seizures, and which gene causes it?") == frozenset()
    # the list's first conjunct holds the phrase's head, a name here: the list joins no names for that
    frame = clause_frame(HPO_CONTEXT.schema)
    listed_items = "focal dystonia of the fingers, hand, and/or forearm"
    (reading,) = [c for c in candidate_clauses(question, frame, ("focal dystonia",)) if c.text == listed_items]
    assert not reading.made_of_names
    # a list whose items are names is made of names
    names = ("seizures", "ataxia", "hypotonia")
    (named,) = [c for c in candidate_clauses("Seizures, ataxia and hypotonia: which disease?", frame, names)]
    assert named.text == "Seizures, ataxia and hypotonia" and named.made_of_names
    # a list's item must be followed by a comma or its coordination: "small, big" lists nothing
    assert serial_commas("red, green or blue; small, big") == frozenset({3})


def test_clauses_made_of_names_are_marked_not_dropped() -> None:
    frame = clause_frame(HPO_CONTEXT.schema)
    joined = (
        "Which diseases present with a generalized decrease in bone mineral density and are associated with DDRGK1?"
    )
    (coarse,) = [c for c in candidate_clauses(joined, frame, ("DDRGK1",)) if c.joins_a_name]
    assert coarse.text == "generalized decrease in bone mineral density and are associated with DDRGK1"
    question = "Which disorder involves both ATP5MK and the finding of paralysis of one or more extraocular muscles?"
    clauses = candidate_clauses(question, frame, ("ATP5MK", "paralysis", "extraocular muscles"))
    assert [c.text for c in clauses if c.mostly_names and not c.joins_a_name] == [
        "paralysis of one or more extraocular muscles"
    ]
    # one name and its frame is that name, not a clause made of names
    single = candidate_clauses(
        "Which disorders have Delayed CNS myelination as a feature?", frame, ("Delayed CNS myelination",)
    )
    assert single == []


class _Readings:
    """A document encoder, doc index and own-text index in one: each clause reads as the table says."""

    def __init__(self, doc: dict[str, float], own: dict[str, float]) -> None:
        self.doc, self.own = doc, own
        self.texts: list[str] = []

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        start = len(self.texts)
        self.texts += list(texts)
        return np.arange(start, start + len(texts), dtype=np.float32)[:, None]

    def link_many(self, vectors: dict[str, Any], labels: Any, mode: str, k: int, min_score: float) -> dict[str, Any]:
        links = {}
        for var, vector in vectors.items():
            text = self.texts[int(np.asarray(vector).ravel()[0])]
            links[var] = (
                [NodeLink("HP:doc", "Some phenotype", "Phenotype", self.doc[text], 1)] if text in self.doc else []
            )
        return links

    def own_text_matches(
        self, vectors: np.ndarray, k: int, node_types: Any = None, texts: Sequence[str | None] | None = None
    ) -> list[list[Any]]:
        embedded = [self.texts[int(v[0])] for v in vectors]
        # a clause's words are read with its vector (`text_branch.own_text`), but for a clause made of names
        assert texts is not None and all(text in (None, clause) for text, clause in zip(texts, embedded, strict=True))
        self.read_by_words = [clause for text, clause in zip(texts, embedded, strict=True) if text is not None]
        return [[("HP:own", "Phenotype", self.own[t])] if t in self.own else [] for t in embedded]


def _finder(readings: _Readings, vocabulary: frozenset[str] | None = None) -> DescribedMentionFinder:
    return DescribedMentionFinder(
        readings,  # type: ignore[arg-type]
        readings,  # type: ignore[arg-type]
        HPO_CONTEXT.schema,
        own_text=readings,
        name_vocabulary=vocabulary,
    )


def test_a_clause_made_of_names_describes_one_entity_only_as_closely_as_a_quoted_definition() -> None:
    question = (
        "Which disorder involves both ATP5MK and the finding of paralysis of one or more extraocular muscles that are "
        "responsible for eye movements?"
    )
    clause = "paralysis of one or more extraocular muscles that are responsible for eye movements"
    mentions = [
        Mention(text="ATP5MK", types=("Gene",)),
        Mention(text="paralysis", types=("Phenotype",)),
        Mention(text="extraocular muscles", types=("Phenotype",)),
    ]
    # the words the SKB's names use: "responsible" is none, so the clause is mostly the two names' words
    vocabulary = frozenset(phrase_key(word) for word in ("paralysis", "extraocular", "muscles", "eye", "movements"))
    readings = _Readings({}, {clause: 0.99})
    quoted = _finder(readings, vocabulary).add(question, mentions)
    assert [(m.text, m.match_mode) for m in quoted] == [("ATP5MK", MatchMode.NAME), (clause, MatchMode.DOC)]
    # a definition holding the two names' words is no reading of one entity: the clause is read by its vector only
    assert clause not in readings.read_by_words
    # two names joined read as closely as a definition paraphrased: still two names
    close = _finder(_Readings({}, {clause: QUOTED_DEFINITION_SCORE - 0.05}), vocabulary).add(question, mentions)
    assert [m.text for m in close] == ["ATP5MK", "paralysis", "extraocular muscles"]


def test_of_overlapping_readings_as_close_as_a_quoted_definition_the_longest_describes() -> None:
    question = "Which diseases show a height below that which is expected according to age and gender norms?"
    whole = "height below that which is expected according to age"
    part = "expected according to age"
    mentions: list[Mention] = []
    texts = [c.text for c in _finder(_Readings({}, {})).clauses(question, mentions)]
    assert whole in texts and part in texts
    # both sure: the longer accounts for more of the question, though its part reads closer
    sure = _finder(_Readings({}, {part: 1.0, whole: QUOTED_DEFINITION_SCORE + 0.02})).add(question, mentions)
    assert [m.text for m in sure] == [whole]
    # below that bar the closer reading wins, as ever
    unsure = _finder(_Readings({}, {part: 0.85, whole: 0.8})).add(question, mentions)
    assert [m.text for m in unsure] == [part]


def test_an_aside_describes_an_entity_only_as_closely_as_a_definition_does() -> None:
    aside = "Which disease shows hemiballismus? (Asking for a genetics class.)"
    mentions = [Mention(text="hemiballismus", types=("Phenotype",))]
    weak = _finder(_Readings({"Asking for a genetics class": 0.6}, {})).add(aside, mentions)
    assert [m.text for m in weak] == ["hemiballismus"]
    close = _finder(_Readings({}, {"Asking for a genetics class": 0.8})).add(aside, mentions)
    assert [m.text for m in close] == ["hemiballismus", "Asking for a genetics class"]
    # the same reading in the sentence that asks describes an entity
    asked = "Which disease shows hemiballismus when asking for a genetics class?"
    found = _finder(_Readings({"asking for a genetics class": 0.6}, {})).add(asked, mentions)
    assert [m.text for m in found] == ["hemiballismus", "asking for a genetics class"]


def test_a_clause_around_a_name_it_asks_a_kind_of_describes_only_as_a_quoted_definition_does() -> None:
    question = "The report says my son has a form of hypophosphatemia involving inappropriately. Which term is that?"
    clause = "report says my son has a form of hypophosphatemia involving inappropriately"
    mentions = [Mention(text="hypophosphatemia", types=("Phenotype",))]
    assert clause in [c.text for c in _finder(_Readings({}, {})).clauses(question, mentions)]
    # "a form of X involving Y" names X, the genus it narrows: a reading as close as a definition's keeps the name
    kept = _finder(_Readings({clause: 0.75}, {})).add(question, mentions)
    assert [(m.text, m.match_mode) for m in kept] == [("hypophosphatemia", MatchMode.NAME)]
    # a quoted definition's closeness still makes it one description
    sure = _finder(_Readings({clause: QUOTED_DEFINITION_SCORE + 0.01}, {})).add(question, mentions)
    assert [(m.text, m.match_mode) for m in sure] == [(clause, MatchMode.DOC)]
    # a name inside without the words that ask for its kind is a word of the description, as before
    plain = "The report says my son has hypophosphatemia involving inappropriately. Which term is that?"
    read = _finder(_Readings({"report says my son has hypophosphatemia involving inappropriately": 0.75}, {}))
    assert [m.match_mode for m in read.add(plain, mentions)] == [MatchMode.DOC]


def test_a_relative_clause_or_appositive_after_a_comma_joins_one_further_reading() -> None:
    pinna = "Which disease features a problem where an anomaly of the pinna, which is also referred to as the auricle?"
    assert "anomaly of the pinna, which is also referred to as the auricle" in _texts(pinna)
    hindbrain = (
        "Which diseases feature some narrower form of an anomaly of the hindbrain, also known as the rhombencephalon?"
    )
    texts = _texts(hindbrain)
    assert "anomaly of the hindbrain, also known as the rhombencephalon" in texts
    # the piece before the comma alone is too short to be a description; the appositive says nothing alone
    assert "anomaly of the hindbrain" not in texts
    # up to the coordination that goes on to list a named thing, as a relative clause without a comma
    teeth = (
        "What disorder has lowered size of the teeth, which can be defined as a small tooth diameter and optic atrophy?"
    )
    assert "lowered size of the teeth, which can be defined as a small tooth diameter" in _texts(teeth)
    # a comma before any other word opens no such reading
    assert not any("pinna, and" in text for text in _texts("Which disease has an anomaly of the pinna, and deafness?"))
