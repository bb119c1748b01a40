"""`grasp eval` without the systems: the request checked before anything is read, queries without answers in the
SKB refused or dropped, saved runs re-scored into the folder they came from, and the report files written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grasp_agent.evaluation.query_sets import EvalQuery, QueryFileError, write_queries
from grasp_agent.evaluation.report import build_report, to_json_dict
from grasp_agent.evaluation.run_files import write_runs
from grasp_agent.evaluation.runner import EvaluationError
from grasp_agent.evaluation.session import (
    EvaluationRequest,
    answerable,
    prepare_evaluation,
    report_folder,
    rescore_runs,
    write_report,
)
from tests.unit.test_run_files import QUERIES, RESULTS


def query_file(tmp_path: Path, queries: list[EvalQuery]) -> Path:
    path = tmp_path / "queries.jsonl"
    write_queries(path, queries)
    return path


def test_systems_are_checked_before_the_query_file_is_read(tmp_path: Path) -> None:
    absent = tmp_path / "absent.jsonl"
    with pytest.raises(EvaluationError, match=r"systems \['bm25', 'bm26'\] refused \(unknown: \['bm26'\]\)"):
        prepare_evaluation(EvaluationRequest(absent, ("bm25", "bm26")))
    with pytest.raises(QueryFileError, match="query file not found"):
        prepare_evaluation(EvaluationRequest(absent, ("bm25",)))


def test_prepared_systems_lose_repeats_and_queries_are_the_split_then_the_limit(tmp_path: Path) -> None:
    queries = [
        query.model_copy(update={"split": split})
        for query, split in zip(QUERIES, ("test", "valid", "test"), strict=True)
    ]
    path = query_file(tmp_path, queries)
    prepared = prepare_evaluation(EvaluationRequest(path, ("grasp", "bm25", "grasp"), split="test", limit=1))
    assert prepared.systems == ["grasp", "bm25"]
    assert [query.id for query in prepared.queries] == ["q1"]
    assert [query.id for query in prepare_evaluation(EvaluationRequest(path, ("bm25",), split="test")).queries] == [
        "q1",
        "q3",
    ]
    assert len(prepare_evaluation(EvaluationRequest(path, ("bm25",))).queries) == 3


def test_queries_written_for_another_skb_are_refused_unless_some_can_run_and_missing_ones_are_allowed() -> None:
    present = [1, "G2", "P9"]  # STaRK ids are integers: they compare as text with the answer ids
    queries = [QUERIES[0].model_copy(update={"answer_ids": ("1",)}), *QUERIES[1:]]
    assert answerable(queries, present, "hpo") == queries
    with pytest.raises(EvaluationError) as refused:
        answerable(queries, ["G2", "P9"], "hpo", allow_missing=False)
    assert str(refused.value) == (
        "1 of 3 queries have no answer node in the loaded SKB 'hpo' (e.g. q1 -> ['1']): "
        "these queries were written for another knowledge base; --allow-missing runs the rest"
    )
    assert answerable(queries, ["G2", "P9"], "hpo", allow_missing=True) == queries[1:]
    with pytest.raises(EvaluationError, match=r"^3 of 3 queries .* another knowledge base$"):
        answerable(queries, ["X"], "prime", allow_missing=True)  # nothing would run: refused all the same


def test_a_report_goes_to_the_folder_grasp_eval_wrote(tmp_path: Path) -> None:
    assert report_folder(tmp_path / "eval" / "runs") == tmp_path / "eval"
    assert report_folder(tmp_path / "eval") == tmp_path / "eval"
    assert report_folder(tmp_path / "eval" / "runs", tmp_path / "elsewhere") == tmp_path / "elsewhere"


def test_rescored_runs_write_the_report_beside_them_and_score_the_queries_that_ran(tmp_path: Path) -> None:
    runs_dir = write_runs(RESULTS, tmp_path / "eval")
    path = query_file(tmp_path, [*QUERIES[:2], EvalQuery(id="q9", text="never run", answer_ids=("X",))])
    outcome = rescore_runs(runs_dir, path)
    assert outcome.queries == 2 and outcome.wall_s == 0.0 and outcome.runs_dir is None
    assert outcome.written.files[:2] == (tmp_path / "eval" / "results.json", tmp_path / "eval" / "report.md")
    meta = outcome.written.document["meta"]
    assert meta == {
        "queries_file": str(path),
        "split": None,
        "queries": 2,
        "systems": ["bm25", "grasp", "grasp+rerank"],
        "rescored_from": str(runs_dir),
    }
    assert [score.queries for score in outcome.report.scores] == [2, 2, 2]
    assert (
        (tmp_path / "eval" / "report.md")
        .read_text()
        .startswith(f"2 queries from `{path}` (split all), re-scored from saved runs in `{runs_dir}`\n\n| system |")
    )
    with pytest.raises(EvaluationError, match=r"none of the 1 queries of .* \(split all\) was run in"):
        rescore_runs(runs_dir, query_file(tmp_path / "eval", [EvalQuery(id="q9", text="x", answer_ids=("X",))]))


def test_write_report_writes_json_markdown_and_a_plot_per_grouping_the_queries_carry(tmp_path: Path) -> None:
    report = build_report(RESULTS, QUERIES)
    written = write_report(report, tmp_path / "new", {"queries": 3}, "three queries")
    assert [path.name for path in written.files] == [
        "results.json",
        "report.md",
        "hit1_by_hops.png",
        "hit1_by_level.png",
        "hit1_by_template.png",
    ]
    assert written.document == json.loads((tmp_path / "new" / "results.json").read_text())
    assert written.document["meta"] == {"queries": 3}
    assert written.document["scores"] == json.loads(json.dumps(to_json_dict(report)["scores"]))
    assert (tmp_path / "new" / "report.md").read_text().startswith("three queries\n\n| system |")
    assert (tmp_path / "new" / "hit1_by_hops.png").read_bytes()[:4] == b"\x89PNG"
    bare = [query.model_copy(update={"template": None, "hops": None, "level": None}) for query in QUERIES]
    plain = write_report(build_report(RESULTS, bare), tmp_path / "bare", {}, "no metadata")
    assert [path.name for path in plain.files] == ["results.json", "report.md"]
    assert not list((tmp_path / "bare").glob("*.png"))
