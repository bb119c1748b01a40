"""One reading of a question's quotation marks for the span finder, the planner and the described-entity finder."""

from __future__ import annotations

from grasp_agent.graph_branch.described_mentions import candidate_clauses
from grasp_agent.graph_branch.quotes import quoted_ranges, quoted_spans


def test_consecutive_marks_of_any_kind_pair_and_a_stray_one_opens_nothing() -> None:
    question = 'diseases named "" or "spastic"'
    assert quoted_ranges(question) == [(15, 16), (21, 29)]
    assert [question[s + 1 : e] for s, e in quoted_ranges(question)] == ["", "spastic"]
    assert [question[s:e] for s, e in quoted_spans(question)] == ['""', '"spastic"']
    typographic = 'the «Larsen-like» and “Marfan-like” forms, 5" tall'
    assert [typographic[s + 1 : e] for s, e in quoted_ranges(typographic)] == ["Larsen-like", "Marfan-like"]
    assert quoted_ranges("nothing quoted") == [] and quoted_ranges('one " mark') == []


def test_the_described_entity_finder_reads_quotes_as_the_others_do() -> None:
    # the empty pair used to swallow ' or ' as a passage and leave the description unquoted
    clauses = [clause.text for clause in candidate_clauses('"" or "an abnormal curvature of the spine"')]
    assert "an abnormal curvature of the spine" in clauses and "or" not in clauses
