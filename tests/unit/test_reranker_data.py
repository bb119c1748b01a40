"""Reranker training data: positives and hard negatives from a fused pool, groups, the JSONL file."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, cast

import pytest

from grasp_agent.pipeline.state import FinalRanking, PipelineState
from grasp_agent.rerank.documents import CandidateDocument
from grasp_agent.training.reranker_data import (
    Candidate,
    RerankDataError,
    RerankQuestion,
    listwise_groups,
    question_candidates,
    read_rerank_data,
    write_rerank_data,
)
from grasp_agent.training.reranker_train import _lr_factor, _ranking_metrics, fused_metrics


def _state(ids: list[str], missing: frozenset[str] = frozenset()) -> PipelineState:
    documents = {
        node_id: CandidateDocument(node_id, "Gene", node_id, f"doc {node_id}")
        for node_id in ids
        if node_id not in missing
    }
    final = FinalRanking(tuple(ids), tuple(1.0 / (i + 1) for i in range(len(ids))), False, None, (), documents)
    return cast(PipelineState, {"final": final})


def test_positives_and_the_highest_ranked_wrong_candidates() -> None:
    ids = [f"n{i}" for i in range(10)]
    found = question_candidates(_state(ids, missing=frozenset({"n1"})), ["n3", "n8", "x"], pool=9, negatives=4)
    assert found is not None
    positives, negatives = found
    assert [(c.node_id, c.fused_rank) for c in positives] == [("n3", 4), ("n8", 9)]
    # n1 has no document, so it can be neither; negatives are the best-ranked wrong ones in fused order.
    assert [c.node_id for c in negatives] == ["n0", "n2", "n4", "n5"]
    assert question_candidates(_state(ids), ["n9"], pool=9)[0] == []  # type: ignore[index]  # outside the pool
    assert question_candidates(cast(PipelineState, {}), ["n1"]) is None


def _question(name: str, positives: int, negatives: int) -> RerankQuestion:
    return RerankQuestion(
        f"q {name}",
        "train",
        "t",
        tuple(Candidate(f"{name}p{i}", f"pos {name} {i}", i + 1) for i in range(positives)),
        tuple(Candidate(f"{name}n{i}", f"neg {name} {i}", i + 10) for i in range(negatives)),
    )


def test_groups_put_the_positive_first_and_never_use_a_positive_as_negative() -> None:
    data = [_question("a", 3, 30), _question("b", 1, 5)]
    groups = list(listwise_groups(data, random.Random(0), group_size=24, max_positives=2))
    assert len(groups) == 3  # two of a's three positives, b's one
    for group in groups:
        assert group.documents[0].startswith("pos") and all(d.startswith("neg") for d in group.documents[1:])
    sizes = sorted(len(group.documents) for group in groups)
    assert sizes == [6, 24, 24]  # b has only 5 negatives
    with pytest.raises(RerankDataError, match="group size 1"):
        list(listwise_groups(data, random.Random(0), group_size=1))


def test_data_file_round_trips_and_bad_lines_are_named(tmp_path: Path) -> None:
    data = [_question("a", 2, 3), _question("b", 1, 1)]
    path = tmp_path / "data.jsonl"
    assert write_rerank_data(path, data) == 2
    assert read_rerank_data(path) == data
    path.write_text('{"question": "q", "positives": [{"node_id": "x"}], "negatives": []}\n', encoding="utf-8")
    with pytest.raises(RerankDataError, match="data.jsonl:1: a candidate lacks"):
        read_rerank_data(path)
    with pytest.raises(RerankDataError, match="does not exist"):
        read_rerank_data(tmp_path / "none.jsonl")


def test_ranking_metrics_and_the_fused_baseline() -> None:
    assert _ranking_metrics([([0.1, 0.9, 0.5], [False, True, False]), ([0.9, 0.1], [False, True])]) == (0.5, 0.75)
    # The fused order ranks by fused_rank: question a's first positive is rank 1; b's positive at 5 is behind 3.
    b = RerankQuestion("q", "valid", None, (Candidate("p", "p", 5),), (Candidate("n", "n", 3),))
    assert fused_metrics([_question("a", 1, 2), b]) == (0.5, 0.75)


def test_learning_rate_warms_up_then_decays() -> None:
    factors: list[Any] = [_lr_factor(step, 100, 10) for step in range(100)]
    assert factors[0] == pytest.approx(0.1) and factors[9] == pytest.approx(1.0)
    assert factors[10] == pytest.approx(1.0) and factors[-1] < 0.01
    assert all(later <= earlier for earlier, later in zip(factors[10:], factors[11:], strict=False))
