"""Quoted keywords: what a question quotes that no mention covers is asked of the targets' names."""

from __future__ import annotations

from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner, frame_words
from grasp_agent.graph_branch.mentions import MentionRole
from grasp_agent.graph_branch.plan import parse_plan
from grasp_agent.graph_branch.planning import PlanCheck
from grasp_agent.graph_branch.quoted_words import modifier_keywords, quoted_keywords
from tests.unit.test_graph_branch_units import HPO_CONTEXT, _row


def test_a_short_quoted_passage_no_mention_covers_is_a_keyword() -> None:
    assert quoted_keywords('Unsteady gait -> diseases named "spastic"', ["Unsteady gait"]) == ("spastic",)
    assert quoted_keywords("What “Larsen-Like” conditions present with X?", ["X"]) == ("Larsen-Like",)
    # a passage a mention covers (a described entity) is no keyword, nor is a long one (a description)
    assert quoted_keywords('the phenotype defined as "Short stature"', ["Short stature"]) == ()
    assert quoted_keywords('diseases with "an abnormal shape of the skull"', []) == ()
    # nothing quoted, empty quotes, punctuation only
    assert quoted_keywords("Which diseases present with Seizure?", ["Seizure"]) == ()
    assert quoted_keywords('diseases named "" or "--"', []) == ()
    # a mention elsewhere in the question does not cover the quote; repeats count once; at most four
    assert quoted_keywords('spastic gait: diseases named "spastic"', ["spastic gait"]) == ("spastic",)
    assert quoted_keywords('"a" "b" "a" "c" "d" "e"', []) == ("a", "b", "c", "d")


def test_the_planner_asks_quoted_keywords_of_the_targets_names() -> None:
    table = EntityTable((_row("Unsteady gait", "Phenotype", 1.0),))
    plan = HeuristicPlanner(HPO_CONTEXT).build('Unsteady gait -> diseases named "spastic"', table)
    assert plan.target.type == "Disease" and plan.name_contains == ("spastic",)
    assert '"name_contains":["spastic"]' in plan.to_json() and parse_plan(plan.to_json()) == plan
    plain = HeuristicPlanner(HPO_CONTEXT).build("Which diseases present with Unsteady gait?", table)
    assert plain.name_contains == () and "name_contains" not in plain.to_json()


# share of the disease names holding each word (as `NameDictionary.name_shares` reads them from the SKB)
SHARES = {"chylous": 0.0002, "early": 0.01, "onset": 0.015, "syndrome": 0.27, "related": 0.012, "rare": 0.0001}


def test_a_word_few_names_of_the_asked_type_hold_right_before_its_type_word_is_a_keyword() -> None:
    frame = frame_words(HPO_CONTEXT)

    def read(question: str, type_words: str, mentions: list[str]) -> tuple[str, ...]:
        return modifier_keywords(question, type_words, mentions, SHARES, frame)

    assert read("Which Chylous disorder has Pancreatitis?", "disorder", ["Pancreatitis"]) == ("Chylous",)
    assert read("the early-onset diseases with Myopia", "diseases", ["Myopia"]) == ("early-onset",)
    assert read("rare chylous conditions featuring myopia", "conditions", ["myopia"]) == ("rare", "chylous")
    # a word many names hold, a frame word, a word no name holds, punctuation or a mention's compound end it
    assert read("Which syndrome disorder has X?", "disorder", ["X"]) == ()
    assert read("Which disorder has X?", "disorder", ["X"]) == ()
    assert read("Which lovely disorder has X?", "disorder", ["X"]) == ()
    assert read("Pancreatitis, chylous: diseases?", "diseases", ["Pancreatitis"]) == ()
    assert read("Which KCNQ2-related disorder has X?", "disorder", ["KCNQ2", "X"]) == ()
    assert read("Which foo chylous disorder has X?", "disorder", ["foo chylous", "X"]) == ()
    # a one-word mention right before the type word is a keyword too (it stays an anchor)
    assert read("Which chylous disorder has X?", "disorder", ["chylous", "X"]) == ("chylous",)
    # so is a compound holding mentions when the names hold each of its words, not one whose other word they do not
    shares = {**SHARES, "parkinsonism": 0.001, "dystonia": 0.01}
    compound = "List the parkinsonism-dystonia disorders with X."
    assert modifier_keywords(compound, "disorders", ["parkinsonism", "dystonia", "X"], shares, frame) == (
        "parkinsonism-dystonia",
    )
    assert modifier_keywords(compound, "disorders", ["parkinsonism", "X"], shares, frame) == ("parkinsonism-dystonia",)
    assert read("Which early-onset disorder has X?", "disorder", ["onset", "X"]) == ("early-onset",)
    assert modifier_keywords(compound, "disorders", ["parkinsonism", "X"], SHARES, frame) == ()  # no "dystonia"
    # the type word inside a mention is not the asked one; the one after it is read
    assert read("Chylous disease type 2 aside, which chylous disease?", "disease", ["Chylous disease type 2"]) == (
        "chylous",
    )


def test_the_planner_asks_unquoted_keywords_of_the_names_only_with_the_names_shares() -> None:
    # the extractor's entity table holds the asked type's words as a target mention
    target = _row("disorder", "Disease", 0.6, role=MentionRole.TARGET)
    table = EntityTable((_row("Pancreatitis", "Phenotype", 1.0), target))
    question = "Which Chylous disorder has Pancreatitis?"
    assert HeuristicPlanner(HPO_CONTEXT).build(question, table).name_contains == ()
    shares = {"Disease": SHARES}
    planner = HeuristicPlanner(HPO_CONTEXT, name_shares=lambda label: shares.get(label, {}))
    assert planner.build(question, table).name_contains == ("Chylous",)
    quoted = planner.build('Which "Lymph" Chylous disorder has Pancreatitis?', table)
    assert quoted.name_contains == ("Lymph", "Chylous")  # quoted first


def test_the_mentions_of_a_compound_name_keyword_are_no_anchors() -> None:
    target = _row("disorders", "Disease", 0.6, role=MentionRole.TARGET)
    rows = (
        _row("parkinsonism", "Phenotype", 1.0),
        _row("dystonia", "Phenotype", 1.0),
        _row("Anarthria", "Phenotype", 1.0),
    )
    table = EntityTable((*rows, target))
    shares = {"Disease": {"parkinsonism": 0.001, "dystonia": 0.01}}
    planner = HeuristicPlanner(HPO_CONTEXT, name_shares=lambda label: shares.get(label, {}))
    plan = planner.build("List the parkinsonism-dystonia disorders annotated with Anarthria.", table)
    assert plan.name_contains == ("parkinsonism-dystonia",)
    assert [anchor.text for anchor in plan.anchors] == ["Anarthria"]
    # one mention before the type word stays an anchor, and is a keyword too
    one = planner.build("List the dystonia disorders annotated with Anarthria.", EntityTable((*rows[1:], target)))
    assert one.name_contains == ("dystonia",) and [a.text for a in one.anchors] == ["dystonia", "Anarthria"]
    # a mention that is a part of a compound keyword is a word of the name, not an entity: "early-onset" names no
    # phenotype "Onset"
    onset = (_row("onset", "Phenotype", 1.0), rows[2], target)
    shares["Disease"] |= {"early": 0.01, "onset": 0.015}
    part = planner.build("List the early-onset disorders annotated with Anarthria.", EntityTable(onset))
    assert part.name_contains == ("early-onset",) and [a.text for a in part.anchors] == ["Anarthria"]


def test_a_mention_that_is_also_the_name_keyword_is_set_aside_in_a_fallback_plan() -> None:
    target = _row("disorders", "Disease", 0.6, role=MentionRole.TARGET)
    table = EntityTable((_row("Myopia", "Phenotype", 1.0), _row("reduced visual acuity", "Phenotype", 1.0), target))
    shares = {"Disease": {"myopia": 0.004}}
    planner = HeuristicPlanner(HPO_CONTEXT, name_shares=lambda label: shares.get(label, {}))
    outcome = planner.plan("Which Myopia disorders cause reduced visual acuity?", table, lambda plan: PlanCheck(True))
    assert outcome.plan is not None and outcome.plan.name_contains == ("Myopia",)
    assert [a.text for a in outcome.plan.anchors] == ["Myopia", "reduced visual acuity"]
    # run when no target of the plan holds "Myopia": diseases so named need not be annotated with the phenotype
    fallback = outcome.keyword_fallback
    assert fallback is not None and fallback.name_contains == ("Myopia",)
    assert [a.text for a in fallback.anchors] == ["reduced visual acuity"]
    assert any("the plan without the anchor 'Myopia' runs" in note for note in outcome.notes)
    # no keyword, or a keyword no anchor's words make up: nothing to set aside
    plain = planner.plan("Which disorders cause reduced visual acuity?", table, lambda plan: PlanCheck(True))
    assert plain.keyword_fallback is None
    myopia = EntityTable((table.rows[0], target))
    quoted = planner.plan('Which disorders named "Bornholm" cause Myopia?', myopia, lambda plan: PlanCheck(True))
    assert quoted.plan is not None and quoted.plan.name_contains == ("Bornholm",)
    assert quoted.keyword_fallback is None
    # an invalid fallback is none
    checked = planner.plan(
        "Which Myopia disorders cause reduced visual acuity?", table, lambda plan: PlanCheck(len(plan.anchors) > 1)
    )
    assert checked.keyword_fallback is None
