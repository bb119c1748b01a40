"""Planner SFT (GRASP's first training stage): LoRA on every linear layer of a small instruct model, trained on
teacher plans with the loss on the completion (the plan JSON) only, through `trl`'s SFT trainer.

The same call runs on this CPU and on a GPU (`device`); defaults are the paper's (r=64, alpha=128, 3 epochs,
lr 1e-4 cosine, 3% warm-up, effective batch 32); smaller runs override epochs/steps. A run resumes from the
last checkpoint in its output folder. The student loads from a GGUF (our packaged Qwen2.5-0.5B, dequantised by
transformers), a Hugging Face folder, or is passed in (tests use a tiny random model of the same architecture).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from grasp_agent.errors import GraspError
from grasp_agent.process_memory import peak_rss_mib

if TYPE_CHECKING:  # torch, transformers, peft and trl come with the [train] extra
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from grasp_agent.training.plan_selection import CheckpointSelector

Device = Literal["auto", "cpu", "cuda"]
ADAPTER_DIR = "adapter"
REPORT_FILE = "sft_report.json"


@dataclass(frozen=True)
class SftOptions:
    epochs: float = 3.0
    max_steps: int = -1  # > 0 overrides epochs
    learning_rate: float = 1e-4
    warmup_ratio: float = 0.03  # transformers reads a warmup_steps in [0, 1) as this ratio of all steps
    batch_size: int = 1
    gradient_accumulation: int = 32  # effective batch = batch_size x gradient_accumulation
    lora_r: int = 64
    lora_alpha: int = 128
    lora_dropout: float = 0.05
    max_length: int = 1024
    # trl turns activation checkpointing on by default; it trades a second forward pass for memory that a
    # 0.5B student with 1k-token examples does not need (measured on this CPU: it makes a step ~x slower).
    gradient_checkpointing: bool = False
    device: Device = "auto"
    seed: int = 0
    save_steps: int = 50
    logging_steps: int = 1


@dataclass(frozen=True)
class SftReport:
    examples: int
    steps: int
    epochs: float
    train_loss: float
    first_loss: float | None
    last_loss: float | None
    minutes: float
    peak_rss_mib: float
    device: str
    trainable_parameters: int
    options: dict[str, Any]
    selection: list[dict[str, float]] | None = None  # validation fused Hit@1 per scored checkpoint


def require_training_extra() -> None:
    try:
        import peft  # noqa: F401
        import torch  # noqa: F401
        import trl  # noqa: F401
    except ImportError as error:
        raise GraspError(f"planner training needs the [train] extra: pip install -e '.[train]' ({error})") from error


def resolve_device(device: Device) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise GraspError("--device cuda asked for, but torch sees no CUDA device")
    return device


def load_student(source: str | Path, models_dir: Path) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """A trainable model and its tokenizer: a Hugging Face model folder, a `.gguf` file or the name of a
    packaged GGUF (`qwen2.5-0.5b`), the latter two dequantised once into `models_dir/hf/<name>`. Nothing is
    downloaded."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from grasp_agent.llm.packaged_models import resolve_gguf

    path = Path(source)
    if not path.is_dir():
        gguf = path if path.suffix == ".gguf" else resolve_gguf(str(source), models_dir)
        if not gguf.is_file():
            raise GraspError(f"student model {source}: no such .gguf file or model folder")
        path = dequantised_folder(gguf, models_dir / "hf" / gguf.stem)
    return AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)


def dequantised_folder(gguf: Path, folder: Path) -> Path:
    """`gguf` as a float32 Hugging Face folder (safetensors, tokenizer, chat template), written once.

    transformers dequantises GGUF weights on load but keeps the model marked as GGUF-quantized, which its
    trainer refuses; saved without that mark and read back, it is a plain trainable model."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    marker = folder / ".complete"
    if marker.is_file() and marker.read_text(encoding="utf-8").strip() == str(gguf.resolve()):
        return folder
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    except (ImportError, ValueError, OSError) as error:
        raise GraspError(
            f"cannot load {gguf} for training (transformers reads GGUF with the `gguf` package of the "
            f"[train] extra): {error}"
        ) from error
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.hf_quantizer = None  # type: ignore[assignment]
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    marker.write_text(str(gguf.resolve()) + "\n", encoding="utf-8")
    return folder


def sft_dataset(records: Sequence[dict[str, Any]]) -> Any:
    """trl's conversational prompt-completion format: loss on the completion only."""
    from datasets import Dataset

    if not records:
        raise GraspError("no SFT examples")
    return Dataset.from_list([{"prompt": r["prompt"], "completion": r["completion"]} for r in records])


def train_sft(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    records: Sequence[dict[str, Any]],
    out_dir: Path,
    options: SftOptions | None = None,
    selection: CheckpointSelector | None = None,
) -> SftReport:
    """LoRA SFT; saves the adapter (and tokenizer) under `out_dir/adapter` and a report beside it. With a
    `selection`, the adapter is the checkpoint with the best validation fused Hit@1, else the last."""
    require_training_extra()
    from peft import LoraConfig
    from trl import SFTConfig, SFTTrainer

    from grasp_agent.training.plan_selection import finish_selection, selection_history

    options = options or SftOptions()
    device = resolve_device(options.device)
    out_dir.mkdir(parents=True, exist_ok=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    config = SFTConfig(
        output_dir=str(out_dir),
        num_train_epochs=options.epochs,
        max_steps=options.max_steps,
        learning_rate=options.learning_rate,
        lr_scheduler_type="cosine",
        warmup_steps=options.warmup_ratio,
        per_device_train_batch_size=options.batch_size,
        gradient_accumulation_steps=options.gradient_accumulation,
        max_length=options.max_length,
        completion_only_loss=True,
        logging_steps=options.logging_steps,
        gradient_checkpointing=options.gradient_checkpointing,
        save_strategy="steps",
        save_steps=options.save_steps,
        save_total_limit=2,
        report_to=[],
        use_cpu=device == "cpu",
        seed=options.seed,
        dataloader_num_workers=0,
        bf16=device == "cuda" and _bf16_ok(),
        disable_tqdm=False,
    )
    lora = LoraConfig(
        r=options.lora_r,
        lora_alpha=options.lora_alpha,
        lora_dropout=options.lora_dropout,
        target_modules="all-linear",
        task_type="CAUSAL_LM",
    )
    # A model that already carries a trainable adapter (RFT continuing the SFT adapter) keeps training it.
    has_adapter = hasattr(model, "peft_config")
    trainer = SFTTrainer(
        model=model,
        args=config,
        train_dataset=sft_dataset(records),
        processing_class=tokenizer,
        peft_config=None if has_adapter else lora,
        callbacks=[selection.callback()] if selection is not None else None,
    )
    start = time.perf_counter()
    resume = any(out_dir.glob("checkpoint-*"))
    result = trainer.train(resume_from_checkpoint=True if resume else None)
    minutes = (time.perf_counter() - start) / 60.0
    adapter = out_dir / ADAPTER_DIR
    trainer.save_model(str(adapter))
    tokenizer.save_pretrained(str(adapter))
    if selection is not None:
        finish_selection(selection, trainer.model, trainer.state.global_step, adapter)
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    trained_model: Any = trainer.model
    trainable = sum(int(p.numel()) for p in trained_model.parameters() if p.requires_grad)
    report = SftReport(
        examples=len(records),
        steps=trainer.state.global_step,
        epochs=float(trainer.state.epoch or 0),
        train_loss=float(result.training_loss),
        first_loss=losses[0] if losses else None,
        last_loss=losses[-1] if losses else None,
        minutes=minutes,
        peak_rss_mib=peak_rss_mib(),
        device=device,
        trainable_parameters=int(trainable),
        options=asdict(options),
        selection=selection_history(selection),
    )
    (out_dir / REPORT_FILE).write_text(json.dumps(asdict(report), indent=2) + "\n", encoding="utf-8")
    return report


def _bf16_ok() -> bool:
    import torch

    return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
