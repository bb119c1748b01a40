"""Planner training end to end on the real HPO slice, with a tiny random student of the Qwen2 architecture:
teacher plans from the Path-Bank -> SFT -> RFT (samples rewarded by the real reward pipeline) -> GRPO (the real
reward function executing every completion against Neo4j). Small enough for CI: seconds per stage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder

pytest.importorskip("trl", reason="planner training needs the [train] extra")


def _lora_b_trained(model: Any) -> bool:
    return any(bool(p.abs().sum() > 0) for name, p in model.named_parameters() if "lora_B" in name)


def test_sft_rft_grpo_run_on_a_tiny_student_against_the_live_graph(
    hpo_slice: Any, grasp: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    import torch
    from peft import PeftModel

    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.bank_build import BankConfig
    from grasp_agent.adapath.statements import AdaPathCypher
    from grasp_agent.training.plan_reward import LOWEST, RewardTable
    from grasp_agent.training.plan_scoring import PlanScorer, observations
    from grasp_agent.training.plan_selection import CheckpointSelector, SelectionQuestion
    from grasp_agent.training.planner_rl import (
        GrpoOptions,
        PlanReward,
        rft_records,
        sample_completions,
        train_grpo,
    )
    from grasp_agent.training.planner_sft import ADAPTER_DIR, SftOptions, train_sft
    from grasp_agent.training.teacher_plans import TeacherPlans
    from tests.neo4j.test_adapath_bank import slice_queries
    from tests.training_support import char_tokenizer, tiny_qwen2

    database, schema = test_settings.neo4j_database, hpo_slice.schema()
    queries = slice_queries(12)
    by_id = {query.id: query for query in queries}
    build_bank(
        driver,
        database,
        schema,
        "load-1",
        embedder,
        queries,
        BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2),
        rebuild=True,
        progress=False,
    )
    branch = grasp.parts.graph_branch("heuristic")
    examples = [e for e in TeacherPlans(branch, AdaPathCypher(driver, database)).build(queries) if e is not None]
    records = [example.to_record() for example in examples]
    assert len(records) >= 3

    tokenizer = char_tokenizer()
    small = dict(
        gradient_accumulation=2,
        lora_r=4,
        lora_alpha=8,
        lora_dropout=0.0,
        learning_rate=5e-3,
        warmup_ratio=0.0,
        save_steps=2,
        max_length=2048,
        device="cpu",
    )
    # SFT on the teacher plans
    sft_model = tiny_qwen2(len(tokenizer))
    sft = train_sft(sft_model, tokenizer, records, tmp_path / "sft", SftOptions(max_steps=2, **small))  # type: ignore[arg-type]
    assert sft.steps == 2 and _lora_b_trained(sft_model)

    # RFT: the SFT student's samples, rewarded by executing them; the reward table from real plans on the slice
    scorer = PlanScorer(grasp.parts, branch)
    table = RewardTable.estimate(observations(scorer, queries, [branch]))
    teacher_reward = scorer.reward(by_id[records[0]["id"]], records[0]["completion"][0]["content"], table)
    assert teacher_reward > LOWEST  # a teacher plan ranks a gold answer first
    samples = {}
    for record in records[:3]:
        texts = sample_completions(sft_model, tokenizer, record["prompt"], 2, temperature=1.0, max_new_tokens=48)
        samples[record["id"]] = [(text, scorer.reward(by_id[record["id"]], text, table)) for text in texts]
    assert all(reward == LOWEST for pairs in samples.values() for _, reward in pairs)  # a random model's JSON
    rft_model = tiny_qwen2(len(tokenizer))  # RFT fine-tunes the base again
    rft = train_sft(
        rft_model, tokenizer, rft_records(records, samples), tmp_path / "rft", SftOptions(max_steps=2, **small)
    )  # type: ignore[arg-type]
    assert rft.steps == 2 and _lora_b_trained(rft_model)

    # RFT's CPU recipe: the SFT adapter keeps training (no new LoRA on top of it)
    continued = PeftModel.from_pretrained(tiny_qwen2(len(tokenizer)), tmp_path / "sft" / ADAPTER_DIR, is_trainable=True)
    before = {n: p.detach().clone() for n, p in continued.named_parameters() if "lora_B" in n}
    train_sft(continued, tokenizer, records[:3], tmp_path / "rft-continued", SftOptions(max_steps=1, **small))  # type: ignore[arg-type]
    assert any(not torch.equal(before[n], p) for n, p in continued.named_parameters() if n in before)
    assert len(before) == sum(1 for n, _ in continued.named_parameters() if "lora_B" in n)  # one adapter, not two

    # GRPO from the merged RFT model, with the real reward function; checkpoints scored on held-back
    # questions by fused Hit@1 of greedy plans (the real scorer); tied groups (a random model's plans all fail,
    # so every group ties) are sampled again
    merged = PeftModel.from_pretrained(tiny_qwen2(len(tokenizer)), tmp_path / "rft" / ADAPTER_DIR).merge_and_unload()
    reward = PlanReward(scorer, table, by_id)
    held_back = [SelectionQuestion(by_id[r["id"]], r["prompt"]) for r in records[-2:]]
    selector = CheckpointSelector(scorer, held_back, tokenizer, tmp_path / "grpo", max_new_tokens=24)
    grpo = train_grpo(
        merged,
        tokenizer,
        records[:2],
        reward,
        tmp_path / "grpo",
        GrpoOptions(
            max_steps=1,
            num_generations=2,
            batch_size=2,
            gradient_accumulation=1,
            max_completion_length=32,
            lora_r=4,
            lora_alpha=8,
            device="cpu",
            save_steps=1,
            resample_ties=1,
        ),
        selector,
    )
    assert grpo.steps == 1 and len(reward.given) == 4 and all(r == LOWEST for r in reward.given)
    assert grpo.tied_groups == 1 and grpo.resampled_groups == 0  # drawn again once, tied again
    assert grpo.selection is not None and [p["step"] for p in grpo.selection] == [0, 1]
    assert all(p["valid_plans"] == 0.0 and p["fused_hit_at_1"] >= 0.0 for p in grpo.selection)
    assert grpo.selection[0]["kept"] == 1.0  # a tie keeps the start: the zero adapter
    kept = PeftModel.from_pretrained(tiny_qwen2(len(tokenizer)), tmp_path / "grpo" / ADAPTER_DIR)
    assert not _lora_b_trained(kept)
    reloaded = PeftModel.from_pretrained(tiny_qwen2(len(tokenizer)), tmp_path / "grpo" / ADAPTER_DIR)
    assert sum(1 for name, _ in reloaded.named_parameters() if "lora_A" in name) > 0
    with torch.no_grad():
        reloaded(tokenizer("question", return_tensors="pt").input_ids)
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")
