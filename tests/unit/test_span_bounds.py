"""The name-span finder's bounds (#32): a long question's spans are linked fewest words first up to a cap, and
at most MAX_MENTIONS anchors are kept, best first; questions of the eval sets' sizes are never cut."""

from __future__ import annotations

import json
import random
from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.graph_branch.span_mentions import (
    FIRST_CHUNK_SPANS,
    MAX_MENTIONS,
    MAX_SPAN_WORDS,
    ScoredSpan,
    Span,
    bounded_spans,
    candidate_spans,
    choose_spans,
)

EVAL = Path(__file__).resolve().parents[2] / "docs" / "eval"


def _crafted(seed: int = 32) -> str:
    words = random.Random(seed)
    return " ".join("".join(words.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(2)) for _ in range(664))


def test_a_crafted_question_is_cut_to_the_cap_shortest_spans_first() -> None:
    spans = candidate_spans(_crafted(), MAX_SPAN_WORDS)
    assert len(spans) > 5000  # what used to be embedded and linked: a minute of work
    kept = bounded_spans(spans, Settings().mention_max_spans)
    assert len(kept) == Settings().mention_max_spans == 256
    assert [span.words for span in kept] == [1] * 256  # every word alone before any pair
    assert [span.start for span in kept] == sorted(span.start for span in kept)


def test_the_eval_sets_questions_fit_the_first_chunk_so_no_budget_cuts_them() -> None:
    files = [EVAL / "hpo_bench.jsonl", EVAL / "novel-wording" / "novel-wording.jsonl"]
    questions = [
        record.get("query") or record["text"]
        for path in files
        for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    ]
    most = max(len(candidate_spans(question, MAX_SPAN_WORDS)) for question in questions)
    assert most <= FIRST_CHUNK_SPANS <= Settings().mention_max_spans


def test_at_most_max_mentions_are_chosen_best_first_in_question_order() -> None:
    candidates, start = [], 0
    for index in range(12):  # twelve one-word spans "w0 w1 ... w11", later ones linked closer
        text = f"w{index}"
        candidates.append(ScoredSpan(Span(start, start + len(text), text, 1), 0.9 + index / 100, ("T",)))
        start += len(text) + 1
    chosen = choose_spans(candidates)
    assert len(chosen) == MAX_MENTIONS == 6
    assert [span.text for span, _ in chosen] == [f"w{i}" for i in range(6, 12)]  # the best six, in order
    assert len(choose_spans(candidates, max_mentions=100)) == 12
