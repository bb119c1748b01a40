"""Keywords a question frames by the word for a name ('whose name contains X') are asked of the answer's name."""

from __future__ import annotations

from grasp_agent.graph_branch.described_mentions import candidate_clauses, clause_frame, description_words
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.function_words import FUNCTION_WORDS
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.graph_branch.mentions import MentionRole
from grasp_agent.graph_branch.name_dictionary import DictionaryEntry, NameDictionary
from grasp_agent.graph_branch.name_frames import called_keywords, framed_keywords, name_words
from grasp_agent.graph_branch.schema_paths import asked_slot_word
from grasp_agent.graph_branch.span_mentions import SpanMentionFinder, candidate_spans
from grasp_agent.skb.hpo import HPO_SCHEMA
from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row

WORDS = name_words(["name", "full_title"])


def read(question: str, words: frozenset[str] = WORDS) -> list[str]:
    return [question[start:end] for start, end in framed_keywords(question, words)]


def test_the_words_for_a_name_come_from_the_schemas_name_fields() -> None:
    assert name_words([]) == frozenset({"name"})
    assert frozenset({"name", "full", "title"}) == WORDS
    assert name_words(["id"]) == frozenset({"name"})  # too short to be a word a question uses


def test_a_word_a_name_is_said_to_hold_is_a_keyword() -> None:
    assert read("Among the diseases whose name contains spastic, which present Unsteady gait?") == ["spastic"]
    assert read("Which disorders have names including X-linked and present Y?") == ["X-linked"]
    assert read("diseases with the word Usher in their name") == ["Usher"]
    assert read("a film whose title starts with Star Wars Episode, from 1977") == ["Star Wars Episode"]
    assert read("countries with land in the name") == ["land"]
    # a lower-case keyword is one word: nothing marks where an unquoted keyword ends
    assert read("diseases whose name has upper limb in it") == ["upper"]


def test_no_keyword_without_a_name_holding_it() -> None:
    assert read("What is the name of the gene with X?") == []
    assert read("Which diseases are named after Usher?") == []
    assert read("Which diseases have Unsteady gait?") == []
    assert read('genes whose names include "KCN"') == []  # quoted: the quoted-keyword reader takes it
    assert read("a film whose title starts with Star", frozenset({"name"})) == []  # not this schema's word


def test_the_planner_asks_a_framed_keyword_of_the_names_and_reads_name_as_a_noun() -> None:
    question = "Among the diseases whose name contains spastic, which present Unsteady gait?"
    table = EntityTable((_row("Unsteady gait", "Phenotype", 1.0),))
    plan = HeuristicPlanner(HPO_CONTEXT).build(question, table)
    assert plan.target.type == "Disease" and plan.name_contains == ("spastic",)
    # "name" after a determiner is no imperative ("Name the genes ..."), so "contains" is no asked noun
    assert asked_slot_word(question, HPO_SCHEMA, ["Unsteady gait"]) is None
    assert asked_slot_word("Name the dx with Unsteady gait", HPO_SCHEMA, ["Unsteady gait"]) is not None


def test_the_span_finder_links_no_name_inside_a_framed_keyword() -> None:
    dictionary = NameDictionary(
        [
            ("Spastic", DictionaryEntry("HP:0001257", "Phenotype", "Spasticity")),
            ("Unsteady gait", DictionaryEntry("HP:0002317", "Phenotype", "Unsteady gait")),
        ]
    )
    finder = SpanMentionFinder(None, None, HPO_SCHEMA, dictionary=dictionary)  # type: ignore[arg-type]
    framed = "Among the diseases whose name contains spastic, which present Unsteady gait?"
    assert [item.span.text for item in finder._exact_spans(framed)] == ["Unsteady gait"]
    plain = "Which spastic diseases present Unsteady gait?"
    assert [item.span.text for item in finder._exact_spans(plain)] == ["spastic", "Unsteady gait"]


def test_a_span_ending_in_a_plural_type_word_names_a_set_and_is_not_linked_by_its_cosine() -> None:
    finder = SpanMentionFinder(None, None, HPO_SCHEMA)  # type: ignore[arg-type]  # reads the schema only
    question = "List the Rhizomelic disorders annotated with Hip contracture."
    spans = {span.text: span for span in candidate_spans(question)}
    assert finder._ends_in_a_set(spans["Rhizomelic disorders"])
    assert not finder._ends_in_a_set(spans["Rhizomelic"])
    assert not finder._ends_in_a_set(spans["Hip contracture"])
    single = {span.text: span for span in candidate_spans("Which Rhizomelic disorder has X?")}
    assert not finder._ends_in_a_set(single["Rhizomelic disorder"])  # a name may end in a singular type word


def test_a_relative_clause_after_in_its_name_belongs_to_the_noun_before() -> None:
    # the film features Harrison Ford; its title holds Star only
    assert read("Find me a film with Star in its title that features Harrison Ford") == ["Star"]
    assert read("diseases with upper in their name which have Unsteady gait") == ["upper"]
    assert read("Which films have a title that contains Star?") == ["Star"]  # here the title holds it


def test_a_framed_keyword_belongs_to_no_described_clause() -> None:
    question = "i'm searching for a disorder with usher in its name that shows slowly worsening loss of hearing"
    keywords = framed_keywords(question, name_words(["name"]))
    frame = clause_frame(HPO_SCHEMA)
    trailing = FUNCTION_WORDS | description_words(HPO_SCHEMA)
    read_alone = [c.text for c in candidate_clauses(question, frame, trailing=trailing)]
    assert any("usher" in text for text in read_alone)  # "searching ... usher": three content words
    clauses = [c.text for c in candidate_clauses(question, frame, trailing=trailing, keywords=keywords)]
    assert clauses == ["slowly worsening loss of hearing"]


def test_a_name_given_outright_is_a_keyword_that_may_also_be_a_mention() -> None:
    def called(question: str) -> list[str]:
        return [question[start:end] for start, end in called_keywords(question)]

    assert called("The doctor mentioned something called early-onset for my son's poor speech.") == ["early-onset"]
    assert called("I read about something named Van Maldergem syndrome") == ["Van Maldergem"]  # a capitalised run
    assert called("Is there something called the X?") == []  # a function word is no name
    # after a noun the words name that entity, a mention: "the country called Chad" is no keyword of its neighbours
    assert called("Which countries border the one called Chad?") == []
    assert called("Which cities are located in the country named France?") == []
    assert called("Which diseases present with Seizure?") == []
    target = _row("disease", "Disease", 0.6, role=MentionRole.TARGET)
    planner = HeuristicPlanner(HPO_CONTEXT)
    # a mention that is a part of it is a word of the name, no entity ("onset" of "early-onset")
    vignette = (
        "The doctor mentioned something called early-onset for my son's poor speech. Which disease could that be?"
    )
    table = EntityTable((_row("onset", "Phenotype", 1.0), _row("poor speech", "Phenotype", 1.0), target))
    plan = planner.build(vignette, table)
    assert plan.name_contains == ("early-onset",) and [a.text for a in plan.anchors] == ["poor speech"]
    # a whole mention stays an anchor too ("a gene called FBN1" names the gene)
    myopia = vignette.replace("early-onset", "Myopia")
    whole = EntityTable((_row("Myopia", "Phenotype", 1.0), _row("poor speech", "Phenotype", 1.0), target))
    kept = planner.build(myopia, whole)
    assert kept.name_contains == ("Myopia",) and [a.text for a in kept.anchors] == ["Myopia", "poor speech"]
