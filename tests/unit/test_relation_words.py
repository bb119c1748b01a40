"""The relation a question means among several joining the same two types, read from the schema's own names and
descriptions; the largest relation only when the words say nothing, the negative one only when negated."""

from __future__ import annotations

import dataclasses

import pytest

from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner, phrase_asked
from grasp_agent.graph_branch.mentions import Mention
from grasp_agent.graph_branch.plan import parse_plan
from grasp_agent.graph_branch.procedure_calls import NodeLink
from grasp_agent.graph_branch.prompts import schema_block
from grasp_agent.graph_branch.relation_words import RelationWords, stem, stem_forms, stems
from grasp_agent.graph_branch.schema_paths import SchemaHop, shortest_meta_path
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.schema import SkbSchema
from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row

FILMS = SkbSchema.model_validate(
    {
        "name": "films",
        "node_types": [{"label": "Person"}, {"label": "Film", "aliases": ["movie"]}, {"label": "Studio"}],
        "relation_types": [
            {
                "type": "DIRECTED",
                "pairs": [{"source": "Person", "target": "Film"}],
                "description": "the person directed the film",
            },
            {
                "type": "ACTED_IN",
                "pairs": [{"source": "Person", "target": "Film"}],
                "description": "the person starred in the film as a cast member",
            },
            {"type": "PRODUCED_BY", "pairs": [{"source": "Film", "target": "Studio"}]},
        ],
    }
)
# ACTED_IN is the larger relation: by size alone it would win every Person-Film question
COUNTS = {
    ("Person", "ACTED_IN", "Film"): 900,
    ("Person", "DIRECTED", "Film"): 100,
    ("Film", "PRODUCED_BY", "Studio"): 50,
}
FILM_CONTEXT = SkbContext(schema=FILMS, pattern_counts=COUNTS, label_counts={"Person": 500, "Film": 300, "Studio": 9})


@pytest.mark.parametrize(
    ("words", "stem_"),
    [("directed", "direct"), ("director", "direct"), ("direction", "direct"), ("acting", "act"), ("acted", "act")],
)
def test_stems_join_word_forms(words: str, stem_: str) -> None:
    assert stem(words) == stem_


def test_relation_names_in_any_style_give_the_same_stems() -> None:
    assert stems("ACTED_IN") == stems("actedIn") == stems("acted in") == {"act"}


@pytest.mark.parametrize(
    ("question", "relation"),
    [
        ("Who directed Spirited Away?", "DIRECTED"),
        ("Which person was the director of Spirited Away?", "DIRECTED"),
        ("Who acted in Spirited Away?", "ACTED_IN"),
        ("Who starred in Spirited Away?", "ACTED_IN"),  # the description's word
        ("Which people are linked to Spirited Away?", "ACTED_IN"),  # no word for either: the larger
    ],
)
def test_the_question_words_choose_among_parallel_relations(question: str, relation: str) -> None:
    words = RelationWords.of(FILMS)
    assert shortest_meta_path("Film", "Person", COUNTS, question, words) == [SchemaHop("Film", relation, "Person")]


def test_the_planner_walks_the_relation_the_question_names() -> None:
    table = EntityTable((_row("Spirited Away", "Film", 1.0),))
    plan = HeuristicPlanner(FILM_CONTEXT).build("Who directed Spirited Away?", table)
    assert [hop.relation for hop in plan.hops] == ["DIRECTED"]
    plan = HeuristicPlanner(FILM_CONTEXT).build("Who acted in Spirited Away?", table)
    assert [hop.relation for hop in plan.hops] == ["ACTED_IN"]


def test_hpo_negation_still_picks_the_negative_relation_and_words_do_not_override_it() -> None:
    words = RelationWords.of(HPO_CONTEXT.schema)
    counts = HPO_CONTEXT.pattern_counts
    assert shortest_meta_path("Phenotype", "Disease", counts, "Which diseases lack seizures?", words) == [
        SchemaHop("Phenotype", "LACKS_PHENOTYPE", "Disease")
    ]
    assert shortest_meta_path("Phenotype", "Disease", counts, "Which diseases have the phenotype seizures?", words) == [
        SchemaHop("Phenotype", "HAS_PHENOTYPE", "Disease")
    ]


PACKAGES = SkbSchema.model_validate(
    {
        "name": "packages",
        "node_types": [{"label": "Module"}],
        "relation_types": [
            {
                "type": "IMPORTS",
                "pairs": [{"source": "Module", "target": "Module"}],
                "description": "source imports target",
            }
        ],
    }
)
PACKAGE_CONTEXT = SkbContext(
    schema=PACKAGES, pattern_counts={("Module", "IMPORTS", "Module"): 40}, label_counts={"Module": 20}
)


@pytest.mark.parametrize(
    ("question", "outgoing"),
    [
        ("Which modules does json import?", True),
        ("Which modules are imported by json?", True),
        ("Which modules import json?", False),
        ("What imports json?", False),
    ],
)
def test_word_order_says_which_way_a_relation_within_one_type_is_walked(question: str, outgoing: bool) -> None:
    from grasp_agent.graph_branch.plan import Direction

    table = EntityTable((_row("json", "Module", 1.0),))
    plan = HeuristicPlanner(PACKAGE_CONTEXT).build(question, table)
    assert len(plan.hops) == 1 and plan.hops[0].relation == "IMPORTS"
    hop = plan.hops[0]
    anchor_is_source = hop.source == plan.anchors[0].var
    walks_stored_way = (hop.direction is Direction.OUT) == anchor_is_source
    assert hop.direction is not Direction.ANY and walks_stored_way == outgoing


def test_without_the_relation_words_a_relation_within_one_type_is_read_both_ways() -> None:
    from grasp_agent.graph_branch.plan import Direction

    table = EntityTable((_row("json", "Module", 1.0),))
    plan = HeuristicPlanner(PACKAGE_CONTEXT).build("Which modules are linked to json?", table)
    assert plan.hops[0].direction is Direction.ANY


def test_the_plan_notes_say_why_a_relation_was_chosen() -> None:
    from grasp_agent.graph_branch.procedure_calls import PlanCheck

    table = EntityTable((_row("Spirited Away", "Film", 1.0),))
    planner = HeuristicPlanner(FILM_CONTEXT)
    named = planner.plan("Who directed Spirited Away?", table, lambda plan: PlanCheck(True))
    assert "relation DIRECTED over ACTED_IN: the question's words (direct)" in named.notes
    vague = planner.plan("Which people are linked to Spirited Away?", table, lambda plan: PlanCheck(True))
    assert "relation ACTED_IN over DIRECTED: the largest; no word of the question names one" in vague.notes
    hpo = HeuristicPlanner(HPO_CONTEXT)
    seizures = EntityTable((_row("seizures", "Phenotype", 1.0),))
    lacking = hpo.plan("Which diseases lack seizures?", seizures, lambda plan: PlanCheck(True))
    assert "relation LACKS_PHENOTYPE over HAS_PHENOTYPE: the question negates" in lacking.notes
    having = hpo.plan("Which diseases have seizures?", seizures, lambda plan: PlanCheck(True))
    assert not any(note.startswith("relation") for note in having.notes)  # a negative relation is no rival


COUNTRIES = SkbSchema.model_validate(
    {
        "name": "countries",
        "node_types": [{"label": "Country", "text_fields": ["summary"]}, {"label": "City"}],
        "relation_types": [
            {
                "type": "BORDERS",
                "pairs": [{"source": "Country", "target": "Country"}],
                "description": "shares a border",
            },
            {"type": "CAPITAL_OF", "pairs": [{"source": "City", "target": "Country"}]},
        ],
    }
)
COUNTRY_CONTEXT = SkbContext(
    schema=COUNTRIES,
    pattern_counts={("Country", "BORDERS", "Country"): 600, ("City", "CAPITAL_OF", "Country"): 200},
    label_counts={"Country": 250, "City": 900},
)


def _described(passage: str) -> EntityTable:
    from grasp_agent.graph_branch.entity_table import EntityRow
    from grasp_agent.graph_branch.mentions import MatchMode, Mention, MentionRole
    from grasp_agent.graph_branch.procedure_calls import NodeLink

    link = NodeLink("country:XX", "Someland", "Country", 0.95, 5)
    mention = Mention(text=passage, types=("Country",), role=MentionRole.ANCHOR, match_mode=MatchMode.DOC)
    return EntityTable((EntityRow(mention, {"Country": (link,)}),))


def test_a_described_entity_of_the_asked_type_is_the_answer_unless_a_relation_is_named() -> None:
    passage = "a landlocked country bordering three seas of sand"
    table = _described(passage)
    itself = HeuristicPlanner(COUNTRY_CONTEXT).build(f'Which country is described as "{passage}"?', table)
    assert not itself.hops  # no BORDERS hop: the described country is what is asked for (its words do not count)
    neighbours = HeuristicPlanner(COUNTRY_CONTEXT).build(
        f'Which countries border the country described as "{passage}"?', table
    )
    assert [hop.relation for hop in neighbours.hops] == ["BORDERS"]


def test_a_second_suffix_joins_word_forms_one_cut_leaves_apart() -> None:
    assert stem("borders") == "bord" and stem("bordering") == "border"  # one cut each: apart
    assert stem_forms("borders") & stem_forms("bordering") == {"bord"}
    assert stems("BORDERS") & stems("the countries bordering X")


GEO = SkbSchema.model_validate(
    {
        "name": "geo",
        "node_types": [{"label": "Country"}, {"label": "Language"}, {"label": "Region"}],
        "relation_types": [
            {"type": "BORDERS", "pairs": [{"source": "Country", "target": "Country"}]},
            {"type": "HAS_LANGUAGE", "pairs": [{"source": "Country", "target": "Language"}]},
            {"type": "PART_OF", "pairs": [{"source": "Region", "target": "Region"}]},
            {"type": "IN_REGION", "pairs": [{"source": "Country", "target": "Region"}]},
        ],
    }
)
GEO_CONTEXT = SkbContext(
    schema=GEO,
    pattern_counts={
        ("Country", "BORDERS", "Country"): 600,
        ("Country", "HAS_LANGUAGE", "Language"): 700,
        ("Region", "PART_OF", "Region"): 20,
        ("Country", "IN_REGION", "Region"): 250,
    },
    label_counts={"Country": 250, "Language": 500, "Region": 30},
)


def test_a_self_relation_the_words_name_is_walked_first_on_the_way_to_another_type() -> None:
    table = EntityTable((_row("Kenya", "Country", 1.0),))
    planner = HeuristicPlanner(GEO_CONTEXT)
    neighbours = planner.build("Which languages are spoken in the countries bordering Kenya?", table)
    assert [hop.relation for hop in neighbours.hops] == ["BORDERS", "HAS_LANGUAGE"]
    own = planner.build("Which languages are spoken in Kenya?", table)
    assert [hop.relation for hop in own.hops] == ["HAS_LANGUAGE"]
    # to its own type the self-relation is the path already: one hop, not two
    assert [hop.relation for hop in planner.build("Which countries border Kenya?", table).hops] == ["BORDERS"]


PLACES = SkbSchema.model_validate(
    {
        "name": "places",
        "node_types": [{"label": "Country"}, {"label": "City", "aliases": ["town", "capital"]}],
        "relation_types": [
            {"type": "LOCATED_IN", "pairs": [{"source": "City", "target": "Country"}]},
            {"type": "CAPITAL_OF", "pairs": [{"source": "City", "target": "Country"}]},
            {"type": "BORDERS", "pairs": [{"source": "Country", "target": "Country"}]},
        ],
    }
)
PLACES_CONTEXT = SkbContext(
    schema=PLACES,
    pattern_counts={
        ("City", "LOCATED_IN", "Country"): 9000,
        ("City", "CAPITAL_OF", "Country"): 200,
        ("Country", "BORDERS", "Country"): 600,
    },
    label_counts={"Country": 250, "City": 9000},
)


def test_the_word_that_names_the_asked_type_also_names_the_relation_into_it() -> None:
    # "capitals" is a word for cities and the name of CAPITAL_OF; it stands far from the anchor's own words
    table = EntityTable((_row("Chad", "Country", 1.0),))
    plan = HeuristicPlanner(PLACES_CONTEXT).build("What are the capitals of the countries bordering Chad?", table)
    assert plan.target.type == "City"
    assert [hop.relation for hop in plan.hops] == ["BORDERS", "CAPITAL_OF"]
    plan = HeuristicPlanner(PLACES_CONTEXT).build("Which towns are in the countries bordering Chad?", table)
    assert [hop.relation for hop in plan.hops] == ["BORDERS", "LOCATED_IN"]


def _alias_row(text: str, label: str, node_id: str) -> EntityRow:
    """A mention that writes another name of its node (a synonym or key): the entity table marks it."""
    link = NodeLink(node_id, "Kenya", label, 1.0, 5)
    return EntityRow(Mention(text=text, types=(label,)), {label: (link,)}, aliases=frozenset({node_id}))


def test_a_node_of_the_asked_type_named_by_an_alias_is_the_answer_unless_its_relation_is_named() -> None:
    planner = HeuristicPlanner(GEO_CONTEXT)
    table = EntityTable((_alias_row("Republic of Kenya", "Country", "country:KE"),))
    itself = planner.build("Which country is the Republic of Kenya?", table)
    assert itself.hops == () and [(a.var, a.type, a.text) for a in itself.anchors] == [
        ("t", "Country", "Republic of Kenya")
    ]
    assert parse_plan(itself.to_json()) == itself  # a valid plan: an anchor that is the target, no hop
    # the relation named: its neighbours, as for the name
    assert [hop.relation for hop in planner.build("Which countries border the Republic of Kenya?", table).hops] == [
        "BORDERS"
    ]
    # another type asked: the usual route
    assert [hop.relation for hop in planner.build("Which languages does the Republic of Kenya use?", table).hops] == [
        "HAS_LANGUAGE"
    ]
    # the node's own name, not an alias: the self-relation as before (a question naming a node of the type it
    # asks for asks for others)
    named = EntityTable((_row("Kenya", "Country", 1.0),))
    assert [hop.relation for hop in planner.build("Which country is next to Kenya?", named).hops] == ["BORDERS"]


def test_a_relation_name_is_written_by_its_stems_and_by_any_form_of_has_and_is() -> None:
    words = RelationWords.of(HPO_CONTEXT.schema)
    assert words.written("HAS_PHENOTYPE", ["that", "have"])
    assert words.written("LACKS_PHENOTYPE", ["lacking"])
    assert words.written("IS_A", ["are"])
    assert not words.written("LACKS_PHENOTYPE", ["that", "have"])
    assert not words.written("ASSOCIATED_WITH", ["that", "is", "with"])  # "with" says nothing
    assert not words.written("IS_A", ["a"])


def test_the_schemas_phrases_count_as_the_relations_name_but_word_order_reads_the_name_alone() -> None:
    phrased = FILMS.model_copy(
        update={
            "relation_types": tuple(
                relation.model_copy(update={"phrases": ("made",), "inverse_phrases": ("is the work of",)})
                if relation.type == "DIRECTED"
                else relation
                for relation in FILMS.relation_types
            )
        }
    )
    plain, words = RelationWords.of(FILMS), RelationWords.of(phrased)
    question = "Who made Spirited Away?"
    assert shortest_meta_path("Film", "Person", COUNTS, question, plain) == [SchemaHop("Film", "ACTED_IN", "Person")]
    assert shortest_meta_path("Film", "Person", COUNTS, question, words) == [SchemaHop("Film", "DIRECTED", "Person")]
    assert words.written("DIRECTED", ["the", "work"]) and not plain.written("DIRECTED", ["the", "work"])
    # an inverse phrase's words before an anchor do not say the walk goes into it: only the name's words do
    assert words.direction("DIRECTED", ["is", "the", "work", "of"], []) is None


GEO_LIKE = SkbSchema.model_validate(
    {
        "name": "places",
        "node_types": [{"label": "Country"}, {"label": "Language"}, {"label": "Region"}],
        "relation_types": [
            {
                "type": "HAS_LANGUAGE",
                "pairs": [{"source": "Country", "target": "Language"}],
                "phrases": ["speaks"],
                "inverse_phrases": ["is spoken in"],
            },
            {
                "type": "PART_OF",
                "pairs": [{"source": "Region", "target": "Region"}],
                "phrases": ["is part of"],
                "inverse_phrases": ["contains"],
            },
            {
                "type": "BORDERS",
                "pairs": [{"source": "Country", "target": "Country"}],
                "phrases": ["borders"],
                "inverse_phrases": ["borders"],
            },
        ],
    }
)


@pytest.mark.parametrize(
    ("before", "after", "relation", "outgoing"),
    [
        ("what is part of", "", "PART_OF", False),  # the anchor is the stored target: walked into
        ("which regions are part of", "", "PART_OF", False),  # the phrase with a plural subject
        ("", "is part of what", "PART_OF", True),
        ("what contains", "", "PART_OF", True),
        ("the regions that", "contain", "PART_OF", False),
        ("what is", "", "PART_OF", None),  # part of a phrase says nothing
        ("which countries border", "", "BORDERS", None),  # worded alike both ways
        ("the part of", "", "PART_OF", None),
    ],
)
def test_a_phrase_right_around_an_anchor_says_which_way_it_is_walked(
    before: str, after: str, relation: str, outgoing: bool | None
) -> None:
    words = RelationWords.of(GEO_LIKE)
    assert words.phrase_direction(relation, before.split(), after.split()) is outgoing


@pytest.mark.parametrize(
    ("question", "anchor", "label", "asked"),
    [
        ("What is spoken in Peru?", "Peru", "Country", "Language"),
        ("Quechua is spoken in what?", "Quechua", "Language", "Country"),
        ("What does Peru speak?", "Peru", "Country", "Language"),  # the verb's plain form after "does X"
        ("Peru speaks what?", "Peru", "Country", "Language"),
        ("What is part of Polynesia?", "Polynesia", "Region", "Region"),
        ("Tell me about Peru.", "Peru", "Country", None),
        ("Which is it that Peru borders?", "Peru", "Country", "Country"),  # worded alike both ways: either end
    ],
)
def test_a_phrase_around_an_anchor_says_the_asked_type_of_a_question_that_names_none(
    question: str, anchor: str, label: str, asked: str | None
) -> None:
    patterns = [(p.source, r.type, p.target) for r in GEO_LIKE.relation_types for p in r.pairs]
    rows = [_row(anchor, label, 1.0)]
    assert phrase_asked(question, rows, [anchor], patterns, RelationWords.of(GEO_LIKE)) == asked


NOUNED = SkbSchema.model_validate(
    {
        "name": "places",
        "node_types": [{"label": "Country"}, {"label": "City"}, {"label": "Language"}, {"label": "Term"}],
        "relation_types": [
            {
                "type": "BORDERS",
                "pairs": [{"source": "Country", "target": "Country"}],
                "source_nouns": ["neighbour"],
                "target_nouns": ["neighbour"],
            },
            {
                "type": "CAPITAL_OF",
                "pairs": [{"source": "City", "target": "Country"}],
                "phrases": ["is the capital of"],
                "source_nouns": ["capital"],
            },
            {"type": "LOCATED_IN", "pairs": [{"source": "City", "target": "Country"}]},
            {"type": "HAS_LANGUAGE", "pairs": [{"source": "Country", "target": "Language"}], "phrases": ["speaks"]},
            {
                "type": "SUBCLASS_OF",
                "pairs": [{"source": "Term", "target": "Term"}],
                "source_nouns": ["narrower term"],
                "target_nouns": ["parent term"],
            },
        ],
    }
)
NOUNED_CONTEXT = SkbContext(
    schema=NOUNED,
    pattern_counts={
        ("Country", "BORDERS", "Country"): 600,
        ("City", "CAPITAL_OF", "Country"): 200,
        ("City", "LOCATED_IN", "Country"): 9000,
        ("Country", "HAS_LANGUAGE", "Language"): 700,
        ("Term", "SUBCLASS_OF", "Term"): 5000,
    },
    label_counts={"Country": 250, "City": 9000, "Language": 500, "Term": 5000},
)


@pytest.mark.parametrize(
    ("before", "after", "relation", "ends"),
    [
        ("what are the narrower terms of", "", "SUBCLASS_OF", {True}),  # "the Ns of X"
        ("which are the parent terms of the", "", "SUBCLASS_OF", {False}),
        ("what are", "s narrower terms", "SUBCLASS_OF", {True}),  # "X's Ns": the possessive's s is its own word
        ("name", "parent terms", "SUBCLASS_OF", {False}),  # "Xs' parent terms"
        ("the terms narrower than", "", "SUBCLASS_OF", set()),  # no noun of the relation
        ("what is the term of", "", "SUBCLASS_OF", set()),  # half a noun says nothing
        ("the neighbours of", "", "BORDERS", {True, False}),  # either end of a symmetric relation
        ("what is the capital of", "", "CAPITAL_OF", {True}),
        ("the capital", "", "CAPITAL_OF", set()),  # a noun not owned by the anchor
    ],
)
def test_a_role_noun_owned_by_an_anchor_names_an_end_of_the_relation(
    before: str, after: str, relation: str, ends: set[bool]
) -> None:
    words = RelationWords.of(NOUNED)
    assert words.noun_ends(relation, before.split(), after.split()) == ends
    direction = words.noun_direction(relation, before.split(), after.split())
    assert direction is ((not next(iter(ends))) if len(ends) == 1 else None)


def test_role_nouns_count_as_the_relations_name() -> None:
    words = RelationWords.of(NOUNED)
    assert "neighb" in words.named_by("BORDERS") and "capita" in words.named_by("CAPITAL_OF")
    assert shortest_meta_path("Country", "City", NOUNED_CONTEXT.pattern_counts, "the capitals of X", words) == [
        SchemaHop("Country", "CAPITAL_OF", "City")
    ]


@pytest.mark.parametrize(
    ("question", "anchor", "label", "relations", "target", "asked"),
    [
        # a self-relation's noun owned by the anchor adds its hop on the way to another type; the outermost noun
        # of a chain is asked for; a noun that more words follow names a station, not the asked end
        ("Name the capitals of Chile's neighbours.", "Chile", "Country", ["BORDERS", "CAPITAL_OF"], "City", "City"),
        (
            "What languages do Ecuador's neighbours speak?",
            "Ecuador",
            "Country",
            ["BORDERS", "HAS_LANGUAGE"],
            "Language",
            None,
        ),
        ("What languages are spoken in Ecuador?", "Ecuador", "Country", ["HAS_LANGUAGE"], "Language", None),
        # a question naming no type asks for the end the noun names
        ("Who are the neighbours of Laos?", "Laos", "Country", ["BORDERS"], "Country", "Country"),
        ("What is Peru's capital?", "Peru", "Country", ["CAPITAL_OF"], "City", "City"),
        # a noun that more words follow names a station, not the asked end
        (
            "What do the neighbours of Laos speak?",
            "Laos",
            "Country",
            ["BORDERS", "HAS_LANGUAGE"],
            "Language",
            "Language",
        ),
    ],
)
def test_role_nouns_read_chains_and_the_asked_end(
    question: str, anchor: str, label: str, relations: list[str], target: str, asked: str | None
) -> None:
    table = EntityTable((_row(anchor, label, 1.0),))
    plan = HeuristicPlanner(NOUNED_CONTEXT).build(question, table)
    assert [hop.relation for hop in plan.hops] == relations and plan.target.type == target
    patterns = list(NOUNED_CONTEXT.pattern_counts)
    assert phrase_asked(question, [_row(anchor, label, 1.0)], [anchor], patterns, RelationWords.of(NOUNED)) == asked


@pytest.mark.parametrize(
    ("question", "outgoing"),
    [("What are the narrower terms of Ataxia?", False), ("Name Ataxia's parent terms.", True)],
)
def test_a_role_noun_says_which_way_a_relation_within_one_type_is_walked(question: str, outgoing: bool) -> None:
    table = EntityTable((_row("Ataxia", "Term", 1.0),))
    plan = HeuristicPlanner(NOUNED_CONTEXT).build(question, table)
    assert [(hop.relation, hop.source == "a1") for hop in plan.hops] == [("SUBCLASS_OF", True)]
    assert plan.hops[0].direction.value == ("out" if outgoing else "in")


def test_a_role_nouns_type_word_names_no_relation() -> None:
    schema = NOUNED.model_copy(
        update={
            "relation_types": tuple(
                r.model_copy(update={"target_nouns": ("neighbouring country",)}) if r.type == "BORDERS" else r
                for r in NOUNED.relation_types
            )
        }
    )
    words = RelationWords.of(schema)
    assert "neighb" in words.named_by("BORDERS") and not stems("countries") & words.named_by("BORDERS")
    assert words.noun_ends("BORDERS", "the neighbouring countries of".split(), []) == {False}
    # the longest noun at a word, once: with its type word, "neighbouring countries" is one role noun
    both = schema.model_copy(
        update={
            "relation_types": tuple(
                r.model_copy(update={"target_nouns": ("neighbour", "neighbouring country")})
                if r.type == "BORDERS"
                else r
                for r in NOUNED.relation_types
            )
        }
    )
    assert RelationWords.of(both).nouns_said("BORDERS", "Kenya's neighbouring countries and their neighbours") == 2
    context = dataclasses.replace(NOUNED_CONTEXT, schema=both)
    plan = HeuristicPlanner(context).build(
        "What are Kenya's neighbouring countries?", EntityTable((_row("Kenya", "Country", 1.0),))
    )
    assert [hop.relation for hop in plan.hops] == ["BORDERS"]  # the noun's type word names no station


REGIONS = SkbSchema.model_validate(
    {
        "name": "regions",
        "node_types": [{"label": "Country"}, {"label": "Region", "aliases": ["sub-region"]}],
        "relation_types": [
            {
                "type": "IN_REGION",
                "pairs": [{"source": "Country", "target": "Region"}],
                "phrases": ["is in the region"],
                "inverse_phrases": ["includes"],
            },
            {
                "type": "PART_OF",
                "pairs": [{"source": "Region", "target": "Region"}],
                "phrases": ["is a division of"],
                "inverse_phrases": ["is divided into"],
                "source_nouns": ["division"],
            },
        ],
    }
)


@pytest.mark.parametrize(
    ("question", "outgoing"),
    [
        ("The sub-regions that include Nigeria are a division of what?", True),  # the sub-regions, the subject
        ("Which sub-regions are divided into the sub-regions that include Nigeria?", None),  # no phrase at Nigeria
    ],
)
def test_a_phrase_next_to_the_mention_directs_the_outer_hop_of_nested_wording(question: str, outgoing: bool) -> None:
    context = SkbContext(
        schema=REGIONS,
        pattern_counts={("Country", "IN_REGION", "Region"): 250, ("Region", "PART_OF", "Region"): 20},
        label_counts={"Country": 250, "Region": 30},
    )
    plan = HeuristicPlanner(context).build(question, EntityTable((_row("Nigeria", "Country", 1.0),)))
    assert [hop.relation for hop in plan.hops] == ["IN_REGION", "PART_OF"]
    expected = {True: "out", False: "in", None: "any"}[outgoing]
    assert plan.hops[1].direction.value == expected


def test_llm_planners_see_the_schemas_role_nouns() -> None:
    block = schema_block(NOUNED_CONTEXT)
    assert "- SUBCLASS_OF: narrower term / parent term" in block and "- CAPITAL_OF: capital / -" in block
    assert "What one end of a relation is called" not in schema_block(FILM_CONTEXT)


def test_a_relation_worded_alike_both_ways_still_says_the_asked_type_at_the_other_end() -> None:
    schema = SkbSchema.model_validate(
        {
            "name": "genes",
            "node_types": [{"label": "Gene"}, {"label": "Phenotype"}, {"label": "Disease"}],
            "relation_types": [
                {
                    "type": "ASSOCIATED_WITH",
                    "pairs": [{"source": "Gene", "target": "Phenotype"}, {"source": "Gene", "target": "Disease"}],
                    "phrases": ["is linked to"],
                    "inverse_phrases": ["is linked to"],
                },
                {
                    "type": "HAS_PHENOTYPE",
                    "pairs": [{"source": "Disease", "target": "Phenotype"}],
                    "phrases": ["presents with"],
                },
            ],
        }
    )
    words = RelationWords.of(schema)
    patterns = [(p.source, r.type, p.target) for r in schema.relation_types for p in r.pairs]
    assert words.phrase_ways("ASSOCIATED_WITH", [], "is linked to what".split()) == {True, False}
    assert words.phrase_direction("ASSOCIATED_WITH", [], "is linked to what".split()) is None
    rows = [_row("Trichoschisis", "Phenotype", 1.0)]
    assert phrase_asked("Trichoschisis is linked to what?", rows, ["Trichoschisis"], patterns, words) == "Gene"
    # from a gene the phrase reaches two types: it says neither
    genes = [_row("KCNQ2", "Gene", 1.0)]
    assert phrase_asked("KCNQ2 is linked to what?", genes, ["KCNQ2"], patterns, words) is None


def test_a_role_noun_of_several_words_names_its_relation_only_when_all_are_said() -> None:
    words = RelationWords.of(HPO_CONTEXT.schema)  # IS_A's source nouns: "subtype", "child term", "narrower term"
    assert "child" in words.named_by("IS_A", stems("the child terms of Ptosis"))
    assert "child" not in words.named_by("IS_A", stems("A child presents with Ptosis"))
    assert "subtyp" in words.named_by("IS_A")  # a noun of one word names it alone
    # the child of a vignette asks for no walk through the phenotype hierarchy
    question = "A child presents with Ptosis and Seizure. Which disease fits best?"
    table = EntityTable((_row("Ptosis", "Phenotype", 1.0), _row("Seizure", "Phenotype", 1.0)))
    plan = HeuristicPlanner(HPO_CONTEXT).build(question, table)
    assert [hop.relation for hop in plan.hops] == ["HAS_PHENOTYPE", "HAS_PHENOTYPE"]
    terms = HeuristicPlanner(HPO_CONTEXT).build("Which diseases present a child term of Ptosis and Seizure?", table)
    assert "IS_A" in [hop.relation for hop in terms.hops]
