"""Saved runs: what `grasp eval` writes reads back to the same report, `grasp eval score` re-scores it without a
database, TREC run files follow the format, and a broken run file is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grasp_agent.cli.main import app
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.evaluation.report import build_report, to_json_dict
from grasp_agent.evaluation.run_files import read_runs, write_runs
from grasp_agent.evaluation.runner import EvaluationError, QueryRun, SystemRuns

QUERIES = [
    EvalQuery(
        id="q1",
        text="Which diseases present with spasms?",
        answer_ids=("D1",),
        split="test",
        template="t1",
        hops=1,
        level="explicit",
    ),
    EvalQuery(
        id="q2",
        text="Which genes cause D2?",
        answer_ids=("G2", "G3"),
        split="test",
        template="t2",
        hops=2,
        level="implicit",
    ),
    EvalQuery(id="q3", text="Which phenotypes?", answer_ids=("P9",), split="test", template="t1", hops=1, level="bare"),
]
RESULTS = {  # in `grasp eval`'s system order, as read_runs returns them
    "bm25": SystemRuns(
        "bm25", [QueryRun("q1", ("P1", "D1"), 1.5), QueryRun("q2", ("G3",), 2.0), QueryRun("q3", (), 1.0)]
    ),
    "grasp": SystemRuns(
        "grasp", [QueryRun("q1", ("D1",), 100.0), QueryRun("q2", ("G2",), 90.0), QueryRun("q3", ("P 9", 7), 80.0)]
    ),
    "grasp+rerank": SystemRuns(
        "grasp+rerank",
        [
            QueryRun("q1", ("D1", "P1"), 300.0, stages_ms={"rerank": 200.0}),
            QueryRun("q2", ("G1", "G2", "G3"), 280.0),
            QueryRun("q3", (), 50.0, failure="no anchor"),
        ],
    ),
}


def test_saved_runs_read_back_to_the_same_report(tmp_path: Path) -> None:
    write_runs(RESULTS, tmp_path, {"q1": {"Dravet syndrome"}})
    results, names = read_runs(tmp_path)
    assert list(results) == ["bm25", "grasp", "grasp+rerank"]  # grasp eval's system order
    assert results["grasp"].runs[2].ranked == ("P 9", 7)  # JSON types kept: an integer id stays one
    assert names == {"q1": {"Dravet syndrome"}}
    assert to_json_dict(build_report(results, QUERIES)) == to_json_dict(build_report(RESULTS, QUERIES))


def test_trec_run_files_have_six_columns_and_one_line_per_rank(tmp_path: Path) -> None:
    runs_dir = write_runs(RESULTS, tmp_path)
    lines = (runs_dir / "grasp_rerank.trec").read_text().splitlines()
    assert lines[0] == "q1 Q0 D1 1 1.000000 grasp_rerank"
    assert len(lines) == 5 and all(len(line.split()) == 6 for line in lines)
    assert "q3 Q0 P_9 1 1.000000 grasp" in (runs_dir / "grasp.trec").read_text()  # whitespace cannot split columns


def test_grasp_eval_score_reproduces_the_report_without_a_database(tmp_path: Path) -> None:
    write_runs(RESULTS, tmp_path / "eval")
    query_file = tmp_path / "queries.jsonl"
    query_file.write_text(
        "".join(
            json.dumps(
                {
                    "id": q.id,
                    "query": q.text,
                    "answer_ids": list(q.answer_ids),
                    "split": q.split,
                    "template": q.template,
                    "hops": q.hops,
                    "level": q.level,
                }
            )
            + "\n"
            for q in QUERIES
        )
    )
    done = CliRunner().invoke(
        app, ["eval", "score", "--runs", str(tmp_path / "eval"), "--queries", str(query_file), "--split", "test"]
    )
    assert done.exit_code == 0, done.output
    written = json.loads((tmp_path / "eval" / "results.json").read_text())
    expected = to_json_dict(build_report(RESULTS, QUERIES))
    assert written["scores"] == json.loads(json.dumps(expected["scores"]))
    assert "re-scored from saved runs" in (tmp_path / "eval" / "report.md").read_text()


def test_grasp_eval_score_of_a_subset_of_the_queries_scores_only_those(tmp_path: Path) -> None:
    write_runs(RESULTS, tmp_path / "eval")
    subset = tmp_path / "first-two.jsonl"
    subset.write_text(
        "".join(
            json.dumps({"id": q.id, "query": q.text, "answer_ids": list(q.answer_ids), "split": q.split}) + "\n"
            for q in QUERIES[:2]
        )
    )
    done = CliRunner().invoke(
        app,
        [
            "eval",
            "score",
            "--runs",
            str(tmp_path / "eval"),
            "--queries",
            str(subset),
            "--out",
            str(tmp_path / "subset"),
            "--json",
        ],
    )
    assert done.exit_code == 0, done.output
    scores = json.loads(done.stdout)["scores"]
    kept = {name: SystemRuns(name, runs.runs[:2]) for name, runs in RESULTS.items()}
    assert scores == json.loads(json.dumps(to_json_dict(build_report(kept, QUERIES[:2]))["scores"]))
    grasp = next(row for row in scores if row["system"] == "grasp")
    assert grasp["queries"] == 2 and grasp["hit_at_1"] == 1.0  # q3, which grasp missed, is not in the subset


def test_a_broken_run_file_names_the_line(tmp_path: Path) -> None:
    runs_dir = write_runs(RESULTS, tmp_path)
    (runs_dir / "bm25.jsonl").write_text(
        '{"system": "bm25", "query_id": "q1", "ranked": ["D1"], "latency_ms": 1}\n'
        '{"system": "bm25", "query_id": "q2"}\n'
    )
    with pytest.raises(EvaluationError, match=r"bm25.jsonl:2: a run line needs .*missing \['ranked', 'latency_ms'\]"):
        read_runs(tmp_path)
    with pytest.raises(EvaluationError, match="holds no run files"):
        read_runs(tmp_path / "nothing")
