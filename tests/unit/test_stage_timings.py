"""Stage timings from hand-placed spans and a scripted clock: how the branches' overlap is measured and how
`grasp eval` times graph, grasp and grasp+rerank from one pipeline run (nested by construction, so the live
tests need not compare wall-clock times of a busy machine)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from grasp_agent.evaluation import runner
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.pipeline.options import SearchOptions
from grasp_agent.pipeline.results import parallel_timing
from grasp_agent.pipeline.state import StageSpan

GRAPH = {
    "extract": StageSpan(0.0, 1.0),
    "link": StageSpan(1.0, 2.0),
    "plan": StageSpan(2.0, 3.0),
    "execute": StageSpan(3.0, 5.0),
}


def test_overlapping_branches_take_the_union_of_their_spans() -> None:
    timing = parallel_timing(GRAPH, StageSpan(0.5, 4.0))
    assert timing is not None
    assert (timing.graph_ms, timing.text_ms, timing.wall_ms, timing.overlap_ms) == (5000.0, 3500.0, 5000.0, 3500.0)


def test_branches_one_after_the_other_do_not_overlap() -> None:
    timing = parallel_timing(GRAPH, StageSpan(6.0, 7.0))
    assert timing is not None and timing.overlap_ms == 0.0 and timing.wall_ms == 7000.0
    assert parallel_timing(GRAPH, None) is None and parallel_timing({}, StageSpan(0.0, 1.0)) is None


class ScriptedGrasp:
    """`grasp.run` returning a finished state with hand-placed spans."""

    def run(self, question: str, options: SearchOptions) -> dict[str, Any]:
        return {
            "question": question,
            "graph_spans": GRAPH,
            "spans": {"text": StageSpan(0.5, 4.0), "fuse": StageSpan(5.0, 5.5), "rerank": StageSpan(5.5, 7.0)},
        }


def test_eval_times_its_pipeline_systems_from_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    clock: Iterator[float] = iter([0.0, 7.5])  # before and after the whole run
    monkeypatch.setattr(runner, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    query = EvalQuery(id="q1", text="Which diseases present with spasms?", answer_ids=("D1",))
    runs = runner._run_pipeline(ScriptedGrasp(), query, SearchOptions())  # type: ignore[arg-type]
    # graph: its branch's span; grasp: both branches' union plus fusion; grasp+rerank: the whole run
    assert {name: run.latency_ms for name, run in runs.items()} == {
        "graph": 5000.0,
        "grasp": 5500.0,
        "grasp+rerank": 7500.0,
    }
