"""Question templates and wording read from any SKB's schema: every template walks stored relations, the wording
uses only the schema's own words, and splits are stable per requirement."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from pydantic import ValidationError

from grasp_agent.evaluation.skb_questions import Requirement, split_of, unique_names
from grasp_agent.evaluation.skb_templates import (
    FAMILIES,
    AnchorText,
    Lookup,
    RelationPhrasing,
    Step,
    Template,
    aside,
    mentioning_templates,
    misspelling,
    plural_verb,
    relation_words,
    schema_steps,
    schema_templates,
    word_lookup,
    word_mentioning,
    word_question,
    wording_form,
)
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.skb.context import SkbContext
from grasp_agent.skb.schema import NodeType, RelationType, SkbSchema
from tests.unit.test_graph_branch_units import _row

FILM_PATTERNS = [("Person", "DIRECTED", "Film"), ("Person", "ACTED_IN", "Film"), ("Film", "PRODUCED_BY", "Studio")]


def _schema() -> SkbSchema:
    return SkbSchema.model_validate(
        {
            "name": "films",
            "node_types": [
                NodeType(label="Person", aliases=("filmmaker",)),
                NodeType(label="Film", aliases=("movie",)),
                NodeType(label="Studio"),
            ],
            "relation_types": [
                RelationType.model_validate({"type": t, "pairs": [{"source": s, "target": o}]})
                for s, t, o in FILM_PATTERNS
            ],
        }
    )


def test_every_stored_pattern_is_walked_both_ways() -> None:
    steps = schema_steps(FILM_PATTERNS)
    assert len(steps) == 6
    assert Step("DIRECTED", True, "Person", "Film") in steps
    assert Step("DIRECTED", False, "Film", "Person") in steps


def test_templates_chain_only_through_matching_types_and_intersect_distinct_legs() -> None:
    templates = schema_templates(FILM_PATTERNS)
    names = [t.name for t in templates]
    assert names == sorted(names) and len(set(names)) == len(names)
    for template in templates:
        for leg in template.legs:
            for first, second in zip(leg, leg[1:], strict=False):
                assert first.target == second.source
        assert len({leg[-1].target for leg in template.legs}) == 1
    two_legs = [t for t in templates if len(t.legs) == 2]
    # Film is reached by DIRECTED and ACTED_IN from Person and by PRODUCED_BY from Studio: three pairs
    assert sorted(sorted(t.name.split("&")) for t in two_legs if t.target == "Film") == [
        ["Person>ACTED_IN>Film", "Person>DIRECTED>Film"],
        ["Person>ACTED_IN>Film", "Studio<PRODUCED_BY<Film"],
        ["Person>DIRECTED>Film", "Studio<PRODUCED_BY<Film"],
    ]
    assert "Person>DIRECTED>Film>PRODUCED_BY>Studio" in names  # a 2-hop chain
    assert Template(((Step("DIRECTED", True, "Person", "Film"),),)).hops == 1
    assert not any(len(leg) > 1 for t in schema_templates(FILM_PATTERNS, two_hop=False) for leg in t.legs)


def test_relation_names_become_words_with_plural_verbs() -> None:
    assert relation_words("HAS_PHENOTYPE") == "has phenotype"
    assert relation_words("actedIn") == "acted in"
    assert plural_verb("has phenotype") == "have phenotype"
    assert plural_verb("is a") == "are a"
    assert plural_verb("imports module") == "import module"
    assert plural_verb("acted in") == "acted in"
    assert plural_verb("was produced by") == "were produced by" and plural_verb("does not show") == "do not show"


def test_every_family_words_every_template_from_schema_words_and_names_each_anchor() -> None:
    schema = _schema()
    rng = random.Random(3)
    for template in schema_templates(FILM_PATTERNS):
        anchors = [
            AnchorText(name=f"Anchor{i}", type_word="thing", passage="a long passage about nothing in particular")
            for i, _ in enumerate(template.legs)
        ]
        for family in FAMILIES:
            text = word_question(template, anchors, family, schema, rng)
            for anchor in anchors:
                if family == "described":
                    assert anchor.passage is not None and anchor.passage in text
                    assert anchor.name not in text
                else:
                    assert anchor.name.lower() in text.lower(), (template.name, family, text)
            if family == "lower":
                assert text == text.lower()


def test_an_anchor_described_by_a_field_value_says_the_field_and_the_value_not_the_name() -> None:
    schema = _schema()
    template = Template(((Step("DIRECTED", True, "Person", "Film"),),))
    anchor = AnchorText("Ada Lee", "person", passage="AL-207", passage_field="guild_number")
    text = word_question(template, [anchor], "described", schema, random.Random(1))
    assert "the person whose guild number is AL-207" in text and "Ada Lee" not in text
    assert "Ada Lee" in word_question(template, [anchor], "which", schema, random.Random(1))


def test_a_lookup_by_a_field_value_says_the_field_in_every_family() -> None:
    schema = _schema()
    for seed in range(6):
        for family in FAMILIES:
            text = word_lookup(Lookup("Film"), "tt0042876", family, schema, random.Random(seed), "imdb_id")
            assert "imdb id tt0042876" in text.lower() or "imdb id is tt0042876" in text.lower(), (family, text)
            assert '"' not in text  # a value is not a quoted passage


def test_a_question_uses_the_target_types_words() -> None:
    schema = _schema()
    template = Template(((Step("DIRECTED", True, "Person", "Film"),),))
    texts = {
        word_question(template, [AnchorText("Ada Lee", "person")], "which", schema, random.Random(s)) for s in range(20)
    }
    assert any("Which films" in t for t in texts) and any("Which movies" in t for t in texts)
    assert all("that Ada Lee directed" in t for t in texts)


def test_a_lookup_quotes_the_nodes_own_passage_in_every_family_with_its_types_words() -> None:
    schema = _schema()
    lookup = Lookup("Film")
    assert (lookup.name, lookup.hops, lookup.target) == ("Film=described", 0, "Film")
    passage = "A heist in a casino goes wrong on the night of the storm"
    seen_words = set()
    for seed in range(12):
        for family in FAMILIES:
            text = word_lookup(lookup, passage, family, schema, random.Random(seed))
            assert passage.lower() in text.lower(), (family, text)
            if family == "lower":
                assert text == text.lower()
            seen_words |= {word for word in ("film", "movie") if word in text.lower()}
    assert seen_words == {"film", "movie"}  # the label and the schema's alias


def test_unique_names_drop_names_shared_across_types_and_odd_lengths() -> None:
    names = {
        "Person": {"p1": "Mercury", "p2": "Ada Lee", "p3": "X"},
        "Film": {"f1": "mercury", "f2": "Up"},
    }
    assert unique_names(names) == {"Person": {"p2": "Ada Lee"}, "Film": {"f2": "Up"}}


def test_splits_are_stable_per_requirement_and_near_sixty_twenty_twenty() -> None:
    template = Template(((Step("DIRECTED", True, "Person", "Film"),),))
    splits = [split_of(Requirement(template, (f"p{i}",), ("f1",))) for i in range(2000)]
    assert splits == [split_of(Requirement(template, (f"p{i}",), ("f2", "f3"))) for i in range(2000)]
    share = Counter(splits)
    assert 0.55 < share["train"] / 2000 < 0.65
    assert 0.15 < share["valid"] / 2000 < 0.25
    assert 0.15 < share["test"] / 2000 < 0.25


def test_mentioning_templates_walk_one_step_onto_types_with_text_and_word_the_asked_word() -> None:
    schema = _schema()
    templates = mentioning_templates(FILM_PATTERNS, ["Film"])
    assert [t.name for t in templates] == [
        "Person>ACTED_IN>Film~text",
        "Person>DIRECTED>Film~text",
        "Studio<PRODUCED_BY<Film~text",
    ]
    directed = templates[1]
    assert (directed.target, directed.hops, directed.legs) == ("Film", 1, ((directed.step,),))
    anchor = AnchorText("Ada Lee", "person", "A director of quiet films")
    for seed in range(6):
        for family in FAMILIES:
            text = word_mentioning(directed, anchor, "lighthouse", family, schema, random.Random(seed))
            assert "lighthouse" in text and ("film" in text.lower() or "movie" in text.lower() or family == "implied")
            # the anchor by its name, or (described) by its own passage
            assert ("ada lee" in text.lower()) == (family != "described"), (family, text)


SEQUEL_PATTERNS = [*FILM_PATTERNS, ("Film", "SEQUEL_OF", "Film")]


def _sequel_schema() -> SkbSchema:
    return _schema().model_copy(
        update={
            "relation_types": tuple(
                RelationType.model_validate({"type": t, "pairs": [{"source": s, "target": o}]})
                for s, t, o in SEQUEL_PATTERNS
            )
        }
    )


def test_a_short_form_is_used_only_where_it_leaves_one_reading_of_each_step() -> None:
    schema = _sequel_schema()
    directed = Step("DIRECTED", True, "Person", "Film")
    produced = Step("PRODUCED_BY", False, "Studio", "Film")
    both = Template(((directed,), (produced,)))
    rng = random.Random(0)
    # "Ada + Acme -> films?": a person may have directed or acted in the film, so the relation must be said
    assert wording_form(both, "terse", schema) == "explicit"
    # "what fits both?" says neither relation nor type; the explicit form names the relations
    assert wording_form(both, "implied", schema) == "explicit"
    assert word_question(both, [AnchorText("Ada", "person"), AnchorText("Acme", "studio")], "implied", schema, rng) == (
        "What is connected to Ada by directed and to Acme by produced by?"
    )
    # ... which does not say which way a film's sequel relation goes: then the question is worded as "which"
    sequels = Template(((Step("SEQUEL_OF", True, "Film", "Film"),), (directed,)))
    assert wording_form(sequels, "implied", schema) is None
    assert wording_form(both, "which", schema) == wording_form(both, "lower", schema) == "short"
    # one relation joins studios and films: naming the types is enough
    assert wording_form(Template(((produced,),)), "find", schema) == "short"
    # a film's sequels or the film it is a sequel of: "linked to X by sequel of" needs its direction
    sequel = Template(((Step("SEQUEL_OF", True, "Film", "Film"),),))
    assert wording_form(sequel, "find", schema) == "explicit"
    assert wording_form(sequel, "implied", schema) == "explicit"
    anchor = [AnchorText("Heat", "film")]
    assert word_question(sequel, anchor, "implied", schema, rng) == "Heat sequel of what?"
    assert word_question(Template(((Step("SEQUEL_OF", False, "Film", "Film"),),)), anchor, "implied", schema, rng) == (
        "What sequel of Heat?"
    )
    # a two-step chain through a self relation has no short form but "which"; its explicit forms nest clauses
    chain = Template(((Step("SEQUEL_OF", True, "Film", "Film"), Step("PRODUCED_BY", True, "Film", "Studio")),))
    assert wording_form(chain, "terse", schema) is None and wording_form(chain, "find", schema) == "explicit"
    text = word_question(chain, anchor, "find", schema, random.Random(1))
    assert text.startswith("Find the studios that the ") and text.endswith(" that Heat sequel of produced by.")
    # the asked type left unsaid two steps away, the relations said
    assert wording_form(chain, "implied", schema) == "explicit"
    assert word_question(chain, anchor, "implied", schema, random.Random(1)).endswith(
        " that Heat sequel of produced by what?"
    )


def _steps_with_rivals_worded(schema: SkbSchema) -> Iterator[tuple[str, str, str, Step]]:
    """(template name, family, the question in lower case, a step of it) for every step of every sequel-schema
    template worded in every family, where another walk joins the step's two types."""
    walks = schema_steps(SEQUEL_PATTERNS)
    for template in schema_templates(SEQUEL_PATTERNS):
        anchors = [AnchorText(f"Anchor{i}", "thing") for i, _ in enumerate(template.legs)]
        for family in FAMILIES:
            text = word_question(template, anchors, family, schema, random.Random(7)).lower()
            for step in (step for leg in template.legs for step in leg):
                if any((w.source, w.target) == (step.source, step.target) and w != step for w in walks):
                    yield template.name, family, text, step


def test_every_worded_question_names_each_relation_its_types_do_not_decide() -> None:
    """Independent of the tables behind wording_form: where two walks join a step's types (DIRECTED and ACTED_IN
    from Person to Film, SEQUEL_OF either way), every question worded in some form names the step's relation."""
    for name, family, text, step in _steps_with_rivals_worded(_sequel_schema()):
        assert relation_words(step.relation) in text, (name, family, text)


def test_a_misspelling_slips_one_key_in_one_long_word_and_keeps_its_first_letter() -> None:
    for seed in range(40):
        slipped = misspelling("Distal muscle weakness", random.Random(seed))
        assert slipped is not None and slipped != "Distal muscle weakness"
        words, slipped_words = "Distal muscle weakness".split(), slipped.split()
        changed = [(a, b) for a, b in zip(words, slipped_words, strict=True) if a != b]
        assert len(changed) == 1  # one word, a long one, by one letter at most
        original, typo = changed[0]
        assert len(original) >= 6 and typo[0] == original[0] and abs(len(typo) - len(original)) <= 1
    assert misspelling("NSF", random.Random(0)) is None  # no word long enough to stay recognisable
    assert misspelling("Cat 12", random.Random(0)) is None


def test_misspelt_and_aside_families_change_how_one_anchor_is_named() -> None:
    schema = _schema()
    template = Template(((Step("DIRECTED", True, "Person", "Film"),), (Step("PRODUCED_BY", True, "Film", "Studio"),)))
    anchors = [AnchorText("Adaline Lee", "person", misspelt="Adalnie Lee"), AnchorText("Acme", "studio")]
    text = word_question(template, anchors, "misspelt", schema, random.Random(0))
    assert "Adalnie Lee" in text and "Adaline Lee" not in text and "Acme" in text
    assert word_question(template, anchors, "which", schema, random.Random(0)).count("Adaline Lee") == 1
    assert aside("Heat", random.Random(0)).rstrip().endswith(".") and "Heat" in aside("Heat", random.Random(0))


def test_a_compound_names_a_leg_as_anchor_related_only_where_the_target_type_tells_the_relation() -> None:
    schema = _schema()
    produced = Step("PRODUCED_BY", False, "Studio", "Film")  # the one relation from studios to films
    directed = Step("DIRECTED", True, "Person", "Film")  # a person may also have acted in the film
    assert wording_form(Template(((produced,),)), "compound", schema) == "short"
    assert word_question(
        Template(((produced,),)), [AnchorText("Acme", "studio")], "compound", schema, random.Random(0)
    ) in (
        "Which Acme-related films are there?",
        "Which Acme-related movies are there?",
    )
    # "Ada-related films" may be the films she directed or acted in: worded as "which"
    assert wording_form(Template(((directed,),)), "compound", schema) is None
    both = Template(((produced,), (directed,)))
    text = word_question(
        both, [AnchorText("Acme", "studio"), AnchorText("Ada", "person")], "compound", schema, random.Random(0)
    )
    assert text.startswith("Which Acme-related ") and text.endswith(" that Ada directed?")
    # a two-step chain has no compound form
    chain = Template(((Step("PRODUCED_BY", False, "Studio", "Film"), Step("DIRECTED", False, "Film", "Person")),))
    assert wording_form(chain, "compound", schema) is None


def _phrased_schema() -> SkbSchema:
    """The sequel schema with the author's phrases for each relation (`RelationType.phrases`)."""
    phrases = {
        "DIRECTED": (("directed",), ("was directed by",)),
        "ACTED_IN": (("acted in", "starred in"), ("starred",)),
        "PRODUCED_BY": (("was produced by",), ("produced",)),
        "SEQUEL_OF": (("is a sequel to",), ("has the sequel",)),
    }
    return _schema().model_copy(
        update={
            "relation_types": tuple(
                RelationType.model_validate(
                    {
                        "type": t,
                        "pairs": [{"source": s, "target": o}],
                        "phrases": phrases[t][0],
                        "inverse_phrases": phrases[t][1],
                    }
                )
                for s, t, o in SEQUEL_PATTERNS
            )
        }
    )


def test_a_relation_phrase_is_lower_case_words() -> None:
    for bad in ("Is located in", "is located in.", "", " borders", "is  in"):
        with pytest.raises(ValidationError):
            RelationType.model_validate({"type": "IN", "pairs": [{"source": "A", "target": "B"}], "phrases": [bad]})
    relation = RelationType.model_validate(
        {"type": "IN", "pairs": [{"source": "A", "target": "B"}], "inverse_phrases": ["is home to", "isn't-near"]}
    )
    assert relation.inverse_phrases == ("is home to", "isn't-near")


def test_phrases_word_a_step_with_either_node_first_agreeing_with_its_subject() -> None:
    phrasing = RelationPhrasing.of(_phrased_schema())
    produced = Step("PRODUCED_BY", True, "Film", "Studio")  # Film -[:PRODUCED_BY]-> Studio, walked from the film
    assert phrasing.anchor_first(produced) == ("was produced by",) and phrasing.reached_first(produced) == ("produced",)
    back = Step("PRODUCED_BY", False, "Studio", "Film")  # walked from the studio: the film is the subject
    assert phrasing.reached_first(back) == ("was produced by",) and phrasing.anchor_first(back) == ("produced",)
    texts = {
        word_question(
            Template(((back,),)), [AnchorText("Acme", "studio")], "which", _phrased_schema(), random.Random(s)
        )
        for s in range(30)
    }
    # the films as subject ("were produced by Acme"), or the studio ("that Acme produced")
    assert texts == {
        "Which movies were produced by Acme?",
        "Which films were produced by Acme?",
        "Which movies that Acme produced?",
        "Which films that Acme produced?",
    }
    # a plural clause as the subject of the second step agrees with it: "the films that Ada acted in were produced by"
    chain = Template(((Step("ACTED_IN", True, "Person", "Film"), produced),))
    worded = [
        word_question(chain, [AnchorText("Ada", "person")], family, _phrased_schema(), random.Random(s))
        for s in range(20)
        for family in ("which", "find", "list")
    ]
    assert any(" were produced by" in text for text in worded)
    assert not any(" was produced by" in text for text in worded)
    assert any(" produced the " in text for text in worded)  # or the studio as the subject


def test_with_phrases_every_question_says_a_phrase_of_each_relation_its_types_do_not_decide() -> None:
    schema = _phrased_schema()
    said = {
        relation.type: {
            form for phrase in (*relation.phrases, *relation.inverse_phrases) for form in (phrase, plural_verb(phrase))
        }
        for relation in schema.relation_types
    }
    for name, family, text, step in _steps_with_rivals_worded(schema):
        assert relation_words(step.relation) in text or any(p in text for p in said[step.relation]), (
            name,
            family,
            text,
        )


def test_an_implied_question_says_the_relation_by_its_phrase() -> None:
    schema = _phrased_schema()
    sequel = Template(((Step("SEQUEL_OF", False, "Film", "Film"),),))  # the films that are sequels to Heat
    texts = {
        word_question(sequel, [AnchorText("Heat", "film")], "implied", schema, random.Random(s)) for s in range(20)
    }
    assert texts == {"What is a sequel to Heat?", "Heat has the sequel what?"}


def test_a_role_noun_is_up_to_four_lower_case_words() -> None:
    for bad in ("Capital", "capital.", "", "a b c d e", "parent  term"):
        with pytest.raises(ValidationError):
            RelationType.model_validate(
                {"type": "IN", "pairs": [{"source": "A", "target": "B"}], "source_nouns": [bad]}
            )
    relation = RelationType.model_validate(
        {"type": "IN", "pairs": [{"source": "A", "target": "B"}], "target_nouns": ["parent term", "next-of-kin"]}
    )
    assert relation.target_nouns == ("parent term", "next-of-kin")


def _nouned_schema() -> SkbSchema:
    return SkbSchema.model_validate(
        {
            "name": "places",
            "node_types": [{"label": "Country"}, {"label": "City"}, {"label": "Language"}],
            "relation_types": [
                {
                    "type": "BORDERS",
                    "pairs": [{"source": "Country", "target": "Country"}],
                    "phrases": ["borders"],
                    "inverse_phrases": ["borders"],
                    "source_nouns": ["neighbour"],
                    "target_nouns": ["neighbour"],
                },
                {
                    "type": "CAPITAL_OF",
                    "pairs": [{"source": "City", "target": "Country"}],
                    "phrases": ["is the capital of"],
                    "inverse_phrases": ["has the capital"],
                    "source_nouns": ["capital"],
                },
                {
                    "type": "HAS_LANGUAGE",
                    "pairs": [{"source": "Country", "target": "Language"}],
                    "phrases": ["speaks"],
                    "inverse_phrases": ["is spoken in"],
                },
                # two pairs: "the members of X" would not say whether cities or countries are meant
                {
                    "type": "MEMBER_OF",
                    "pairs": [{"source": "City", "target": "Language"}, {"source": "Country", "target": "Language"}],
                    "source_nouns": ["member"],
                },
            ],
        }
    )


def test_the_nouns_family_says_steps_by_the_schemas_role_nouns() -> None:
    schema = _nouned_schema()
    capital = Step("CAPITAL_OF", False, "Country", "City")
    neighbour = Step("BORDERS", True, "Country", "Country")
    language = Step("HAS_LANGUAGE", True, "Country", "Language")
    chile = [AnchorText("Chile", "country")]

    def worded(template: Template) -> set[str]:
        return {word_question(template, chile, "nouns", schema, random.Random(s)) for s in range(30)}

    assert worded(Template(((capital,),))) == {"What are the capitals of Chile?", "Name Chile's capitals."}
    assert worded(Template(((neighbour, capital),))) == {
        "What are the capitals of Chile's neighbours?",
        "Name the capitals of the neighbours of Chile.",
    }
    # the step without nouns said by a phrase with the reached node first
    assert worded(Template(((neighbour, language),))) == {"Which languages are spoken in Chile's neighbours?"}
    # the first step said by a clause when only the last has nouns
    spoken = Step("HAS_LANGUAGE", False, "Language", "Country")
    assert {
        word_question(Template(((spoken, capital),)), [AnchorText("Quechua", "language")], "nouns", schema, rng)
        for rng in map(random.Random, range(30))
    } == {
        "What are the capitals of the countries that speak Quechua?",
        "What are the capitals of the countries that Quechua is spoken in?",
    }
    # no nouns, two legs, or a noun that leaves the reached type open: worded as "which"
    for template in (
        Template(((language,),)),
        Template(((capital,), (Step("BORDERS", False, "Country", "Country"),))),
        Template(((Step("MEMBER_OF", False, "Language", "City"),),)),
    ):
        assert wording_form(template, "nouns", schema) is None
    assert wording_form(Template(((neighbour, capital),)), "nouns", schema) == "short"


def test_the_heuristic_planner_reads_each_nouns_question_back_into_its_walk() -> None:
    schema = _nouned_schema()
    patterns = [(pair.source, r.type, pair.target) for r in schema.relation_types for pair in r.pairs]
    context = SkbContext(
        schema=schema,
        pattern_counts=dict.fromkeys(patterns, 100),
        label_counts={"Country": 250, "City": 9000, "Language": 500},
    )
    planner = HeuristicPlanner(context)
    names = {"Country": "Chile", "City": "Lima", "Language": "Quechua"}
    read = 0
    for template in schema_templates(patterns):
        leg = template.legs[0]
        if wording_form(template, "nouns", schema) != "short" or (
            len(leg) == 2 and leg[0].relation == leg[1].relation and leg[0].outgoing != leg[1].outgoing
        ):
            continue  # walking one relation back (the capitals of the country whose capital is X) has no answers
        anchor = template.legs[0][0].source
        question = word_question(template, [AnchorText(names[anchor], None)], "nouns", schema, random.Random(0))
        plan = planner.build(question, EntityTable((_row(names[anchor], anchor, 1.0),)))
        walked = [hop.relation for hop in plan.hops]
        assert (walked, plan.target.type) == ([step.relation for step in template.legs[0]], template.target), question
        read += 1
    assert read >= 8


def test_a_phrase_ending_in_an_article_never_ends_a_clause() -> None:
    schema = SkbSchema.model_validate(
        {
            "name": "terms",
            "node_types": [{"label": "Term"}],
            "relation_types": [
                {
                    "type": "IS_A",
                    "pairs": [{"source": "Term", "target": "Term"}],
                    "phrases": ["is a", "is a kind of"],
                    "inverse_phrases": ["is a parent of"],
                }
            ],
        }
    )
    up, down = Step("IS_A", True, "Term", "Term"), Step("IS_A", False, "Term", "Term")
    texts = {
        word_question(Template((leg,)), [AnchorText("Ataxia", "term")], family, schema, random.Random(seed))
        for leg in ((up,), (down,), (up, up), (down, up))
        for family in ("which", "find", "list", "implied")
        for seed in range(12)
    }
    assert not [t for t in texts if t.rstrip("?.").endswith((" is a", " are a", " is a what", " are a what"))]
    assert any(" are a Ataxia" in t or " are a kind of Ataxia" in t for t in texts)  # before a name it may stand
