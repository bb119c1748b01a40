"""The LLM planner with the real packaged 0.5B GGUF on the HPO slice (skipped without the [local-llm] extra).

The acceptance bar: schema-valid plans for at least 90% of 50 HPO questions. Mentions come from the span
finder here so that the test measures the planner; `grasp bench graph --planner llm` runs LLM extraction too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.evaluation.graph_bench import run_benchmark
from grasp_agent.evaluation.hpo_questions import generate_hpo_questions
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.graph_branch.llm_mentions import LLMMentionExtractor
from grasp_agent.graph_branch.mentions import MentionRole
from grasp_agent.skb.hpo import HpoSource
from tests.llm_support import open_05b

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


@pytest.fixture(scope="module")
def llm() -> Iterator[object]:
    model = open_05b(context_tokens=4096)
    yield model
    model.close()


def test_the_05b_planner_writes_valid_plans_for_50_hpo_questions(
    hpo_slice: HpoSource,
    driver: Driver,
    test_settings: Settings,
    embedder: GraspEmbedder,
    llm: object,
    artifacts_dir: Path,
) -> None:
    questions = generate_hpo_questions(hpo_slice, 50, seed=0)
    assert len(questions) == 50
    branch = GraphBranch.build(driver, test_settings, embedder, llm, llm_extraction=False)  # type: ignore[arg-type]
    report = run_benchmark(branch, questions, repeats=0, progress=False)
    (artifacts_dir / "llm_planner_05b_slice.json").write_text(json.dumps(asdict(report), indent=1))
    assert report.parsed_first == 1.0  # grammar-constrained: every greedy answer is plan-shaped JSON
    assert report.valid >= 0.9, report.failures
    assert report.quality.hit_at_5 >= 0.5, report.quality  # the plans also find answers, not just validate


def test_the_05b_extractor_returns_typed_mentions(
    hpo_slice: HpoSource, driver: Driver, test_settings: Settings, embedder: GraspEmbedder, llm: object
) -> None:
    branch = GraphBranch.build(driver, test_settings, embedder, llm)  # type: ignore[arg-type]
    extractor = LLMMentionExtractor(llm, branch.context)  # type: ignore[arg-type]
    mentions = extractor.extract("Which diseases present with epileptic spasms and are associated with NSF?")
    assert mentions and all(set(m.types) <= set(branch.context.labels) for m in mentions)
    assert any(m.role is MentionRole.ANCHOR for m in mentions)


def test_training_demonstrations_reach_the_05b_extractor(
    hpo_slice: HpoSource,
    driver: Driver,
    test_settings: Settings,
    embedder: GraspEmbedder,
    llm: object,
    tmp_path: Path,
) -> None:
    """`grasp train demos` on the slice's questions: demonstrations whose anchors are the questions' own words,
    read back by the branch's LLM extractor, which shows the nearest ones and still answers typed mentions."""
    from grasp_agent.training.extraction_demo_set import build_extraction_demos
    from tests.neo4j.test_adapath_bank import slice_queries

    queries = slice_queries(30)
    asked, training = queries[0], queries[1:]
    path = tmp_path / "demos.jsonl"
    outcome = build_extraction_demos(driver, test_settings.neo4j_database, hpo_slice.schema(), training, "train", path)
    assert outcome.split is None and outcome.considered == len(training)  # no splits: all questions
    assert len(outcome.demos) >= len(training) // 2
    for demo in outcome.demos:
        anchors = [m for m in demo.answer.mentions if m.role is MentionRole.ANCHOR]
        assert anchors and all(m.text in demo.question for m in anchors)
        assert all(set(m.types) <= {t.label for t in hpo_slice.schema().node_types} for m in demo.answer.mentions)

    settings = test_settings.model_copy(update={"extraction_demos": path, "extraction_demo_count": 2})
    branch = GraphBranch.build(driver, settings, embedder, llm)  # type: ignore[arg-type]
    extractor = branch.extractor
    assert isinstance(extractor, LLMMentionExtractor)
    shown = [m["content"] for m in extractor.messages(asked.text) if m["role"] == "user"][-3:-1]
    assert len(shown) == 2 and all(
        any(f"Question: {d.question}" == s.split("\n")[-1] for d in outcome.demos) for s in shown
    )
    mentions = extractor.extract(asked.text)
    assert mentions and all(set(m.types) <= set(branch.context.labels) for m in mentions)
