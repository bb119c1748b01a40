"""`grasp eval` on the real HPO slice: every system ranks every query; foreign query sets are refused clearly."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from grasp_agent.api import Grasp
from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.evaluation.hpo_questions import generate_hpo_questions
from grasp_agent.evaluation.query_sets import read_queries, write_queries
from grasp_agent.evaluation.report import build_report
from grasp_agent.evaluation.runner import ADAPATH_SYSTEMS, SYSTEMS, run_systems
from grasp_agent.skb.loader import LoadOptions, load_skb
from grasp_agent.skb.stark import StarkSource
from tests.conftest import TEST_INSTANCE_ENV, cli_env, reset_database
from tests.neo4j.test_skb_load import FIXTURES
from tests.neo4j.test_stack import GRASP

pytestmark = pytest.mark.neo4j
STARK_PRIME = Path(__file__).resolve().parents[3] / "shared" / "data" / "stark" / "primekg"


@pytest.fixture(scope="module")
def question_file(hpo_slice: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("eval") / "slice.jsonl"
    write_queries(path, generate_hpo_questions(hpo_slice, 60, 0))
    return path


def test_every_system_ranks_every_query(grasp: Grasp, question_file: Path) -> None:
    queries = read_queries(question_file, "test")[:8]
    systems = [name for name in SYSTEMS if name not in ADAPATH_SYSTEMS]  # AdaPath: test_adapath_bank.py (needs a bank)
    results = run_systems(grasp, queries, systems)
    assert list(results) == systems
    for system, runs in results.items():
        assert [run.query_id for run in runs.runs] == [query.id for query in queries], system
        assert runs.failures == 0 and all(run.latency_ms > 0 for run in runs.runs), system
    # graph, grasp and grasp+rerank are nested stages of one run per query (their arithmetic on scripted spans:
    # tests/unit/test_stage_timings.py), so their times are ordered per query whatever the machine's load
    for graph, fused, reranked in zip(
        results["graph"].runs, results["grasp"].runs, results["grasp+rerank"].runs, strict=True
    ):
        assert graph.latency_ms <= fused.latency_ms <= reranked.latency_ms, graph.query_id
    report = build_report(results, queries)
    scores = {score.system: score for score in report.scores}
    assert scores["grasp"].hit_at_5 > 0.5
    assert {(c.a, c.b) for c in report.comparisons} >= {("grasp", "hybrid"), ("grasp+rerank", "hybrid")}


def test_grasp_eval_writes_json_markdown_and_plots(question_file: Path, pipeline_settings: Any, tmp_path: Path) -> None:
    env = {
        **TEST_INSTANCE_ENV,
        "GRASP_TEXT_INDEX_DIR": str(pipeline_settings.text_index_dir),
        "GRASP_DENSE_INDEX_DIR": str(pipeline_settings.dense_index_dir),
        "GRASP_RERANKER": "none",
    }
    done = subprocess.run(
        [
            GRASP,
            "eval",
            "--queries",
            str(question_file),
            "--split",
            "test",
            "--limit",
            "5",
            "--systems",
            "bm25,graph,grasp",
            "--out",
            str(tmp_path),
            "--json",
        ],
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert json.loads(done.stdout) == results  # --json: the report alone on stdout, progress on stderr
    assert [score["system"] for score in results["scores"]] == ["bm25", "graph", "grasp"]
    assert results["meta"]["queries"] == 5 and results["meta"]["planner"] == "heuristic"
    assert "| grasp | 5 |" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "hit1_by_template.png").read_bytes()[:4] == b"\x89PNG"
    assert not (tmp_path / "hit1_by_hops.png").exists()  # these questions carry no hop counts
    assert len((tmp_path / "runs" / "grasp.trec").read_text().split("\n")[0].split()) == 6
    rescored = subprocess.run(
        [
            GRASP,
            "eval",
            "score",
            "--runs",
            str(tmp_path),
            "--queries",
            str(question_file),
            "--split",
            "test",
            "--out",
            str(tmp_path / "rescored"),
        ],
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert rescored.returncode == 0, rescored.stderr
    again = json.loads((tmp_path / "rescored" / "results.json").read_text())
    assert again["scores"] == results["scores"] and again["comparisons"] == results["comparisons"]


@pytest.mark.skipif(not STARK_PRIME.is_dir(), reason="STaRK QA files are not in ../shared/data/stark")
def test_stark_human_queries_run_against_a_stark_format_skb_and_report_missing_nodes(
    driver: Driver, test_settings: Settings, pipeline_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    """The STaRK path end to end: the prime fixture loaded by the STaRK loader (integer ids, as STaRK's QA
    files use), then `grasp eval` on STaRK's human-generated Prime QA CSV. Runs last here: it replaces the slice."""
    reset_database(driver)
    load_skb(
        driver,
        test_settings.neo4j_database,
        StarkSource(FIXTURES / "stark" / "prime", "prime"),
        embedder,
        LoadOptions(progress=False),
    )
    human = STARK_PRIME / "stark_qa" / "stark_qa_human_generated_eval.csv"
    env = {
        **TEST_INSTANCE_ENV,
        "GRASP_TEXT_INDEX_DIR": str(pipeline_settings.text_index_dir),
        "GRASP_DENSE_INDEX_DIR": str(pipeline_settings.dense_index_dir),
    }
    done = subprocess.run(
        [GRASP, "eval", "--queries", str(human), "--out", str(tmp_path)],
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    message = " ".join(done.stderr.split())
    queries = len(read_queries(human))
    assert f"{queries} of {queries} queries have no answer node in the loaded SKB 'stark_prime'" in message
