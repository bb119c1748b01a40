"""`grasp bench load` end to end on the HPO slice: both passes run every question on several threads, nothing
fails, the JSON report holds the outcomes and the JVM's memory; a non-loopback server is refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from grasp_agent.config import Settings
from grasp_agent.evaluation.hpo_questions import generate_hpo_questions
from grasp_agent.evaluation.query_sets import write_queries
from tests.conftest import TEST_INSTANCE_ENV, cli_env
from tests.neo4j.test_stack import GRASP

pytestmark = pytest.mark.neo4j


def test_the_load_benchmark_runs_both_passes_without_errors(
    hpo_slice: Any, pipeline_settings: Settings, tmp_path: Path
) -> None:
    questions = tmp_path / "questions.jsonl"
    write_queries(questions, generate_hpo_questions(hpo_slice, 6, 3))
    env = {
        **TEST_INSTANCE_ENV,
        "GRASP_TEXT_INDEX_DIR": str(pipeline_settings.text_index_dir),
        "GRASP_DENSE_INDEX_DIR": str(pipeline_settings.dense_index_dir),
    }
    done = subprocess.run(
        [
            GRASP,
            "bench",
            "load",
            "--threads",
            "3",
            "--count",
            "6",
            "--queries",
            str(questions),
            "--budget",
            "30",
            "--json-out",
            str(tmp_path / "load.json"),
        ],
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "load.json").read_text())
    assert [p["name"] for p in report["passes"]] == ["cold", "warm"]
    for done_pass in report["passes"]:
        outcomes = done_pass["outcomes"]
        assert len(outcomes) == 6 and all(o["error"] is None for o in outcomes)
        assert all(o["reranked"] or o["rerank_skipped"] for o in outcomes)  # --rerank is the default
        assert done_pass["jvm_rss_mib"] > 100 and done_pass["python_rss_mib"] > 100


def test_the_load_benchmark_only_runs_against_this_machine() -> None:
    env = {"GRASP_NEO4J_URI": "bolt://db.example.com:7687", "GRASP_NEO4J_USER": "neo4j", "GRASP_NEO4J_PASSWORD": "x"}
    done = subprocess.run(
        [GRASP, "bench", "load", "--count", "1"],
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and "only runs against loopback" in " ".join(done.stderr.split())
