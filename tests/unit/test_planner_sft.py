"""Planner SFT on a tiny random Qwen2 (CPU, seconds): the LoRA adapters change, the saved adapter reloads to
the same outputs, a second run resumes from the checkpoint, and the loss falls on a repeated example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="planner training needs the [train] extra")

from grasp_agent.training.planner_sft import ADAPTER_DIR, REPORT_FILE, SftOptions, train_sft  # noqa: E402
from tests.training_support import char_tokenizer, tiny_qwen2  # noqa: E402

PLAN = json.dumps(
    {
        "anchors": [{"var": "a1", "type": "Gene", "text": "NSF", "match_mode": "name"}],
        "hops": [{"source": "a1", "relation": "ASSOCIATED_WITH", "target": "t", "direction": "out"}],
        "target": {"var": "t", "type": "Disease"},
        "relevance_text": "",
        "n_cand": 3,
        "risk": "low",
    },
    separators=(",", ":"),
)


def _records(count: int) -> list[dict[str, object]]:
    return [
        {
            "prompt": [
                {"role": "system", "content": "Types: Gene, Disease"},
                {"role": "user", "content": f"Question {i}: which diseases of NSF?"},
            ],
            "completion": [{"role": "assistant", "content": PLAN}],
        }
        for i in range(count)
    ]


OPTIONS = SftOptions(
    max_steps=6,
    gradient_accumulation=2,
    lora_r=4,
    lora_alpha=8,
    lora_dropout=0.0,
    learning_rate=5e-3,
    warmup_ratio=0.0,
    save_steps=3,
    max_length=512,
    device="cpu",
)


def test_sft_trains_lora_adapters_that_reload_and_resume(tmp_path: Path) -> None:
    import torch
    from peft import PeftModel

    tokenizer = char_tokenizer()
    model = tiny_qwen2(len(tokenizer))
    report = train_sft(model, tokenizer, _records(8), tmp_path, OPTIONS)
    assert report.steps == 6 and report.device == "cpu" and report.trainable_parameters > 0
    assert report.first_loss is not None and report.last_loss is not None and report.last_loss < report.first_loss
    saved = json.loads((tmp_path / REPORT_FILE).read_text())
    assert saved["steps"] == 6 and saved["options"]["lora_r"] == 4

    # LoRA's B matrices start at zero: any non-zero one was trained
    trained = {name: p.detach().clone() for name, p in model.named_parameters() if "lora_B" in name}
    assert trained and any(bool(p.abs().sum() > 0) for p in trained.values())

    reloaded = PeftModel.from_pretrained(tiny_qwen2(len(tokenizer)), tmp_path / ADAPTER_DIR)
    ids = tokenizer("<|im_start|>user\nGene NSF<|im_end|>\n", return_tensors="pt").input_ids
    model.eval()
    reloaded.eval()
    with torch.no_grad():
        assert torch.allclose(model(ids).logits, reloaded(ids).logits, atol=1e-5)

    # a longer run in the same folder resumes from the last checkpoint instead of starting again
    resumed = train_sft(
        tiny_qwen2(len(tokenizer)), tokenizer, _records(8), tmp_path, SftOptions(**{**OPTIONS.__dict__, "max_steps": 8})
    )
    assert resumed.steps == 8


def test_no_examples_is_a_clear_error(tmp_path: Path) -> None:
    from grasp_agent.errors import GraspError

    tokenizer = char_tokenizer()
    with pytest.raises(GraspError, match="no SFT examples"):
        train_sft(tiny_qwen2(len(tokenizer)), tokenizer, [], tmp_path, OPTIONS)
