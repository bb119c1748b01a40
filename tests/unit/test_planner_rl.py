"""RFT's choice of a sampled plan (pure) and GRPO on a tiny random Qwen2 (CPU, seconds): with rewards that
differ within a group the new LoRA moves, and its adapter reloads to the same outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grasp_agent.training.planner_rl import choose_rft_plan, rft_records


def _plan(anchors: int, n_cand: int) -> str:
    return json.dumps(
        {
            "anchors": [{"var": f"a{i}", "type": "Gene", "text": f"G{i}"} for i in range(anchors)],
            "hops": [{"source": f"a{i}", "relation": "ASSOCIATED_WITH", "target": "t"} for i in range(anchors)],
            "target": {"var": "t", "type": "Disease"},
            "n_cand": n_cand,
        }
    )


def test_rft_keeps_the_best_positive_plan_with_fewer_anchors_then_fewer_candidates_on_ties() -> None:
    assert choose_rft_plan([(_plan(1, 5), 0.2), (_plan(1, 5), 0.4)]) is not None
    best = choose_rft_plan([(_plan(2, 5), 0.4), (_plan(1, 9), 0.4), (_plan(1, 3), 0.4), (_plan(1, 1), 0.1)])
    assert best is not None and json.loads(best)["n_cand"] == 3 and len(json.loads(best)["anchors"]) == 1
    assert choose_rft_plan([(_plan(1, 5), 0.0), (_plan(1, 5), -0.3), ("not json", 0.9)]) is None
    assert choose_rft_plan([]) is None


def test_rft_adds_one_example_per_question_that_sampled_a_positive_plan() -> None:
    records = [
        {
            "id": q,
            "prompt": [{"role": "user", "content": q}],
            "completion": [{"role": "assistant", "content": _plan(1, 1)}],
        }
        for q in ("q1", "q2")
    ]
    merged = rft_records(records, {"q1": [(_plan(1, 7), 0.3)], "q2": [(_plan(1, 7), -0.1)]})
    assert (
        len(merged) == 3
        and merged[2]["id"] == "q1"
        and json.loads(merged[2]["completion"][0]["content"])["n_cand"] == 7
    )


def test_grpo_moves_a_new_lora_when_rewards_differ_and_the_adapter_reloads(tmp_path: Path) -> None:
    pytest.importorskip("trl", reason="planner training needs the [train] extra")
    import torch
    from peft import PeftModel

    from grasp_agent.training.planner_rl import GrpoOptions, train_grpo
    from grasp_agent.training.planner_sft import ADAPTER_DIR
    from tests.training_support import char_tokenizer, tiny_qwen2

    tokenizer = char_tokenizer()
    model = tiny_qwen2(len(tokenizer))
    calls: list[list[str]] = []

    def length_reward(
        prompts: list[object], completions: list[list[dict[str, str]]], query_id: list[str], **_: object
    ) -> list[float | None]:
        # stands in for the plan reward (tests/neo4j/test_planner_training.py wires the real one): it only
        # has to differ within a group for GRPO to have an advantage to follow
        calls.append(list(query_id))
        return [float(len(c[-1]["content"]) % 5) for c in completions]

    length_reward.__name__ = "length_reward"
    records = [{"id": f"q{i}", "prompt": [{"role": "user", "content": f"question {i}"}]} for i in range(4)]
    options = GrpoOptions(
        max_steps=2,
        num_generations=4,
        batch_size=4,
        gradient_accumulation=1,
        max_completion_length=24,
        lora_r=4,
        lora_alpha=8,
        learning_rate=1e-2,
        device="cpu",
        save_steps=1,
    )
    report = train_grpo(model, tokenizer, records, length_reward, tmp_path, options)
    assert report.steps == 2 and report.mean_reward_first is not None
    assert calls and all(q.startswith("q") for batch in calls for q in batch)
    assert any(bool(p.abs().sum() > 0) for name, p in model.named_parameters() if "lora_B" in name)
    reloaded = PeftModel.from_pretrained(tiny_qwen2(len(tokenizer)), tmp_path / ADAPTER_DIR)
    ids = tokenizer("question 0", return_tensors="pt").input_ids
    model.eval()
    reloaded.eval()
    with torch.no_grad():
        assert torch.allclose(model(ids).logits, reloaded(ids).logits, atol=1e-5)


def test_tied_groups_are_the_groups_whose_advantages_are_all_zero() -> None:
    torch = pytest.importorskip("torch", reason="planner training needs the [train] extra")
    from grasp_agent.training.planner_rl import tied_groups

    advantages = torch.tensor([0.0, 0.0, 0.5, -0.5, 0.0, 0.0, 1e-9, -1e-9])
    assert tied_groups(advantages, 2) == [0, 2, 3]
    assert tied_groups(advantages, 4) == [1]
    assert tied_groups(torch.zeros(6), 3) == [0, 1]


def test_replacing_tied_groups_takes_their_rows_from_the_retry_and_repads_both_sides() -> None:
    torch = pytest.importorskip("torch", reason="planner training needs the [train] extra")
    from grasp_agent.errors import GraspError
    from grasp_agent.training.planner_rl import replace_groups

    pad = 9
    # two groups of two completions; prompts left-padded to 2, completions right-padded to 2
    batch = {
        "prompt_ids": torch.tensor([[1, 2], [1, 2], [3, 4], [3, 4]]),
        "prompt_mask": torch.ones(4, 2, dtype=torch.long),
        "completion_ids": torch.tensor([[5, 6], [5, 6], [7, pad], [7, pad]]),
        "completion_mask": torch.tensor([[1, 1], [1, 1], [1, 0], [1, 0]]),
        "advantages": torch.tensor([0.0, 0.0, 0.3, -0.3]),
        "old_per_token_logps": None,
        "num_items_in_batch": torch.tensor(6),
    }
    # the retry of group 0 only, laid out at group 0's rows: longer prompt (3) and completions (3)
    retry = {
        "prompt_ids": torch.tensor([[0, 1, 2], [0, 1, 2], [0, 0, 0], [0, 0, 0]]),
        "prompt_mask": torch.tensor([[1, 1, 1], [1, 1, 1], [0, 0, 0], [0, 0, 0]]),
        "completion_ids": torch.tensor([[8, 8, 8], [8, pad, pad], [0, 0, 0], [0, 0, 0]]),
        "completion_mask": torch.tensor([[1, 1, 1], [1, 0, 0], [0, 0, 0], [0, 0, 0]]),
        "advantages": torch.tensor([0.5, -0.5, 0.0, 0.0]),
    }
    merged = replace_groups(batch, retry, [0], 2, pad)
    assert merged["advantages"].tolist() == pytest.approx([0.5, -0.5, 0.3, -0.3])
    assert merged["prompt_ids"].tolist() == [[0, 1, 2], [0, 1, 2], [pad, 3, 4], [pad, 3, 4]]  # left padding
    assert merged["prompt_mask"].tolist() == [[1, 1, 1], [1, 1, 1], [0, 1, 1], [0, 1, 1]]
    assert merged["completion_ids"].tolist() == [[8, 8, 8], [8, pad, pad], [7, pad, pad], [7, pad, pad]]
    assert merged["completion_mask"].tolist() == [[1, 1, 1], [1, 0, 0], [1, 0, 0], [1, 0, 0]]
    assert int(merged["num_items_in_batch"]) == 6  # 3 + 1 + 1 + 1 completion tokens
    assert "old_per_token_logps" not in merged
    with pytest.raises(GraspError, match="pixel_values"):
        replace_groups({**batch, "pixel_values": torch.zeros(4)}, retry, [0], 2, pad)


def test_grpo_samples_a_tied_group_again_and_trains_on_the_retry(tmp_path: Path) -> None:
    pytest.importorskip("trl", reason="planner training needs the [train] extra")
    from grasp_agent.training.planner_rl import GrpoOptions, train_grpo
    from tests.training_support import char_tokenizer, tiny_qwen2

    tokenizer = char_tokenizer()
    calls = 0

    def tie_first(
        prompts: list[object], completions: list[list[dict[str, str]]], query_id: list[str], **_: object
    ) -> list[float | None]:
        # every group ties on its first draw (reward 0 for all), then the rewards differ: the trainer must
        # draw again and keep the retry
        nonlocal calls
        calls += 1
        if calls == 1:
            return [0.0] * len(completions)
        return [float(index % 2) for index in range(len(completions))]

    tie_first.__name__ = "tie_first"
    records = [{"id": f"q{i}", "prompt": [{"role": "user", "content": f"question {i}"}]} for i in range(2)]
    options = GrpoOptions(
        max_steps=1,
        num_generations=2,
        batch_size=4,
        gradient_accumulation=1,
        max_completion_length=8,
        lora_r=4,
        lora_alpha=8,
        learning_rate=1e-2,
        device="cpu",
        save_steps=1,
        resample_ties=3,
    )
    model = tiny_qwen2(len(tokenizer))
    report = train_grpo(model, tokenizer, records, tie_first, tmp_path, options)
    assert calls == 2 and report.tied_groups == 2 and report.resampled_groups == 2
    assert any(bool(p.abs().sum() > 0) for name, p in model.named_parameters() if "lora_B" in name)
    never = GrpoOptions(**{**options.__dict__, "resample_ties": 0})
    calls = 0
    report = train_grpo(tiny_qwen2(len(tokenizer)), tokenizer, records, tie_first, tmp_path / "never", never)
    assert calls == 1 and report.tied_groups == 0 and report.resampled_groups == 0
