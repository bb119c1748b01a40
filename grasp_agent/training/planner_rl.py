"""The planner's reinforcement stages, after SFT (GRASP section 3.4):

- RFT (rejection-sampling fine-tuning): sample `k` plans per training question at temperature 1.0 from the SFT
  student, reward each (plan_scoring + the reward table), keep each question's best plan when its reward is
  positive (ties: fewer anchors, then fewer candidates), and fine-tune the base again on the SFT data plus
  those plans.
- GRPO: from the merged RFT model, a new LoRA (r=32, alpha=64), `k` completions per prompt at temperature 1.0,
  KL 0.01, lr 2e-5, advantages centred per group but not divided by its standard deviation, completions of at
  most 512 tokens; `trl`'s GRPO trainer with our reward function, which executes each completion as a plan
  and fuses it with the question's cached text ranking.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grasp_agent.errors import GraspError
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.plan import PlanError, parse_plan
from grasp_agent.training.plan_reward import RewardTable
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


def sample_completions(model: Any, tokenizer: PreTrainedTokenizerBase, messages: Sequence[Mapping[str, str]],
                       count: int, temperature: float = 1.0, max_new_tokens: int = 512, seed: int = 0) -> list[str]:
    """`count` sampled answers to one chat prompt (transformers' generate; a GPU run can use vLLM instead)."""
    import torch

    chat = [dict(message) for message in messages]
    prompt = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    inputs = tokenizer(prompt, return_tensors="pt").to(model.device)
    torch.manual_seed(seed)
    generate: Any = model.generate  # typed loosely by transformers
    with torch.no_grad():
        output = generate(**inputs, do_sample=True, temperature=temperature, top_p=1.0,
                                max_new_tokens=max_new_tokens, num_return_sequences=count,
                                pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
    start = inputs["input_ids"].shape[1]
    return [str(tokenizer.decode(row[start:], skip_special_tokens=True)) for row in output]


def rft_records(records: Sequence[dict[str, Any]], samples: Mapping[str, Sequence[tuple[str, float]]]) -> list[dict[str, Any]]:
    """The SFT records plus, per question, its best positive-reward sample as one more example."""
    extra = []
    for record in records:
        chosen = choose_rft_plan(samples.get(record["id"], ()))
        if chosen is not None:
            extra.append({**record, "completion": [{"role": "assistant", "content": chosen}],
                          "provenance": {"teacher": "rft-sample"}})
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

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], query_id: Sequence[str],
                 **_: Any) -> list[float | None]:
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


def train_grpo(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, records: Sequence[dict[str, Any]],
               reward: Callable[..., list[float | None]], out_dir: Path, options: GrpoOptions | None = None) -> GrpoReport:
    """GRPO with a new LoRA on `model` (the merged RFT student); prompts are the records' prompts, each with its
    `query_id` for the reward. Saves the adapter under `out_dir/adapter`."""
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
        output_dir=str(out_dir), max_steps=options.max_steps, learning_rate=options.learning_rate,
        beta=options.beta, num_generations=options.num_generations, temperature=options.temperature,
        max_completion_length=options.max_completion_length, scale_rewards="none",
        per_device_train_batch_size=options.batch_size, gradient_accumulation_steps=options.gradient_accumulation,
        logging_steps=1, save_strategy="steps", save_steps=options.save_steps, save_total_limit=2, report_to=[],
        use_cpu=device == "cpu", seed=options.seed, bf16=device == "cuda" and _bf16_ok(),
        dataloader_num_workers=0)
    lora = LoraConfig(r=options.lora_r, lora_alpha=options.lora_alpha, target_modules="all-linear",
                      task_type="CAUSAL_LM")
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=config, train_dataset=dataset,
                          processing_class=tokenizer, peft_config=lora)
    start = time.perf_counter()
    resume = any(out_dir.glob("checkpoint-*"))
    trainer.train(resume_from_checkpoint=True if resume else None)
    minutes = (time.perf_counter() - start) / 60.0
    trainer.save_model(str(out_dir / ADAPTER_DIR))
    tokenizer.save_pretrained(str(out_dir / ADAPTER_DIR))
    rewards = [entry["reward"] for entry in trainer.state.log_history if "reward" in entry]
    report = GrpoReport(prompts=len(records), steps=trainer.state.global_step, minutes=minutes,
                        peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                        mean_reward_first=rewards[0] if rewards else None,
                        mean_reward_last=rewards[-1] if rewards else None, device=device, options=asdict(options))
    (out_dir / GRPO_REPORT_FILE).write_text(json.dumps(asdict(report), indent=2) + "\n", encoding="utf-8")
    return report
