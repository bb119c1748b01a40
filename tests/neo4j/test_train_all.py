"""`grasp train all` on a small real SKB (the Epileptic-spasm slice of HPO) with synthetic questions from the SKB
itself: every stage runs and reports, what it keeps lands where searches read it, a kept fusion file loads, and
a spent budget skips stages with a reason instead of overrunning."""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.evaluation.query_sets import read_queries
from grasp_agent.training.train_all import STAGES, train_everything

pytestmark = pytest.mark.usefixtures("hpo_slice")


def _private(test_settings: Settings, root: Path) -> Settings:
    """Everything `train all` writes goes under `root`; the instance (and its password) stay the test one's."""
    return test_settings.model_copy(
        update={
            "project_root": root,
            "instances_dir": test_settings.instance_dir.parent,
            "runtime_dir": test_settings.resolved_runtime_dir,
            "procedures_dir": test_settings.resolved_procedures_dir,
            "embedding_cache_path": root / "embeddings.sqlite",
        }
    )


def test_every_stage_runs_reports_and_keeps_only_what_helps(
    driver: Driver, test_settings: Settings, tmp_path: Path
) -> None:
    settings = _private(test_settings, tmp_path)
    lines: list[str] = []
    outcome = train_everything(settings, None, count=60, seed=3, budget_s=900, say=lines.append)
    assert outcome.generated and outcome.skb == "hpo"
    assert outcome.questions == tmp_path / ".grasp" / "questions" / "hpo.jsonl"
    assert len(read_queries(outcome.questions)) == sum(outcome.counts.values()) >= 30
    assert [stage.stage for stage in outcome.stages] == list(STAGES)
    by_name = {stage.stage: stage for stage in outcome.stages}
    for stage in outcome.stages:
        assert stage.seconds > 0 and stage.peak_rss_mib > 100, stage
        assert not stage.note.startswith("skipped"), stage
    for name in ("field weights", "answer types", "asked type", "fusion"):
        stage = by_name[name]
        assert stage.metric and stage.before is not None and stage.after is not None, stage
        if name != "fusion":  # fusion also asks its out-of-fold gain to be beyond chance
            assert stage.kept == (stage.after > stage.before), stage
        else:
            assert not stage.kept or stage.after > stage.before, stage
    # kept outputs are where searches read them; dropped ones are absent
    assert (tmp_path / ".grasp" / "answer_types" / "hpo.json").is_file() == by_name["answer types"].kept
    assert (tmp_path / ".grasp" / "asked_type" / "hpo.json").is_file() == by_name["asked type"].kept
    assert (tmp_path / ".grasp" / "fusion" / "hpo.json").is_file() == by_name["fusion"].kept
    weights = list((tmp_path / ".grasp" / "field_weights" / "hpo").glob("*/manifest.json"))
    assert bool(weights) == by_name["field weights"].kept
    assert by_name["extraction demos"].kept and (tmp_path / ".grasp" / "extraction_demos" / "hpo.jsonl").is_file()
    assert "questions searched now" in by_name["path bank"].note
    assert any(line.startswith("reading question") for line in lines)
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


def test_a_spent_budget_skips_the_remaining_stages_with_a_reason(test_settings: Settings, tmp_path: Path) -> None:
    settings = _private(test_settings, tmp_path)
    outcome = train_everything(
        settings, None, count=30, seed=4, budget_s=0.001, skip=["field weights"], say=lambda line: None
    )
    assert outcome.stages[0].note == "skipped: --skip"
    assert all(stage.note == "skipped: the time budget is spent" for stage in outcome.stages[1:])
    assert not (tmp_path / ".grasp" / "fusion").exists()


def test_a_question_set_without_a_valid_split_is_a_clear_error(test_settings: Settings, tmp_path: Path) -> None:
    from grasp_agent.evaluation.query_sets import EvalQuery

    only_train = [EvalQuery(id="q1", text="Which diseases have seizures?", answer_ids=("OMIM:1",), split="train")]
    with pytest.raises(ValueError, match="train and valid"):
        train_everything(_private(test_settings, tmp_path), only_train, budget_s=60)


def test_a_bank_built_for_another_load_is_replaced_not_a_stop(
    driver: Driver, test_settings: Settings, tmp_path: Path
) -> None:
    from grasp_agent.adapath.bank_build import BankConfig
    from grasp_agent.adapath.bank_store import BankIdentity, BankStore
    from grasp_agent.embed.factory import make_embedder

    store = BankStore(driver, test_settings.neo4j_database)
    dimension = make_embedder(test_settings).dimension
    store.claim(BankIdentity("hpo", "an-earlier-load", "local:another-model"), BankConfig(), dimension, True)
    settings = _private(test_settings, tmp_path)
    outcome = train_everything(
        settings, None, count=30, seed=4, budget_s=600, skip=[s for s in STAGES if s != "path bank"]
    )
    bank = next(stage for stage in outcome.stages if stage.stage == "path bank")
    assert bank.note.startswith("the bank held was built for another load") and "questions searched now" in bank.note
    held = store.identity()
    assert held is not None and held.fingerprint != "an-earlier-load" and held.embedder != "local:another-model"
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")
