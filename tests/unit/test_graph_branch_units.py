"""The graph branch's pure parts: type choice of the entity table, candidate spans, the heuristic plan,
witness rendering, prompts and the narrowed JSON Schemas."""

from __future__ import annotations

import dataclasses

import pytest

from grasp_agent.graph_branch.answer_types import fit_answer_type_prior
from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable, choose_types
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner, asked_noun_cue, frame_words
from grasp_agent.graph_branch.learned_loops import MIN_QUESTIONS, learned_loops
from grasp_agent.graph_branch.mentions import Mention, MentionList, MentionRole, mention_list_schema
from grasp_agent.graph_branch.plan import Direction, MatchMode, Risk, plan_json_schema
from grasp_agent.graph_branch.procedure_calls import NodeLink, PlanCheck, RankedNode
from grasp_agent.graph_branch.prompts import EXTRACTION_DEMOS, extraction_messages, planner_messages
from grasp_agent.graph_branch.ranking import (
    PlanRunner,
    bound_name,
    content_words,
    format_path,
    holders_first,
    holds_name_terms,
    lexically_rescored,
    rescored_bindings,
    ties_by_anchor_text,
    without_loops,
    witness_paths,
)
from grasp_agent.graph_branch.relation_words import RelationWords
from grasp_agent.graph_branch.schema_paths import hierarchy_cue_phrases
from grasp_agent.graph_branch.span_mentions import (
    ScoredSpan,
    Span,
    SpanMentionFinder,
    candidate_spans,
    choose_spans,
)
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.hpo import HPO_SCHEMA
from grasp_agent.skb.schema import NodeType, RelationPair, RelationType, SkbSchema

# Edge counts as grasp.schema() reports them for the full HPO SKB (see docs/benchmarks.md).
HPO_CONTEXT = SkbContext(
    schema=HPO_SCHEMA,
    pattern_counts={
        ("Phenotype", "IS_A", "Phenotype"): 23392,
        ("Disease", "HAS_PHENOTYPE", "Phenotype"): 253328,
        ("Disease", "LACKS_PHENOTYPE", "Phenotype"): 704,
        ("Gene", "ASSOCIATED_WITH", "Disease"): 12302,
        ("Gene", "ASSOCIATED_WITH", "Phenotype"): 259012,
    },
    label_counts={"Phenotype": 19034, "Disease": 12687, "Gene": 5132},
)


def _row(text: str, label: str, score: float, degree: int = 10, role: MentionRole = MentionRole.ANCHOR) -> EntityRow:
    link = NodeLink(f"{label}:{text}", text.capitalize(), label, score, degree)
    return EntityRow(Mention(text=text, types=(label,), role=role), {label: (link,)})


def test_the_relevance_text_leaves_out_the_sentences_around_the_question() -> None:
    # "slides", "journal", "class" would rescore the targets by the aside's wording; the asking sentence keeps its
    # own words ("congenital")
    table = EntityTable((_row("cataract", "Phenotype", 1.0),))
    asides = "I'm preparing slides for our journal club. Which congenital diseases have cataract? (For a class.)"
    plan = HeuristicPlanner(HPO_CONTEXT).build(asides, table)
    assert "congenital" in plan.relevance_text
    assert not {"slides", "journal", "club", "class"} & set(plan.relevance_text.lower().split())
    plain = HeuristicPlanner(HPO_CONTEXT).build("Which congenital diseases have cataract?", table)
    assert plan.relevance_text == plain.relevance_text


def test_entity_table_keeps_predicted_types_and_adds_one_strong_other() -> None:
    assert choose_types(["Phenotype"], {"Phenotype": 0.93, "Disease": 0.91, "Gene": 0.5}) == (["Phenotype"], None)
    # near-exact elsewhere: the extractor guessed the wrong type
    assert choose_types(["Phenotype"], {"Phenotype": 0.7, "Gene": 0.995, "Disease": 0.99}) == (["Phenotype"], "Gene")
    # beats the predicted best by the margin
    assert choose_types(["Gene"], {"Gene": 0.80, "Disease": 0.83}) == (["Gene"], "Disease")
    assert choose_types(["Gene"], {"Gene": 0.80, "Disease": 0.815}) == (["Gene"], None)
    # a predicted type the index never answered for is dropped; without predictions the best type is taken
    assert choose_types(["Drug"], {"Gene": 0.4}) == ([], "Gene")


def test_candidate_spans_neither_start_nor_end_with_function_words() -> None:
    spans = candidate_spans(
        "Which diseases present with epileptic spasms and NSF?", max_words=3, excluded=frozenset({"diseases"})
    )
    texts = [span.text for span in spans]
    assert "epileptic spasms" in texts and "NSF" in texts and "spasms" in texts
    assert "diseases" not in texts  # a type word is the target, never an anchor
    assert not any(
        t.split()[0].lower() in {"which", "with", "and"} or t.split()[-1].lower() in {"with", "and"} for t in texts
    )
    span = next(s for s in spans if s.text == "epileptic spasms")
    assert "Which diseases present with epileptic spasms and NSF?"[span.start : span.end] == "epileptic spasms"


def test_candidate_spans_never_cross_a_quotation_mark() -> None:
    texts = [s.text for s in candidate_spans('the abnormality described as "Head circumference below 2"?', 4)]
    assert "abnormality" in texts and "Head circumference" in texts
    assert not any('"' in text for text in texts)


def test_heuristic_plan_joins_each_anchor_to_the_asked_type() -> None:
    question = "Which diseases present with epileptic spasms and are associated with the gene NSF?"
    table = EntityTable(
        (
            _row("epileptic spasms", "Phenotype", 0.94, degree=152),
            _row("NSF", "Gene", 1.0, degree=12),
            _row("diseases", "Disease", 0.58, role=MentionRole.TARGET),
        )
    )
    plan = HeuristicPlanner(HPO_CONTEXT).build(question, table)
    assert plan.target.type == "Disease"
    assert [(a.var, a.type, a.text) for a in plan.anchors] == [
        ("a1", "Phenotype", "epileptic spasms"),
        ("a2", "Gene", "NSF"),
    ]
    assert [(h.source, h.relation, h.target) for h in plan.hops] == [
        ("a1", "HAS_PHENOTYPE", "t"),
        ("a2", "ASSOCIATED_WITH", "t"),
    ]
    assert plan.relevance_text == ""  # only function, type and relation words were left
    assert plan.n_cand == 12  # the smaller anchor degree bounds a conjunction
    assert plan.risk is Risk.MEDIUM  # 0.94 is a good but not near-exact link


def test_heuristic_plan_negates_only_the_negated_mention_and_keeps_descriptive_text() -> None:
    question = "Which early-onset disorder shows short stature but no seizures?"
    table = EntityTable((_row("short stature", "Phenotype", 1.0), _row("seizures", "Phenotype", 0.96)))
    plan = HeuristicPlanner(HPO_CONTEXT).build(question, table)
    assert [h.relation for h in plan.hops] == ["HAS_PHENOTYPE", "LACKS_PHENOTYPE"]
    assert plan.relevance_text == "Which early-onset shows but no?"
    assert plan.risk is Risk.LOW


def test_heuristic_plan_without_usable_anchors_ranks_by_text() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    weak = planner.build("Which genes matter in Dravet syndrome?", EntityTable((_row("Dravet", "Disease", 0.73),)))
    assert weak.anchors == () and weak.hops == () and weak.target.type == "Gene"
    assert weak.relevance_text == "Which matter in Dravet syndrome?" and weak.risk is Risk.HIGH
    # a Disease anchor cannot reach the Disease target (no self-relation): it stays text
    same = planner.build(
        "Which diseases resemble Dravet syndrome?", EntityTable((_row("Dravet syndrome", "Disease", 1.0),))
    )
    assert same.anchors == () and same.relevance_text == "Which resemble Dravet syndrome?"
    untyped = planner.build("seizures in toddlers", EntityTable(()))
    assert untyped.target.type == "Phenotype" and untyped.relevance_text == "seizures in toddlers"


def test_heuristic_plan_types_intermediate_variables() -> None:
    schema = SkbSchema(
        name="toy",
        node_types=(NodeType(label="Drug"), NodeType(label="Disease"), NodeType(label="Gene")),
        relation_types=(
            RelationType(type="TREATS", pairs=(RelationPair(source="Drug", target="Disease"),)),
            RelationType(type="CAUSES", pairs=(RelationPair(source="Gene", target="Disease"),)),
        ),
    )
    context = SkbContext(
        schema,
        {("Drug", "TREATS", "Disease"): 40, ("Gene", "CAUSES", "Disease"): 30},
        {"Drug": 10, "Disease": 20, "Gene": 15},
    )
    plan = HeuristicPlanner(context).build(
        "Which genes relate to aspirin?", EntityTable((_row("aspirin", "Drug", 0.99, degree=4),))
    )
    assert [(h.source, h.relation, h.target, h.source_type, h.target_type) for h in plan.hops] == [
        ("a1", "TREATS", "x1_1", None, "Disease"),
        ("x1_1", "CAUSES", "t", "Disease", None),
    ]
    assert plan.n_cand == 6  # degree 4 x (30 CAUSES edges / 20 diseases)


def test_witness_is_split_per_anchor_and_rendered_with_directions() -> None:
    disease = {"var": "t", "id": "OMIM:619340", "name": "DEE 96", "label": "Disease"}
    witness = (
        {"var": "a1", "id": "HP:0011097", "name": "Epileptic spasm", "label": "Phenotype"},
        {"type": "HAS_PHENOTYPE", "direction": "<-"},
        disease,
        {"var": "a2", "id": "NCBIGene:4905", "name": "NSF", "label": "Gene"},
        {"type": "ASSOCIATED_WITH", "direction": "->"},
        disease,
    )
    paths = witness_paths(witness)
    assert [format_path(p) for p in paths] == [
        "Epileptic spasm (Phenotype) <-[HAS_PHENOTYPE]- DEE 96 (Disease)",
        "NSF (Gene) -[ASSOCIATED_WITH]-> DEE 96 (Disease)",
    ]


def test_narrowed_schemas_only_admit_the_skbs_types_and_relations() -> None:
    schema = plan_json_schema(HPO_CONTEXT.labels, HPO_CONTEXT.relations)
    assert schema["$defs"]["Anchor"]["properties"]["type"]["enum"] == ["Phenotype", "Disease", "Gene"]
    assert schema["$defs"]["Hop"]["properties"]["relation"]["enum"] == [
        "ASSOCIATED_WITH",
        "HAS_PHENOTYPE",
        "IS_A",
        "LACKS_PHENOTYPE",
    ]
    mentions = mention_list_schema(["Phenotype", "Gene"])
    assert mentions["$defs"]["Mention"]["properties"]["types"]["items"] == {"enum": ["Phenotype", "Gene"]}


def test_mention_nesting_must_point_at_another_mention() -> None:
    MentionList(
        mentions=(
            Mention(text="spasm", types=("Phenotype",)),
            Mention(text="epileptic spasm", types=("Phenotype",), nested_in=0),
        )
    )
    with pytest.raises(ValueError, match="nested_in 1"):
        MentionList(mentions=(Mention(text="a", nested_in=1),))


def test_prompts_carry_demos_schema_entity_table_and_fusion_control() -> None:
    messages = extraction_messages("Which genes cause ataxia?", HPO_CONTEXT)
    assert len(messages) == 2 + 2 * len(EXTRACTION_DEMOS) and len(EXTRACTION_DEMOS) == 4
    assert "Phenotype (also called: phenotypic abnormality" in messages[0]["content"]
    assert messages[-1]["content"].endswith("Question: Which genes cause ataxia?")
    table = EntityTable((_row("ataxia", "Phenotype", 1.0, degree=900),))
    system, demo, _, user = planner_messages("Which genes cause ataxia?", table, HPO_CONTEXT)
    assert "Question:" in demo["content"] and demo["role"] == "user"
    assert "(Disease)-[LACKS_PHENOTYPE]->(Phenotype) 704 edges" in system["content"]
    # the schema's own phrases for its relations, both ways
    assert "- HAS_PHENOTYPE: has phenotype, presents with, shows / is a feature of" in system["content"]
    assert "Fusion control" in system["content"] and "n_cand" in system["content"]
    assert '[0] "ataxia" role=anchor types=Phenotype' in user["content"]
    assert "Ataxia (cos 1.00, degree 900)" in user["content"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which disorder shows Hip flexor weakness while Ataxia is explicitly excluded?",
            ["HAS_PHENOTYPE", "LACKS_PHENOTYPE"],
        ),
        (
            "Which disease presents with Hip flexor weakness but is documented not to have Ataxia?",
            ["HAS_PHENOTYPE", "LACKS_PHENOTYPE"],
        ),
        ("Which disease has no Hip flexor weakness and Ataxia?", ["LACKS_PHENOTYPE", "HAS_PHENOTYPE"]),
    ],
)
def test_negation_scope_ends_at_the_clause_and_at_other_mentions(question: str, expected: list[str]) -> None:
    table = EntityTable((_row("Hip flexor weakness", "Phenotype", 1.0), _row("Ataxia", "Phenotype", 1.0)))
    assert [h.relation for h in HeuristicPlanner(HPO_CONTEXT).build(question, table).hops] == expected


def test_repairs_fix_relations_between_known_types_and_merge_repeated_anchors() -> None:
    from grasp_agent.graph_branch.plan import Plan
    from grasp_agent.graph_branch.plan_repair import repair_plan

    written = Plan.model_validate(
        {
            "anchors": [
                {"var": "a1", "type": "Phenotype", "text": "Seizure"},
                {"var": "a2", "type": "Phenotype", "text": "seizure", "match_mode": "doc"},
                {"var": "a3", "type": "Phenotype", "text": "Ataxia"},
            ],
            "hops": [
                {"source": "a1", "relation": "ASSOCIATED_WITH", "target": "t"},
                {"source": "a2", "relation": "HAS_PHENOTYPE", "target": "t"},
                {"source": "a3", "relation": "LACKS_PHENOTYPE", "target": "t"},
            ],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    repaired, notes = repair_plan(written, HPO_CONTEXT.pattern_counts)
    assert [a.var for a in repaired.anchors] == ["a1", "a3"]
    # the wrong positive relation becomes the largest positive one; the negative one was right already
    assert [(h.source, h.relation) for h in repaired.hops] == [("a1", "HAS_PHENOTYPE"), ("a3", "LACKS_PHENOTYPE")]
    assert len(notes) == 3 and "merged" in notes[0] and "used HAS_PHENOTYPE" in notes[1]
    assert notes[2] == "hop a1-t (HAS_PHENOTYPE) repeats that pair of variables; dropped"  # a2's hop, once merged
    unchanged, none = repair_plan(repaired, HPO_CONTEXT.pattern_counts)
    assert unchanged == repaired and none == []
    # a negative relation between the wrong types keeps its polarity
    negated = written.model_copy(
        update={
            "anchors": written.anchors[2:],
            "hops": (written.hops[2].model_copy(update={"relation": "LACKS_PHENOTYPE", "source": "a3"}),),
        }
    )
    flipped = negated.model_copy(update={"target": negated.target.model_copy(update={"type": "Gene"})})
    _, gene_notes = repair_plan(flipped, HPO_CONTEXT.pattern_counts)
    assert gene_notes == ["hop a3-t: LACKS_PHENOTYPE does not join Phenotype and Gene; used ASSOCIATED_WITH"]


def test_repairs_drop_self_loops_and_join_hopless_anchors_to_the_target() -> None:
    from grasp_agent.graph_branch.plan import Plan
    from grasp_agent.graph_branch.plan_repair import repair_plan

    written = Plan.model_validate(
        {
            "anchors": [
                {"var": "a1", "type": "Phenotype", "text": "Focal seizure"},
                {"var": "a2", "type": "Phenotype", "text": "Focal seizure", "match_mode": "doc"},
                {"var": "a3", "type": "Gene", "text": "SCN1A"},
            ],
            "hops": [{"source": "a1", "relation": "IS_A", "target": "a2"}],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    repaired, notes = repair_plan(written, HPO_CONTEXT.pattern_counts)
    assert [(h.source, h.relation, h.target) for h in repaired.hops] == [
        ("a1", "HAS_PHENOTYPE", "t"),
        ("a3", "ASSOCIATED_WITH", "t"),
    ]
    assert notes[1] == "hop a1-a1 (IS_A) joins a variable to itself; dropped"
    assert notes[2:] == [
        "anchor a1 had no hop; joined to t by HAS_PHENOTYPE",
        "anchor a3 had no hop; joined to t by ASSOCIATED_WITH",
    ]


def test_repairs_rename_a_dangling_variable_that_stands_for_the_target() -> None:
    from grasp_agent.graph_branch.plan import Plan
    from grasp_agent.graph_branch.plan_repair import repair_plan

    written = Plan.model_validate(
        {
            "anchors": [{"var": "a1", "type": "Phenotype", "text": "Epileptic spasm"}],
            "hops": [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "gene"}],
            "target": {"var": "t", "type": "Gene"},
        }
    )
    repaired, notes = repair_plan(written, HPO_CONTEXT.pattern_counts)
    assert [(h.source, h.relation, h.target) for h in repaired.hops] == [("a1", "ASSOCIATED_WITH", "t")]
    assert notes == [
        "variable gene stands where the target t (Gene) belongs, which no hop mentioned; renamed to t",
        "hop a1-t: HAS_PHENOTYPE does not join Phenotype and Gene; used ASSOCIATED_WITH",
    ]
    # a variable stated to be of another type is an intermediate, not the answer: left for validation to refuse
    typed = written.model_copy(update={"hops": (written.hops[0].model_copy(update={"target_type": "Disease"}),)})
    kept, kept_notes = repair_plan(typed, HPO_CONTEXT.pattern_counts)
    assert kept.hops == typed.hops and kept_notes == []
    # two candidates: ambiguous, nothing renamed
    two = written.model_copy(update={"hops": (*written.hops, written.hops[0].model_copy(update={"target": "d"}))})
    assert all(h.target != "t" for h in repair_plan(two, HPO_CONTEXT.pattern_counts)[0].hops)


def test_a_question_about_subtypes_walks_the_hierarchy_down_before_the_usual_route() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    table = EntityTable((_row("seizure", "Phenotype", 0.97),))
    plan = planner.build("Which diseases have a more specific form of seizure?", table)
    assert [(h.source, h.relation, h.target, h.direction.value) for h in plan.hops] == [
        ("a1", "IS_A", "x1_1", "in"),
        ("x1_1", "HAS_PHENOTYPE", "t", "any"),
    ]
    assert plan.hops[0].stored_from("x1_1") is True  # child -[:IS_A]-> parent: the subtypes are the sources
    up = planner.build("Which phenotypes are parent terms of seizure?", table)
    assert [(h.relation, h.direction.value) for h in up.hops] == [("IS_A", "out")]
    plain = planner.build("Which diseases present with seizure?", table)
    assert [(h.relation, h.direction.value) for h in plain.hops] == [("HAS_PHENOTYPE", "any")]


def test_the_hierarchy_words_a_hop_says_are_no_relevance_text() -> None:
    assert hierarchy_cue_phrases("which diseases have a more specific kind of") == ["more specific", "kind of"]
    assert hierarchy_cue_phrases("genes of", "subtypes") == ["subtypes"]
    assert hierarchy_cue_phrases("which diseases present with") == []
    planner = HeuristicPlanner(HPO_CONTEXT)
    table = EntityTable((_row("seizure", "Phenotype", 0.97),))
    # every wording of "a subtype of seizure" leaves the same words: those the hop does not say
    texts = {
        content_words(planner.build(question, table).relevance_text, frame_words(HPO_CONTEXT))
        for question in (
            "Which congenital diseases have a narrower form of seizure?",
            "Which congenital diseases have a more specific kind of seizure?",
            "Which congenital diseases have any child term of seizure?",
        )
    }
    assert texts == {"congenital"}
    # without a hierarchy hop the words stay: "form" is then the question's own word
    assert "form" in planner.build("Which diseases with seizure have a congenital form?", table).relevance_text


def test_a_noun_the_schema_cannot_read_in_the_asked_slot_is_what_a_hierarchy_question_asks_for() -> None:
    # training questions with a phenotype anchor mostly asked for diseases
    labels = {"d:1": "Disease", "p:1": "Phenotype", "p:2": "Phenotype"}
    prior = fit_answer_type_prior("hpo", [(("p:1",), ("d:1",))] * 3 + [(("p:1",), ("p:2",))], labels)
    planner = HeuristicPlanner(HPO_CONTEXT, answer_types=prior)
    table = EntityTable((_row("seizure", "Phenotype", 0.97),))
    # "dx" names no type of the schema: the question asks for it, not for the subtype it presents with, so the
    # hierarchy cue and the role noun "subtype" leave the asked type to what such questions asked for
    for question in (
        "Which dx present with a direct subtype of seizure?",
        "Subtype of seizure: dx?",
        "seizure > subtype -> dx",
    ):
        plan = planner.build(question, table)
        assert plan.target.type == "Disease", question
        assert [(h.relation, h.direction.value) for h in plan.hops] == [("IS_A", "in"), ("HAS_PHENOTYPE", "any")]
    # with no noun, or the hierarchy's own noun, the subtypes themselves are asked for
    for question in ("What is a more specific form of seizure?", "Which subtypes of seizure are known?"):
        assert planner.build(question, table).target.type == "Phenotype", question
    # a type word written short reads as the type
    assert planner.build("Which conds have a more specific form of seizure?", table).target.type == "Disease"


def test_a_type_word_only_around_a_sentence_asking_for_a_hierarchy_is_context() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    table = EntityTable((_row("seizure", "Phenotype", 0.97),))
    # "diseases" lies in the sentence before the one that asks, which asks for seizure's subtypes itself
    aside_question = "Background: I read about rare diseases. What subtype of seizure starts in sleep?"
    aside = planner.build(aside_question, table)
    assert aside.target.type == "Phenotype"
    assert [(h.relation, h.direction.value) for h in aside.hops] == [("IS_A", "in")]
    # the asking sentence names the type itself, or asks for no hierarchy: the type word still counts
    inside = planner.build("Background: I read about seizures. Which diseases have a subtype of seizure?", table)
    assert inside.target.type == "Disease"
    assert planner.build("I am looking for diseases. Which ones present with seizure?", table).target.type == "Disease"
    vignette = "My son has a form of seizure disease. Which one could it be?"  # the hierarchy is said around it too
    assert planner.build(vignette, table).target.type == "Disease"
    # grasp plan says why the type word was passed over, and only then
    assert planner.context_type_notes(aside_question, table) == [
        "'diseases' is said only around the sentence that asks, which asks for the hierarchy of a Phenotype: "
        "the rules read Phenotype as the asked type"
    ]
    assert planner.context_type_notes(vignette, table) == []
    # a colon inside a linked name ends no sentence: "genes" is in the sentence that asks
    colon = EntityTable((_row("EMG: axonal abnormality", "Phenotype", 1.0),))
    assert (
        planner.build("Which genes are linked to EMG: axonal abnormality's child terms?", colon).target.type == "Gene"
    )


def test_a_kind_of_x_said_outside_the_asking_words_beside_another_types_anchor_does_not_set_the_asked_type() -> None:
    # training questions with a gene and a phenotype anchor asked for diseases
    labels = {"d:1": "Disease", "g:1": "Gene", "p:1": "Phenotype", "p:2": "Phenotype"}
    prior = fit_answer_type_prior("hpo", [(("g:1", "p:1"), ("d:1",))] * 3 + [(("p:1",), ("p:2",))], labels)
    planner = HeuristicPlanner(HPO_CONTEXT, answer_types=prior)
    table = EntityTable((_row("POLG", "Gene", 1.0), _row("visual impairment", "Phenotype", 1.0)))
    # the child shows a kind of visual impairment: one more constraint on what joins POLG and it
    vignette = "My child carries a POLG mutation and shows some particular form of visual impairment. What could it be?"
    plan = planner.build(vignette, table)
    assert plan.target.type == "Disease"
    assert ("IS_A", "in") in [(h.relation, h.direction.value) for h in plan.hops]  # the kind is still asked
    # the asking words ask for the kind themselves
    for question in (
        "Which form of visual impairment is associated with POLG?",
        "POLG: which specific form of visual impairment?",
    ):
        assert planner.build(question, table).target.type == "Phenotype", question
    # the same vignette naming no other type's anchor asks for the kind
    alone = EntityTable((_row("visual impairment", "Phenotype", 1.0),))
    assert planner.build("My child shows some form of visual impairment. What could it be?", alone).target.type == (
        "Phenotype"
    )


def test_a_role_noun_of_a_hierarchy_after_the_asking_word_asks_for_the_anchors_own_type() -> None:
    # no type word: "subtype" is IS_A's source noun in the schema, stored child -> parent, so the hop goes down
    planner = HeuristicPlanner(HPO_CONTEXT)
    table = EntityTable((_row("Cylindruria", "Phenotype", 1.0),))
    plan = planner.build("Cylindruria: which subtype is defined with the word incorporated?", table)
    assert plan.target.type == "Phenotype"
    assert [(h.relation, h.direction.value) for h in plan.hops] == [("IS_A", "in")]
    up = planner.build("Cylindruria: what parent terms does it have?", table)
    assert up.target.type == "Phenotype" and [(h.relation, h.direction.value) for h in up.hops] == [("IS_A", "out")]
    # a relation that is no hierarchy of the anchor's type says nothing here
    words = RelationWords.of(HPO_CONTEXT.schema)
    assert asked_noun_cue("Which subtype is it?", "Disease", HPO_CONTEXT.pattern_counts, words) is None
    assert asked_noun_cue("Which diseases have X?", "Phenotype", HPO_CONTEXT.pattern_counts, words) is None


def test_an_anchor_of_the_asked_type_is_routed_through_the_type_the_question_names() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    question = "Besides Dravet syndrome itself, which conditions sharing one of its genes show ataxia?"
    table = EntityTable((_row("Dravet syndrome", "Disease", 1.0), _row("ataxia", "Phenotype", 1.0)))
    plan = planner.build(question, table)
    assert [(a.var, a.type) for a in plan.anchors] == [("a1", "Disease"), ("a2", "Phenotype")]
    assert [(h.source, h.relation, h.target) for h in plan.hops] == [
        ("a1", "ASSOCIATED_WITH", "x1_1"),
        ("x1_1", "ASSOCIATED_WITH", "t"),
        ("a2", "HAS_PHENOTYPE", "t"),
    ]
    assert plan.hops[0].target_type == "Gene"
    # a type word that names another anchor's type is about that anchor: no route, the disease stays text
    named = planner.build("Which disorders named after Dravet syndrome have ataxia as a feature?", table)
    assert [a.type for a in named.anchors] == ["Phenotype"]


def test_each_leg_of_a_route_through_a_named_type_reads_its_own_words() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    table = EntityTable((_row("Dravet syndrome", "Disease", 1.0),))

    def relations(question: str) -> list[str]:
        return [h.relation for h in planner.build(question, table).hops]

    # "lack" is the leg into the asked diseases; the leg from the anchor reads "has": one reading of the question
    # used to walk LACKS_PHENOTYPE both ways
    assert relations("Which diseases lack a phenotype that Dravet syndrome has?") == [
        "HAS_PHENOTYPE",
        "LACKS_PHENOTYPE",
    ]
    assert relations("Which diseases have a phenotype that Dravet syndrome lacks?") == [
        "LACKS_PHENOTYPE",
        "HAS_PHENOTYPE",
    ]
    # a first leg with one relation to walk leaves the anchor's words to the second: "lack" after the anchor
    gene = EntityTable((_row("SCN1A", "Gene", 1.0),))
    hops = planner.build("Which phenotypes do the diseases associated with SCN1A lack?", gene).hops
    assert [(h.relation, h.target_type) for h in hops] == [("ASSOCIATED_WITH", "Disease"), ("LACKS_PHENOTYPE", None)]
    # the type word first and the words between it and the anchor choosing its leg ("that have"): the words
    # after the anchor are the outer clause's, read by the leg on to the target
    phenotype = EntityTable((_row("Senile plaques", "Phenotype", 1.0),))
    for question in (
        "Which features do the diseases that have Senile plaques lack?",
        "Which features that the illnesses that have phenotype Senile plaques lacks phenotype?",
    ):
        assert [h.relation for h in planner.build(question, phenotype).hops] == ["HAS_PHENOTYPE", "LACKS_PHENOTYPE"]
    # nothing between them chooses ("that"): the words after the anchor are its own clause's
    assert [
        h.relation
        for h in planner.build(
            "Which features do the diseases that Senile plaques is absent from have?", phenotype
        ).hops
    ] == ["LACKS_PHENOTYPE", "HAS_PHENOTYPE"]


def test_a_route_goes_through_the_type_the_question_names_on_the_way() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    atrophy = EntityTable((_row("Diffuse skin atrophy", "Phenotype", 1.0),))
    # the schema's shortest Phenotype -> Gene is one hop; "genes of diseases with X" asks for two
    plan = planner.build("Genes of diseases with Diffuse skin atrophy", atrophy)
    assert [(h.relation, h.target_type) for h in plan.hops] == [("HAS_PHENOTYPE", "Disease"), ("ASSOCIATED_WITH", None)]
    assert [h.relation for h in planner.build("Genes of Diffuse skin atrophy", atrophy).hops] == ["ASSOCIATED_WITH"]
    # terse: the chain's end is asked, the subtype cue follows the mention, the named disease is a station
    eosinophilia = EntityTable((_row("Eosinophilia", "Phenotype", 1.0),))
    chain = planner.build("Eosinophilia > subtype -> disease -> genes?", eosinophilia)
    assert chain.target.type == "Gene"
    assert [(h.relation, h.direction.value) for h in chain.hops] == [
        ("IS_A", "in"),
        ("HAS_PHENOTYPE", "any"),
        ("ASSOCIATED_WITH", "any"),
    ]
    # an anchor of the asked type claims the named type; the phenotype anchor keeps its own one-hop route
    question = "Other diseases sharing a gene with Dravet syndrome, with Ataxia"
    table = EntityTable((_row("Dravet syndrome", "Disease", 1.0), _row("Ataxia", "Phenotype", 1.0)))
    shared = planner.build(question, table)
    assert [(h.source, h.relation) for h in shared.hops] == [
        ("a1", "ASSOCIATED_WITH"),
        ("x1_1", "ASSOCIATED_WITH"),
        ("a2", "HAS_PHENOTYPE"),
    ]


def test_a_name_found_inside_a_quoted_definition_reads_the_cue_before_the_quotes() -> None:
    question = (
        'Which diseases have a more specific form of the phenotype defined as "Congenital absence of the toenail"?'
    )
    plan = HeuristicPlanner(HPO_CONTEXT).build(
        question, EntityTable((_row("absence of the toenail", "Phenotype", 0.95),))
    )
    assert [(h.relation, h.direction.value) for h in plan.hops] == [("IS_A", "in"), ("HAS_PHENOTYPE", "any")]


def test_a_target_reached_from_itself_is_not_its_own_answer() -> None:
    dravet = {"var": "a1", "id": "OMIM:607208", "name": "Dravet syndrome", "label": "Disease"}
    gene = {"var": "x1_1", "id": "NCBIGene:6323", "name": "SCN1A", "label": "Gene"}
    rel = {"type": "ASSOCIATED_WITH", "direction": "<-"}
    itself = RankedNode(
        "OMIM:607208", "Dravet syndrome", 1.0, 0.0, 1.0, (dravet, rel, gene, rel, dict(dravet, var="t"))
    )
    other_target = {"var": "t", "id": "OMIM:182389", "name": "GEFS+", "label": "Disease"}
    other = RankedNode("OMIM:182389", "GEFS+", 1.0, 0.0, 1.0, (dravet, rel, gene, rel, other_target))
    assert [n.node_id for n in without_loops([itself, other])] == ["OMIM:182389"]


def test_targets_the_plan_scores_alike_are_ordered_by_how_much_their_documents_are_about_the_anchors() -> None:
    def node(node_id: str, score: float, exact: bool = True) -> RankedNode:
        return RankedNode(node_id, node_id, score, 0.0, score, exact=exact)

    # the procedure orders ties by id; "c" names the anchor in its document most, then "b"
    nodes = [node("a", 1.0), node("b", 1.0), node("c", 1.0), node("d", 0.5), node("e", 0.5, exact=False)]
    ordered = ties_by_anchor_text(nodes, [0.1, 0.4, 0.9, 1.0, 2.0])
    assert [n.node_id for n in ordered] == ["c", "b", "a", "d", "e"]  # runs of equal scores only, in their place
    # equal anchor text keeps the given order; an exact match never trades places with a partial one
    same = ties_by_anchor_text(nodes, [0.0] * 5)
    assert same == nodes
    mixed = [node("a", 1.0), node("b", 1.0, exact=False)]
    assert ties_by_anchor_text(mixed, [0.0, 1.0]) == mixed


def test_ties_are_ordered_by_the_node_a_described_anchor_is_bound_to_not_by_its_wording() -> None:
    from grasp_agent.graph_branch.plan import Plan
    from grasp_agent.text_branch.bm25_index import LexicalIndex
    from tests.unit.test_text_branch_fields import toy_corpus

    runner = PlanRunner(None, None, None, frame_words=frame_words(HPO_CONTEXT))  # type: ignore[arg-type]
    runner = runner.with_lexical(LexicalIndex.build(toy_corpus()))
    plan = Plan.model_validate(
        {
            "anchors": [{"var": "a1", "type": "Phenotype", "text": "a clouding of the lens", "match_mode": "doc"}],
            "hops": [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "t"}],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    bound = ({"var": "a1", "id": "P5", "name": "Cataract", "label": "Phenotype"},)
    tied = [
        RankedNode("D4", "Alport syndrome", 1.0, 0.0, 1.0, bound),
        RankedNode("D3", "Congenital cataract", 1.0, 0.0, 1.0, bound),
    ]
    assert bound_name("a1", tied) == "Cataract" and bound_name("a2", tied) is None
    # the described anchor reads as the node it is bound to, "Cataract", which D3's name holds
    assert [n.node_id for n in runner.tie_order(plan, tied)] == ["D3", "D4"]
    # without a witness the clause's own words order nothing here, and the procedure's order stays
    unbound = [dataclasses.replace(node, witness=()) for node in tied]
    assert [n.node_id for n in runner.tie_order(plan, unbound)] == ["D4", "D3"]


def test_a_name_holds_a_keyword_as_the_procedure_reads_it() -> None:
    # NameTerms.holds: case and accents off, punctuation a space, every term at a word start
    assert holds_name_terms("X-linked Spastic paraplegia 7", ["spastic"])
    assert holds_name_terms("Spastic paraplegia 7", ["spastic", "paraplegia 7"])
    assert holds_name_terms("Ménière disease", ["meniere"])
    assert not holds_name_terms("Nonspastic paraplegia", ["spastic"])
    assert not holds_name_terms("Spastic paraplegia 7", ["spastic", "ataxia"])
    assert not holds_name_terms(None, ["spastic"]) and holds_name_terms(None, [])
    assert not holds_name_terms("Spastic paraplegia", ["  "])


def test_a_rescored_ranking_keeps_the_targets_whose_name_holds_the_keywords_first() -> None:
    def node(node_id: str, name: str, score: float) -> RankedNode:
        return RankedNode(node_id, name, score, 0.0, score)

    # a rescoring by the relevance text's words put a target without the keyword first
    rescored = [node("c", "Spinocerebellar ataxia 14", 1.3), node("a", "Spastic paraplegia 58", 1.2)]
    rescored.append(node("b", "Autosomal recessive spastic ataxia", 1.1))
    assert [n.node_id for n in holders_first(rescored, ["spastic"])] == ["a", "b", "c"]
    assert holders_first(rescored, []) == rescored  # no keyword: the order given


def test_a_described_entitys_candidates_are_scored_by_document_or_own_text_whichever_is_closer() -> None:
    links = [
        NodeLink("HP:1", "Granulocytosis", "Phenotype", 0.62, 3),
        NodeLink("HP:2", "Neutropenia", "Phenotype", 0.58, 9),
    ]
    links.append(NodeLink("HP:3", "Agranulocytosis", "Phenotype", 0.60, 2))
    # HP:2's definition is what the question says (0.95); HP:3 has no text field: its document decides
    bindings = rescored_bindings(links, [0.40, 0.95, None])
    assert bindings == [{"id": "HP:2", "score": 0.95}]  # 0.62 and 0.60 fall below 0.9 x 0.95
    assert [b["id"] for b in rescored_bindings(links, [0.40, 0.60, None], tau=0.9)] == ["HP:1", "HP:2", "HP:3"]
    assert rescored_bindings(links, [None, None, None]) == [
        {"id": "HP:1", "score": 0.62},
        {"id": "HP:3", "score": 0.60},
        {"id": "HP:2", "score": 0.58},
    ]  # no text field anywhere: the document ranking as grasp.link gives it
    assert rescored_bindings([], []) == []
    # nodes found by their own text, which the document index missed, join; a node in both keeps its better score
    own = [("HP:9", 0.97), ("HP:2", 0.90)]
    assert rescored_bindings(links, [0.40, 0.95, None], own_text=own) == [
        {"id": "HP:9", "score": 0.97},
        {"id": "HP:2", "score": 0.95},
    ]
    assert rescored_bindings([], [], own_text=[("HP:9", 0.8)]) == [{"id": "HP:9", "score": 0.8}]


# ---- span choice: exact dictionary names, longest first; embedded spans by cosine ------------------------------
def _scored(question: str, text: str, score: float, label: str = "Phenotype") -> ScoredSpan:
    start = question.index(text)
    return ScoredSpan(Span(start, start + len(text), text, len(text.split())), score, (label,))


def test_an_exact_whole_name_wins_over_its_exact_parts_whatever_the_order() -> None:
    question = "Which disease is associated with the AARS1 gene and presents with distal muscle weakness?"
    parts = [
        _scored(question, "distal", 1.0),
        _scored(question, "muscle weakness", 1.0),
        _scored(question, "distal muscle weakness", 1.0),
        _scored(question, "AARS1", 1.0, "Gene"),
    ]
    for candidates in (parts, parts[::-1]):
        chosen = choose_spans(candidates)
        assert [span.text for span, _ in chosen] == ["AARS1", "distal muscle weakness"]


def _exact(question: str, text: str, key: str) -> ScoredSpan:
    return ScoredSpan(_scored(question, text, 1.0).span, 1.0, ("Phenotype",), key=key)


def test_a_span_around_an_exact_name_counts_as_exact_only_when_it_links_a_longer_name() -> None:
    finder = SpanMentionFinder(None, None, HPO_SCHEMA)  # type: ignore[arg-type]  # _scored calls neither
    question = (
        "disorders, Distal muscle weakenss; conditions, Bilateral renal agenesis; Craniosynostosis conditions "
        "presenting bicoronal synostosis"
    )
    exact = [
        _exact(question, "muscle", "muscle"),
        _exact(question, "Bilateral renal agenesis", "bilateral renal agenesis"),
        _exact(question, "renal agenesis", "renal agenesis"),
        _exact(question, "Craniosynostosis", "craniosynostosis"),
        _exact(question, "bicoronal synostosis", "bicoronal synostosis"),
    ]
    spans = [
        _scored(question, "disorders, Distal muscle weakenss", 0.9).span,  # a misspelt longer name around "muscle"
        _scored(question, "conditions, Bilateral renal agenesis", 0.92).span,
        _scored(question, "Craniosynostosis conditions presenting bicoronal synostosis", 0.917).span,
    ]
    links = [
        [NodeLink("HP:0002460", "Distal muscle weakness", "Phenotype", 0.9, 3)],
        # the exact name inside, reordered: the span adds only a type word
        [NodeLink("ORPHA:1", "Renal agenesis, bilateral", "Disease", 0.92, 3)],
        # a longer name holding an exact name inside, but the span writes words it lacks ("presenting"): two names
        # and a verb, no misspelling of it
        [NodeLink("ORPHA:35099", "Non-syndromic bicoronal craniosynostosis", "Disease", 0.917, 3)],
    ]
    scored = finder._scored(spans, links, exact)
    assert [(item.span.text, item.score, item.promoted) for item in scored] == [
        ("disorders, Distal muscle weakenss", 1.0, True),
        ("conditions, Bilateral renal agenesis", 0.92, False),
        ("Craniosynostosis conditions presenting bicoronal synostosis", 0.917, False),
    ]


def test_a_name_the_dictionary_refused_is_not_let_back_in_by_its_cosine() -> None:
    from grasp_agent.graph_branch.name_dictionary import DictionaryEntry, NameDictionary

    dictionary = NameDictionary(
        [
            ("REST", DictionaryEntry("NCBIGene:5978", "Gene", "REST")),
            ("Dyspnea at rest", DictionaryEntry("HP:0002100", "Phenotype", "Dyspnea at rest")),
        ]
    )
    finder = SpanMentionFinder(None, None, HPO_SCHEMA, dictionary=dictionary)  # type: ignore[arg-type]
    question = "Which diseases leave patients breathless even during rest?"
    assert finder._exact_spans(question) == []  # "rest" is an ordinary word of the names: no symbol
    rest = _scored(question, "rest", 1.0).span
    breathless = _scored(question, "breathless", 0.9).span
    links = [
        [NodeLink("NCBIGene:5978", "REST", "Gene", 1.0, 3)],  # an uncased encoder: the same text, cosine 1
        [NodeLink("HP:0002094", "Dyspnea", "Phenotype", 0.9, 3)],
    ]
    assert [item.span.text for item in finder._scored([rest, breathless], links, [])] == ["breathless"]


def test_embedded_spans_go_best_cosine_first_and_never_overlap() -> None:
    question = "Which diseases present with epileptic spasms?"
    chosen = choose_spans(
        [
            _scored(question, "present with epileptic spasms", 0.92),
            _scored(question, "epileptic spasms", 0.94),
            _scored(question, "spasms", 0.93),
        ]
    )
    assert [(span.text, labels) for span, labels in chosen] == [("epileptic spasms", ("Phenotype",))]


def test_a_near_match_that_repeats_a_chosen_spans_words_is_not_a_second_anchor() -> None:
    question = (
        "In which diseases is the finding of temper tantrums that occur more frequently compared to the temper "
        "tantrums that are seen?"
    )
    longer = _scored(question, "temper tantrums that occur more frequently", 0.934)
    start = question.rindex("temper tantrums")  # said again, after the longer span
    again = ScoredSpan(Span(start, start + 15, "temper tantrums", 2), 0.929, ("Phenotype",))
    assert [span.text for span, _ in choose_spans([longer, again])] == [longer.span.text]
    # of another type, or an exact name, it names something else and stays
    gene = ScoredSpan(again.span, 0.929, ("Gene",))
    assert len(choose_spans([longer, gene])) == 2
    exact = ScoredSpan(again.span, 1.0, ("Phenotype",), key="temper tantrums")
    assert len(choose_spans([longer, exact])) == 2


def test_targets_rescored_by_a_word_of_their_text_keep_exact_matches_first() -> None:
    def node(node_id: str, score: float, exact: bool = True) -> RankedNode:
        return RankedNode(node_id, node_id, 1.0, score - 1.0, score, exact=exact)

    nodes = [node("HP:1", 1.50), node("HP:2", 1.45), node("HP:3", 1.40), node("HP:4", 1.60, exact=False)]
    # BM25 relative to the index's best document: HP:3 alone holds the asked word and rises past the cosine's
    # order; a common word lifts HP:2 a little; a partial match stays behind whatever its words
    rescored = lexically_rescored(nodes, [0.0, 0.2, 1.0, 1.0], 0.5)
    assert [n.node_id for n in rescored] == ["HP:3", "HP:2", "HP:1", "HP:4"]
    assert [n.score for n in rescored] == pytest.approx([1.90, 1.55, 1.50, 2.10])
    # no word found, or no weight: the procedure's order and scores, untouched
    assert lexically_rescored(nodes, [0.0] * 4, 0.5) == nodes
    assert lexically_rescored(nodes, [0.0, 0.2, 1.0, 1.0], 0.0) == nodes


def test_a_relevance_text_ranks_only_targets_whose_text_holds_one_of_its_words() -> None:
    from grasp_agent.graph_branch.plan import Plan
    from grasp_agent.text_branch.bm25_index import LexicalIndex
    from tests.unit.test_text_branch_fields import toy_corpus

    runner = PlanRunner(None, None, None, frame_words=frame_words(HPO_CONTEXT))  # type: ignore[arg-type]
    runner = runner.with_lexical(LexicalIndex.build(toy_corpus()))

    def plan(relevance: str, anchored: bool = True) -> Plan:
        anchors = [{"var": "a1", "type": "Phenotype", "text": "Cataract"}] if anchored else []
        hops = [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "t"}] if anchored else []
        return Plan.model_validate(
            {"anchors": anchors, "hops": hops, "target": {"var": "t", "type": "Disease"}, "relevance_text": relevance}
        )

    targets = [
        RankedNode("D3", "Congenital cataract", 1.0, 0.1, 1.1),
        RankedNode("D4", "Alport syndrome", 1.0, 0.2, 1.2),
    ]

    def grips(written: Plan, reader: PlanRunner = runner) -> bool:
        return reader.text_grips(written, reader.word_scores(written, targets))

    assert grips(plan("congenital forms"))  # D3's name holds "congenital"
    # words no target's text holds ("what might explain ... in a patient"): the cosine would rank by wording alone
    assert not grips(plan("what might explain it in a patient"))
    assert not grips(plan("which are they"))  # frame words only
    # the anchor's own name said again ("the cataract that is seen") is in the plan already: it would order the
    # targets by how often their text names the anchor
    assert not grips(plan("the cataract that is seen"))
    assert grips(plan("the congenital cataract that is seen"))
    # a plan without anchors is ranked by its relevance text alone, so it always counts
    assert grips(plan("what might explain it in a patient", anchored=False))
    assert grips(plan("what might explain it"), runner.with_lexical(None))  # nothing to check with


def test_the_questions_words_beyond_the_plan_count_only_when_a_target_holds_one() -> None:
    from grasp_agent.graph_branch.plan import Plan
    from grasp_agent.text_branch.bm25_index import LexicalIndex
    from tests.unit.test_text_branch_fields import toy_corpus

    runner = PlanRunner(None, None, None, frame_words=frame_words(HPO_CONTEXT))  # type: ignore[arg-type]
    runner = runner.with_lexical(LexicalIndex.build(toy_corpus()))
    plan = Plan.model_validate(
        {
            "anchors": [{"var": "a1", "type": "Phenotype", "text": "Cataract"}],
            "hops": [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "t"}],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    targets = [
        RankedNode("D3", "Congenital cataract", 1.0, 0.0, 1.0),
        RankedNode("D4", "Alport syndrome", 1.0, 0.0, 1.0),
    ]

    def held(question: str, reader: PlanRunner = runner, keywords: tuple[str, ...] = ()) -> bool:
        written = plan.model_copy(update={"name_contains": keywords})
        return reader.words_beyond_plan_held(written, targets, question)

    # the anchor's own words and frame words say nothing beyond the plan, nor do words no target holds
    assert not held("Which diseases have cataract?")
    assert not held("Which diseases have cataract? Asking for my homework.")
    # a word the plan lost that one target's text holds ("congenital"): the text ranking should weigh it
    assert held("Which congenital diseases have cataract?")
    # a name keyword orders the holders by its word, as a reading without the keyword orders the targets
    assert held("Which congenital diseases have cataract?", keywords=("congenital",))
    assert held("Which diseases have cataract?", runner.with_lexical(None))  # nothing to check with
    assert held("", runner)


def test_the_lexical_query_is_the_relevance_texts_content_not_its_frame() -> None:
    # function words and the schema's own relation and type words match documents at random
    frame = frame_words(HPO_CONTEXT)
    text = "Which symptoms that has phenotype, with a description that mentions photodysphoria?"
    assert content_words(text, frame) == "description mentions photodysphoria"
    assert content_words("Which are reached from through its genes (associated with, then is a)?", frame) == (
        "reached through then"
    )
    assert content_words("", frame) == ""


def test_things_named_only_outside_the_asking_sentence_are_set_aside_by_the_fallback_plan() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    table = EntityTable((_row("GRK1", "Gene", 1.0), _row("short stature", "Phenotype", 1.0)))
    outcome = planner.plan(
        "Leaving GRK1 aside for now. Which diseases have short stature?", table, lambda plan: PlanCheck(True)
    )
    # the whole plan first (a vignette's earlier sentences usually name what the answer has) ...
    assert outcome.plan is not None and [a.text for a in outcome.plan.anchors] == ["GRK1", "short stature"]
    # ... and, for when no target matches all of it, the plan without the aside
    assert outcome.fallback is not None
    assert [(a.type, a.text) for a in outcome.fallback.anchors] == [("Phenotype", "short stature")]
    assert [h.relation for h in outcome.fallback.hops] == ["HAS_PHENOTYPE"]
    assert any("GRK1" in note and "without it" in note for note in outcome.notes)
    # the asking sentence names nothing (a vignette), or there is one sentence: no fallback
    for question in (
        "A patient carries GRK1 and has short stature. Which disease fits?",
        "Which diseases have short stature and GRK1?",
    ):
        assert planner.plan(question, table, lambda plan: PlanCheck(True)).fallback is None
    # an invalid fallback is none
    aside = "Leaving GRK1 aside for now. Which diseases have short stature?"
    assert planner.plan(aside, table, lambda plan: PlanCheck(len(plan.anchors) > 1)).fallback is None


def test_plan_notes_say_which_linked_anchor_the_plan_left_out() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    question = "Which Dravet syndrome-allelic diseases show seizures?"
    table = EntityTable((_row("Dravet syndrome", "Disease", 1.0), _row("seizures", "Phenotype", 1.0)))
    outcome = planner.plan(question, table, lambda plan: PlanCheck(True))
    # no word names a way from a disease back to diseases: the disease is no anchor, and the notes say so
    assert outcome.plan is not None and [a.text for a in outcome.plan.anchors] == ["seizures"]
    (left,) = [note for note in outcome.notes if "no anchor of the plan" in note]
    assert left.startswith("'Dravet syndrome' (Disease) is no anchor of the plan: no route to Disease")
    # a planned anchor gets no such note
    seizures = EntityTable((_row("seizures", "Phenotype", 1.0),))
    plain = planner.plan("Which diseases show seizures?", seizures, lambda plan: PlanCheck(True))
    assert not any("no anchor of the plan" in note for note in plain.notes)


# rows as `bank_loops` returns them: 38 training questions went from a disease to diseases through a gene first,
# 11 through a phenotype
BANK_LOOPS = [
    {
        "labels": ["Disease", "Gene", "Disease"],
        "relations": ["ASSOCIATED_WITH", "ASSOCIATED_WITH"],
        "outgoing": [False, True],
        "questions": 38,
    },
    {
        "labels": ["Disease", "Phenotype", "Disease"],
        "relations": ["HAS_PHENOTYPE", "HAS_PHENOTYPE"],
        "outgoing": [True, False],
        "questions": 11,
    },
]


def test_learned_loops_keep_a_route_most_of_enough_training_questions_took() -> None:
    (loop,) = learned_loops(BANK_LOOPS).values()
    assert loop.label == "Disease" and (loop.questions, loop.of) == (38, 49)
    assert [(h.source, h.relation, h.target, h.outgoing) for h in loop.hops] == [
        ("Disease", "ASSOCIATED_WITH", "Gene", False),
        ("Gene", "ASSOCIATED_WITH", "Disease", True),
    ]
    split = [BANK_LOOPS[0], {**BANK_LOOPS[1], "questions": 38}]
    assert learned_loops(split) == {}  # no route has most of them
    few = [{**BANK_LOOPS[0], "questions": MIN_QUESTIONS - 1}]
    assert learned_loops(few) == {}  # too few questions
    # a relation of the type with itself is the schema's own way back; a malformed row is skipped
    one_hop = {"labels": ["Phenotype", "Phenotype"], "relations": ["IS_A"], "outgoing": [True], "questions": 40}
    broken = {**BANK_LOOPS[0], "labels": ["Disease", "Gene"], "questions": 90}
    assert set(learned_loops([one_hop, broken, *BANK_LOOPS])) == {"Disease"}


def test_a_named_node_of_the_asked_type_walks_the_learned_loop() -> None:
    question = "Which Dravet syndrome-allelic diseases show seizures?"
    table = EntityTable((_row("Dravet syndrome", "Disease", 1.0), _row("seizures", "Phenotype", 1.0)))
    planner = HeuristicPlanner(HPO_CONTEXT, learned_loops=learned_loops(BANK_LOOPS))
    outcome = planner.plan(question, table, lambda plan: PlanCheck(True))
    assert outcome.plan is not None
    assert [(a.var, a.text) for a in outcome.plan.anchors] == [("a1", "Dravet syndrome"), ("a2", "seizures")]
    hops = [(h.source, h.relation, h.target, h.direction) for h in outcome.plan.hops]
    assert hops[:2] == [
        ("a1", "ASSOCIATED_WITH", "x1_1", Direction.IN),  # the stored direction: Gene -> Disease
        ("x1_1", "ASSOCIATED_WITH", "t", Direction.OUT),
    ]
    assert not any("no anchor of the plan" in note for note in outcome.notes)
    (said,) = [note for note in outcome.notes if "Path-Bank" in note]
    assert said.startswith("'Dravet syndrome' (Disease) reaches the asked type along Disease -ASSOCIATED_WITH- Gene")
    # the route is the training questions' guess, not the question's words: when no target matches the whole plan,
    # the plan that leaves the disease to the text runs ("Cystinosis-type disorders" share no gene with Cystinosis)
    assert said.endswith("when no target matches the whole plan, the plan without it runs")
    assert outcome.fallback is not None and [a.text for a in outcome.fallback.anchors] == ["seizures"]
    # "allelic" joins the disease to the asked type: a relation, so the disease itself is no answer ...
    assert outcome.looped_anchor is None
    # ... while "the Dravet syndrome diseases" name a kind, which the disease itself may be: when it matches the
    # rest itself, the branch ranks the fallback (`GraphBranch.execute`)
    kind = planner.plan("Which Dravet syndrome diseases show seizures?", table, lambda plan: PlanCheck(True))
    assert kind.fallback is not None and kind.looped_anchor == "a1"
    # a route the question's words give ("share a gene") is no learned guess: no note, no fallback
    said = planner.plan(
        "Which diseases share a gene with Dravet syndrome and show seizures?", table, lambda plan: PlanCheck(True)
    )
    assert said.plan is not None and [a.text for a in said.plan.anchors] == ["Dravet syndrome", "seizures"]
    assert said.fallback is None and said.looped_anchor is None
    assert not any("Path-Bank" in note for note in said.notes)
    # a described node of the asked type is the answer itself, and a hierarchy cue walks the hierarchy: no loop
    described = EntityTable(
        (
            EntityRow(
                Mention(text="a severe infant epilepsy", types=("Disease",), match_mode=MatchMode.DOC),
                {"Disease": (NodeLink("ORPHA:33069", "Dravet syndrome", "Disease", 0.9, 30),)},
            ),
        )
    )
    itself = planner.build("Which disease is described as a severe infant epilepsy?", described)
    assert not any(h.relation == "ASSOCIATED_WITH" for h in itself.hops)


def test_plan_notes_say_what_the_asked_slot_held() -> None:
    planner = HeuristicPlanner(HPO_CONTEXT)
    table = EntityTable((_row("seizure", "Phenotype", 0.97),))
    assert planner.slot_notes("Which conds have a more specific form of seizure?", table) == [
        "asked type Disease: 'conds' shortens one of its words in the schema"
    ]
    (unread,) = planner.slot_notes("Which dx present with a subtype of seizure?", table)
    assert unread.startswith("'dx' asks for a type in words the schema does not hold")
    assert planner.slot_notes("Which diseases present with seizure?", table) == []
