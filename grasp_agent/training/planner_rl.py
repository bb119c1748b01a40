"""The planner's reinforcement stages, after SFT (GRASP section 3.4):

- RFT (rejection-sampling fine-tuning): sample `k` plans per training question at temperature 1.0 from the SFT
  student, reward each (plan_scoring + the reward table), keep each question's best plan when its reward is
  positive (ties: fewer anchors, then fewer candidates), and fine-tune the base again on the SFT data plus
  those plans.
- GRPO: from the merged RFT model, a new LoRA (r=32, alpha=64), `k` completions per prompt at temperature 1.0,
  KL 0.01, lr 2e-5, advantages centred per group but not divided by its standard deviation, completions of at
  most 512 tokens; `trl`'s GRPO trainer with our reward function, which executes each completion as a plan
  and fuses it with the question's cached text ranking. A group whose rewards all tie teaches nothing (every
  advantage is 0), so it is sampled again, up to `resample_ties` times (the paper: 3), and the first retry
  that breaks the tie takes its place in the batch.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grasp_agent.errors import GraspError
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.plan import PlanError, parse_plan
from grasp_agent.process_memory import peak_rss_mib
from grasp_agent.training.plan_reward import RewardTable
from grasp_agent.training.plan_selection import CheckpointSelector, finish_selection, selection_history
from grasp_agent.training.planner_sft import ADAPTER_DIR, Device, _bf16_ok, require_training_extra, resolve_device

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from grasp_agent.training.plan_scoring import PlanScorer

GRPO_REPORT_FILE = "grpo_report.json"


def choose_rft_plan(samples: Sequence[tuple[str, float]]) -> str | None:
    """The best positive-reward sample (ties: fewer anchors, then fewer candidates); None when none is positive.
    Samples that do not parse cannot win (their reward is the lowest anyway)."""
    best: tuple[float, int, int] | None = None
    chosen = None
    for text, reward in samples:
        if reward <= 0:
            continue
        try:
            plan = parse_plan(text)
        except PlanError:
            continue
        key = (-reward, len(plan.anchors), plan.n_cand)
        if best is None or key < best:
            best, chosen = key, plan.to_json()
    return chosen


def sample_completions(
    model: Any,
    tokenizer: PreTrainedTokenizerBase,
    messages: Sequence[Mapping[str, str]],
    count: int,
    temperature: float = 1.0,
    max_new_tokens: int = 512,
    seed: int = 0,
) -> list[str]:
    """`count` sampled answers to one chat prompt (transformers' generate; a GPU run can use vLLM instead)."""
    import torch

    chat = [dict(message) for message in messages]
    prompt = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    inputs = tokenizer(prompt, return_tensors="pt").to(model.device)
    torch.manual_seed(seed)
    generate: Any = model.generate  # typed loosely by transformers
    with torch.no_grad():
        output = generate(
            **inputs,
            do_sample=True,
            temperature=temperature,
            top_p=1.0,
            max_new_tokens=max_new_tokens,
            num_return_sequences=count,
            pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
        )
    start = inputs["input_ids"].shape[1]
    return [str(tokenizer.decode(row[start:], skip_special_tokens=True)) for row in output]


def rft_records(
    records: Sequence[dict[str, Any]], samples: Mapping[str, Sequence[tuple[str, float]]]
) -> list[dict[str, Any]]:
    """The SFT records plus, per question, its best positive-reward sample as one more example."""
    extra = []
    for record in records:
        chosen = choose_rft_plan(samples.get(record["id"], ()))
        if chosen is not None:
            extra.append(
                {
                    **record,
                    "completion": [{"role": "assistant", "content": chosen}],
                    "provenance": {"teacher": "rft-sample"},
                }
            )
    return [*records, *extra]


class PlanReward:
    """trl reward function: each completion executed as a plan for its question (the dataset's `query_id`
    column) and rewarded from the table; also records every reward it gave (for reports and tests)."""

    __name__ = "plan_reward"  # trl logs rewards under the function's name

    def __init__(self, scorer: PlanScorer, table: RewardTable, queries: Mapping[str, EvalQuery]) -> None:
        self._scorer = scorer
        self._table = table
        self._queries = queries
        self.given: list[float] = []

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], query_id: Sequence[str], **_: Any
    ) -> list[float | None]:
        rewards: list[float | None] = []
        for completion, question_id in zip(completions, query_id, strict=True):
            text = completion[-1]["content"] if isinstance(completion, list) else str(completion)
            rewards.append(self._scorer.reward(self._queries[question_id], text, self._table))
        self.given.extend(r for r in rewards if r is not None)
        return rewards


@dataclass(frozen=True)
class GrpoOptions:
    max_steps: int = 100
    learning_rate: float = 2e-5
    beta: float = 0.01  # KL to the RFT model
    num_generations: int = 8
    temperature: float = 1.0
    max_completion_length: int = 512
    lora_r: int = 32
    lora_alpha: int = 64
    gradient_accumulation: int = 8  # prompts x generations per step must divide by num_generations
    batch_size: int = 8
    device: Device = "auto"
    seed: int = 0
    save_steps: int = 25
    resample_ties: int = 3  # new samples for a group whose rewards all tie (0: never)
    gradient_checkpointing: bool = False  # trl's default is on: a second forward pass small students do not need


@dataclass(frozen=True)
class GrpoReport:
    prompts: int
    steps: int
    minutes: float
    peak_rss_mib: float
    mean_reward_first: float | None
    mean_reward_last: float | None
    device: str
    options: dict[str, Any]
    tied_groups: int = 0  # groups whose first samples all tied
    resampled_groups: int = 0  # of those, groups a retry broke the tie of
    selection: list[dict[str, float]] | None = None  # validation fused Hit@1 per scored checkpoint


TIE_TOLERANCE = 1e-6
# Per-completion tensors of trl's generation batch and their padding side (prompts are left-padded).
_LEFT_PADDED = ("prompt_ids", "prompt_mask")
_RIGHT_PADDED = (
    "completion_ids",
    "completion_mask",
    "old_per_token_logps",
    "ref_per_token_logps",
    "sampling_per_token_logps",
    "tool_mask",
)
_PER_ROW = ("advantages",)


def tied_groups(advantages: Any, group_size: int) -> list[int]:
    """Indices of the groups (consecutive runs of `group_size` completions of one prompt) whose advantages are
    all zero: their rewards tied, so they carry no policy gradient."""
    rows = advantages.reshape(-1, group_size)
    return [index for index in range(rows.shape[0]) if bool((rows[index].abs() <= TIE_TOLERANCE).all())]


def _pad_to(tensor: Any, width: int, left: bool, value: float) -> Any:
    import torch.nn.functional as functional

    missing = width - tensor.shape[1]
    if missing <= 0:
        return tensor
    return functional.pad(tensor, (missing, 0) if left else (0, missing), value=value)


def replace_groups(
    batch: Mapping[str, Any], retry: Mapping[str, Any], groups: Sequence[int], group_size: int, pad_token_id: int
) -> dict[str, Any]:
    """`batch` with the listed groups' rows taken from `retry` (a new generation for the same prompts, same
    order); both are trl generation batches, re-padded to a common width. Keys this does not know (images,
    importance ratios) make it refuse rather than mix rows wrongly."""
    import torch

    known = {*_LEFT_PADDED, *_RIGHT_PADDED, *_PER_ROW, "num_items_in_batch"}
    unknown = (set(batch) | set(retry)) - known
    if unknown:
        raise GraspError(f"cannot resample tied groups of a batch with {sorted(unknown)}")
    merged: dict[str, Any] = {}
    rows = torch.zeros(batch["advantages"].shape[0], dtype=torch.bool)
    for group in groups:
        rows[group * group_size : (group + 1) * group_size] = True
    for key, value in batch.items():
        if key == "num_items_in_batch" or value is None:
            continue
        other = retry.get(key)
        if other is None:
            raise GraspError(f"the resampled batch has no {key!r}")
        if key in _PER_ROW:
            merged[key] = torch.where(rows.to(value.device), other, value)
            continue
        left = key in _LEFT_PADDED
        pad = float(pad_token_id) if key.endswith("_ids") else 0.0
        width = max(value.shape[1], other.shape[1])
        mine, theirs = _pad_to(value, width, left, pad), _pad_to(other, width, left, pad)
        merged[key] = torch.where(rows.to(mine.device).unsqueeze(1), theirs, mine)
    # trl normalises the loss by the batch's completion tokens (masked by tool_mask when tools are used).
    mask = merged["completion_mask"] * merged["tool_mask"] if "tool_mask" in merged else merged["completion_mask"]
    merged["num_items_in_batch"] = mask.sum()
    return merged


def tie_resampling_trainer(base: type, resample_ties: int) -> type:
    """`base` (trl's GRPOTrainer) with tied groups sampled again, up to `resample_ties` times each."""

    class TieResamplingGRPOTrainer(base):
        tied = 0
        resampled = 0

        def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
            batch = super()._generate_and_score_completions(inputs)
            if not self.model.training or resample_ties <= 0:
                return batch
            size = self.num_generations
            waiting = tied_groups(batch["advantages"], size)
            self.tied += len(waiting)
            for _ in range(resample_ties):
                if not waiting:
                    break
                retry_inputs = [row for group in waiting for row in inputs[group * size : (group + 1) * size]]
                retry = super()._generate_and_score_completions(retry_inputs)
                still = set(tied_groups(retry["advantages"], size))
                broken = [(slot, group) for slot, group in enumerate(waiting) if slot not in still]
                if broken:
                    batch = replace_groups(
                        batch,
                        _spread(
                            retry,
                            [slot for slot, _ in broken],
                            [group for _, group in broken],
                            size,
                            batch["advantages"].shape[0],
                        ),
                        [group for _, group in broken],
                        size,
                        self.processing_class.pad_token_id,
                    )
                    self.resampled += len(broken)
                waiting = [group for slot, group in enumerate(waiting) if slot in still]
            return batch

    return TieResamplingGRPOTrainer


def _spread(
    retry: Mapping[str, Any], slots: Sequence[int], groups: Sequence[int], size: int, rows: int
) -> dict[str, Any]:
    """The retry batch (one group per retried prompt) laid out at its groups' places in a batch of `rows` rows,
    so `replace_groups` can take rows by position; rows of other groups are zeros and never taken."""
    import torch

    spread: dict[str, Any] = {}
    for key, value in retry.items():
        if key == "num_items_in_batch" or value is None:
            continue
        out = torch.zeros((rows, *value.shape[1:]), dtype=value.dtype, device=value.device)
        for slot, group in zip(slots, groups, strict=True):
            out[group * size : (group + 1) * size] = value[slot * size : (slot + 1) * size]
        spread[key] = out
    return spread


def train_grpo(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    records: Sequence[dict[str, Any]],
    reward: Callable[..., list[float | None]],
    out_dir: Path,
    options: GrpoOptions | None = None,
    selection: CheckpointSelector | None = None,
) -> GrpoReport:
    """GRPO with a new LoRA on `model` (the merged RFT student); prompts are the records' prompts, each with its
    `query_id` for the reward. Saves the adapter under `out_dir/adapter`: with a `selection`, the checkpoint
    with the best validation fused Hit@1 (the start included), else the last."""
    require_training_extra()
    from datasets import Dataset
    from peft import LoraConfig
    from trl import GRPOConfig, GRPOTrainer

    options = options or GrpoOptions()
    if not records:
        raise GraspError("no GRPO prompts")
    device = resolve_device(options.device)
    out_dir.mkdir(parents=True, exist_ok=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    dataset = Dataset.from_list([{"prompt": r["prompt"], "query_id": r["id"]} for r in records])
    config = GRPOConfig(
        output_dir=str(out_dir),
        max_steps=options.max_steps,
        learning_rate=options.learning_rate,
        beta=options.beta,
        num_generations=options.num_generations,
        temperature=options.temperature,
        max_completion_length=options.max_completion_length,
        scale_rewards="none",
        per_device_train_batch_size=options.batch_size,
        gradient_accumulation_steps=options.gradient_accumulation,
        logging_steps=1,
        save_strategy="steps",
        save_steps=options.save_steps,
        save_total_limit=2,
        report_to=[],
        gradient_checkpointing=options.gradient_checkpointing,
        use_cpu=device == "cpu",
        seed=options.seed,
        bf16=device == "cuda" and _bf16_ok(),
        dataloader_num_workers=0,
    )
    lora = LoraConfig(
        r=options.lora_r, lora_alpha=options.lora_alpha, target_modules="all-linear", task_type="CAUSAL_LM"
    )
    trainer_class = tie_resampling_trainer(GRPOTrainer, options.resample_ties)
    trainer = trainer_class(
        model=model,
        reward_funcs=[reward],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=lora,
        callbacks=[selection.callback()] if selection is not None else None,
    )
    start = time.perf_counter()
    resume = any(out_dir.glob("checkpoint-*"))
    trainer.train(resume_from_checkpoint=True if resume else None)
    minutes = (time.perf_counter() - start) / 60.0
    adapter = out_dir / ADAPTER_DIR
    trainer.save_model(str(adapter))
    tokenizer.save_pretrained(str(adapter))
    if selection is not None:
        finish_selection(selection, trainer.model, trainer.state.global_step, adapter)
    rewards = [entry["reward"] for entry in trainer.state.log_history if "reward" in entry]
    report = GrpoReport(
        prompts=len(records),
        steps=trainer.state.global_step,
        minutes=minutes,
        peak_rss_mib=peak_rss_mib(),
        mean_reward_first=rewards[0] if rewards else None,
        mean_reward_last=rewards[-1] if rewards else None,
        device=device,
        options=asdict(options),
        tied_groups=trainer.tied,
        resampled_groups=trainer.resampled,
        selection=selection_history(selection),
    )
    (out_dir / GRPO_REPORT_FILE).write_text(json.dumps(asdict(report), indent=2) + "\n", encoding="utf-8")
    return report
