"""Checkpoints kept by validation fused Hit@1 (GRASP keeps the planner checkpoint that does best on valid).

Before training and after every checkpoint save, the student writes one greedy plan for each of a fixed set of
valid questions; each plan is executed and fused with the question's text ranking exactly as a search fuses
(`PlanScorer`), and the fraction of questions whose fused list starts with a gold answer is the checkpoint's
score. The best adapter so far is copied aside; a run ends with it as its result, so a stage that made the
planner worse hands on what it started from (its step-0 adapter is the untouched model: LoRA's B starts at 0).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grasp_agent.evaluation.query_sets import EvalQuery

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from grasp_agent.training.plan_scoring import PlanScorer

BEST_DIR = "best-adapter"


@dataclass(frozen=True)
class SelectionQuestion:
    query: EvalQuery
    prompt: list[dict[str, str]]  # the student prompt, as at serving time


@dataclass(frozen=True)
class SelectionPoint:
    step: int
    fused_hit_at_1: float
    valid_plans: float  # fraction of greedy plans that parsed, validated and executed


@dataclass(frozen=True)
class ScoredCompletions:
    hits: int
    valid: int
    questions: int

    def point(self, step: int) -> SelectionPoint:
        return SelectionPoint(step, self.hits / self.questions, self.valid / self.questions)


def score_completions(
    scorer: PlanScorer, questions: Sequence[SelectionQuestion], completions: Sequence[str]
) -> ScoredCompletions:
    """Fused Hit@1 and valid-plan count of one greedy completion per question."""
    hits = valid = 0
    for question, text in zip(questions, completions, strict=True):
        scored = scorer.score(question.query, text)
        valid += scored.graph is not None
        hits += bool(scored.fused) and scored.fused[0] in set(question.query.answer_ids)
    return ScoredCompletions(hits, valid, len(questions))


def greedy_completions(
    model: Any,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[Sequence[Mapping[str, str]]],
    max_new_tokens: int = 256,
) -> list[str]:
    """One greedy answer per chat prompt (transformers' generate, one prompt at a time: no padding effects)."""
    import torch

    found = []
    was_training = model.training
    model.eval()
    try:
        for messages in prompts:
            text = tokenizer.apply_chat_template(
                [dict(m) for m in messages], tokenize=False, add_generation_prompt=True
            )
            inputs = tokenizer(text, return_tensors="pt").to(model.device)
            with torch.no_grad():
                output = model.generate(
                    **inputs,
                    do_sample=False,
                    max_new_tokens=max_new_tokens,
                    pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
                )
            found.append(str(tokenizer.decode(output[0][inputs["input_ids"].shape[1] :], skip_special_tokens=True)))
    finally:
        model.train(was_training)
    return found


@dataclass
class CheckpointSelector:
    """Scores the model at the start and at every save; keeps the best adapter under `out_dir/best-adapter`
    (ties keep the earlier one: fewer steps from the model the stage started with)."""

    scorer: PlanScorer
    questions: Sequence[SelectionQuestion]
    tokenizer: PreTrainedTokenizerBase
    out_dir: Path
    max_new_tokens: int = 256
    history: list[SelectionPoint] = field(default_factory=list)
    best: SelectionPoint | None = None

    @property
    def best_dir(self) -> Path:
        return self.out_dir / BEST_DIR

    def evaluate(self, model: Any, step: int) -> SelectionPoint:
        texts = greedy_completions(model, self.tokenizer, [q.prompt for q in self.questions], self.max_new_tokens)
        point = score_completions(self.scorer, self.questions, texts).point(step)
        self.history.append(point)
        if self.best is None or point.fused_hit_at_1 > self.best.fused_hit_at_1:
            self.best = point
            if self.best_dir.exists():
                shutil.rmtree(self.best_dir)
            model.save_pretrained(str(self.best_dir))
        return point

    def install_best(self, adapter_dir: Path) -> None:
        """Replaces the run's final adapter with the best one (the tokenizer files stay)."""
        if self.best is None or not self.best_dir.is_dir():
            return
        for item in self.best_dir.iterdir():
            shutil.copy2(item, adapter_dir / item.name)

    def callback(self) -> Any:
        """A transformers TrainerCallback that scores at the start of training and after every save."""
        from transformers import TrainerCallback

        selector = self

        class _Selection(TrainerCallback):
            def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **_: Any) -> None:
                if model is not None and not selector.history:
                    selector.evaluate(model, state.global_step)

            def on_save(self, args: Any, state: Any, control: Any, model: Any = None, **_: Any) -> None:
                if model is not None and (not selector.history or selector.history[-1].step != state.global_step):
                    selector.evaluate(model, state.global_step)

        return _Selection()


def finish_selection(selector: CheckpointSelector, model: Any, step: int, adapter_dir: Path) -> None:
    """Scores the final model when its step was not scored yet, then installs the best adapter."""
    if not selector.history or selector.history[-1].step != step:
        selector.evaluate(model, step)
    selector.install_best(adapter_dir)


def selection_history(selector: CheckpointSelector | None) -> list[dict[str, float]] | None:
    if selector is None:
        return None
    best = selector.best.step if selector.best is not None else None
    return [
        {
            "step": p.step,
            "fused_hit_at_1": p.fused_hit_at_1,
            "valid_plans": p.valid_plans,
            "kept": float(p.step == best),
        }
        for p in selector.history
    ]
