"""`grasp train planner ...`: the planner's training data (teacher plans, the reward table) and its training."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from grasp_agent.cli._common import DeviceChoice, console, friendly_errors, load_settings
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.factory import make_embedder
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.branch import GraphBranch

app = typer.Typer(help="Planner training: teacher plans (SFT data), the reward table, SFT.", no_args_is_help=True)

QUERIES = typer.Option(..., "--queries", help="A query file with splits and ids (e.g. docs/eval/hpo_bench.jsonl).")
SELECT_HELP = (
    "Score the start and every checkpoint by fused Hit@1 of greedy plans for the first N valid "
    "questions and keep the best adapter (0: keep the last)."
)
SELECT_SFT = typer.Option(0, "--select", min=0, help=SELECT_HELP)
DEVICE_HELP = "auto: CUDA when torch sees a GPU, else the CPU."


@app.command()
@friendly_errors
def teacher(
    queries: Path = QUERIES,
    split: str = typer.Option("train", "--split", help="The split the Path-Bank was built from."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N questions of the split."),
    out: Path = typer.Option(Path("planner_sft.jsonl"), "--out", help="JSONL of prompt/completion pairs."),
) -> None:
    """Teacher plans from the Path-Bank: per training question, its own meta-paths (then the heuristic's plan)
    as plans over its entity table; the first that validates and ranks a gold answer first is kept."""
    from grasp_agent.adapath.bank_store import BankStore
    from grasp_agent.adapath.statements import AdaPathCypher
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.training.teacher_plans import MAX_ANSWERS, TeacherPlans, write_teacher_set

    settings = load_settings()
    chosen = read_queries(queries, split)
    chosen = chosen[:limit] if limit else chosen
    if not chosen:
        raise GraspError(f"{queries} has no questions in split {split!r}")
    with open_driver(settings) as driver:
        if BankStore(driver, settings.neo4j_database).identity() is None:
            raise GraspError("teacher plans need a Path-Bank: run `grasp adapath build-bank --queries F` first")
        branch = GraphBranch.build(driver, settings, make_embedder(settings))
        builder = TeacherPlans(branch, AdaPathCypher(driver, settings.neo4j_database))
        results = list(builder.build(chosen, progress=True))
    kept = [example for example in results if example is not None]
    write_teacher_set(kept, out)
    too_many = sum(1 for query in chosen if len(query.answer_ids) > MAX_ANSWERS)
    table = Table("teacher", "plans kept", title=f"Teacher plans for {len(chosen)} {split} questions")
    for name, count in Counter(example.provenance.teacher for example in kept).most_common():
        table.add_row(name, str(count))
    console.print(table)
    console.print(
        f"{len(kept)} kept ({len(kept) / len(chosen):.0%}); {too_many} skipped for more than {MAX_ANSWERS} "
        f"answers; {len(chosen) - len(kept) - too_many} with no plan ranking a gold answer first; "
        f"written to {out}",
        highlight=False,
    )


@app.command()
@friendly_errors
def sft(
    data: Path = typer.Option(..., "--data", help="Teacher plans (JSONL from `grasp train planner teacher`)."),
    base: str = typer.Option(
        "qwen2.5-0.5b",
        "--base",
        help="The student: a packaged GGUF name, a .gguf file "
        "(dequantised for training) or a Hugging Face model folder.",
    ),
    out: Path = typer.Option(Path("planner-sft"), "--out", help="Checkpoints, the LoRA adapter and the report."),
    epochs: float = typer.Option(3.0, "--epochs", min=0.01, help="Passes over the data (paper: 3)."),
    max_steps: int = typer.Option(-1, "--max-steps", help="Optimizer steps; > 0 overrides --epochs."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N examples."),
    lora_r: int = typer.Option(64, "--lora-r", min=1, help="LoRA rank (paper: 64; alpha is twice it)."),
    gradient_accumulation: int = typer.Option(
        32, "--grad-accum", min=1, help="Examples per optimizer step (batch 1; paper: 32)."
    ),
    learning_rate: float = typer.Option(1e-4, "--lr", help="Peak learning rate (cosine, 3% warm-up)."),
    save_steps: int = typer.Option(
        50, "--save-steps", min=1, help="Checkpoint (and, with --select, score) every N optimizer steps."
    ),
    queries: Path = typer.Option(None, "--queries", help="The query file whose valid split --select reads."),
    select: int = SELECT_SFT,
    device: DeviceChoice = typer.Option(DeviceChoice.AUTO, "--device", help=DEVICE_HELP),
) -> None:
    """LoRA SFT of the student planner on teacher plans (completion-only loss, trl's SFT trainer); resumes
    from the last checkpoint in --out."""
    from grasp_agent.training.planner_sft import SftOptions, load_student, require_training_extra, train_sft
    from grasp_agent.training.teacher_plans import read_teacher_set

    if select and queries is None:
        raise typer.BadParameter("--select scores checkpoints on the valid split of --queries: give --queries")
    require_training_extra()
    settings = load_settings()
    records = read_teacher_set(data)
    records = records[:limit] if limit else records
    models_dir = settings.resolved_models_cache_dir
    with console.status(f"loading {base}"):
        model, tokenizer = load_student(base, models_dir)
    options = SftOptions(
        epochs=epochs,
        max_steps=max_steps,
        lora_r=lora_r,
        lora_alpha=2 * lora_r,
        gradient_accumulation=gradient_accumulation,
        learning_rate=learning_rate,
        save_steps=save_steps,
        device=device.value,
    )
    with open_driver(settings) as driver:
        selector = None
        if select:
            scorer, by_id = _scoring(settings, driver, queries)
            selector = _selector(scorer, by_id.values(), select, tokenizer, out)
        report = train_sft(model, tokenizer, records, out, options, selector)
    console.print(
        f"SFT: {report.examples} examples, {report.steps} steps ({report.epochs:.2f} epochs) on "
        f"{report.device} in {report.minutes:.1f} min, peak RSS {report.peak_rss_mib:,.0f} MiB; loss "
        f"{report.first_loss} -> {report.last_loss}; adapter in {out}/adapter",
        highlight=False,
    )
    _print_selection(report.selection)


@app.command()
@friendly_errors
def export(
    adapter: list[Path] = typer.Option(
        ...,
        "--adapter",
        help="The LoRA adapter folder (<stage out>/adapter); "
        "repeat it for a chain, merged in order (GRPO: --adapter <rft> --adapter "
        "<grpo>, since GRPO trains on the merged RFT student).",
    ),
    base: str = typer.Option("qwen2.5-0.5b", "--base", help="The student the adapter was trained on."),
    template: Path = typer.Option(
        None,
        "--template",
        help="The GGUF whose metadata and tensor list to copy; "
        "default: the base's own GGUF (packaged name or .gguf file).",
    ),
    out: Path = typer.Option(Path("planner.gguf"), "--out", help="The GGUF file to write (float16)."),
) -> None:
    """Merge the adapter into the student and write it as a GGUF that llama.cpp serves:
    GRASP_LLM=llama-cpp GRASP_LLM_GGUF=<out> GRASP_LLM_PLANNER_PROMPT=student."""
    from grasp_agent.llm.packaged_models import resolve_gguf
    from grasp_agent.training.gguf_export import export_gguf
    from grasp_agent.training.planner_sft import load_student, require_training_extra

    require_training_extra()
    from peft import PeftModel

    settings = load_settings()
    models_dir = settings.resolved_models_cache_dir
    if template is None:
        if Path(base).is_dir():
            raise GraspError("--base is a model folder: say which GGUF to take the metadata from with --template")
        template = Path(base) if base.endswith(".gguf") else resolve_gguf(base, models_dir)
    for folder in adapter:
        if not (folder / "adapter_config.json").is_file():
            raise GraspError(f"{folder} is not a LoRA adapter folder (no adapter_config.json)")
    with console.status("merging the adapters and writing the GGUF"):
        merged, _ = load_student(base, models_dir)
        for folder in adapter:
            merged = PeftModel.from_pretrained(merged, folder).merge_and_unload()
        written = export_gguf(merged, template, out)
    console.print(
        f"wrote {written} ({written.stat().st_size / 1e6:,.0f} MB); serve it with GRASP_LLM=llama-cpp "
        f"GRASP_LLM_GGUF={written} GRASP_LLM_PLANNER_PROMPT=student",
        highlight=False,
    )


@app.command("reward-table")
@friendly_errors
def reward_table(
    queries: Path = QUERIES,
    split: str = typer.Option("valid", "--split", help="Estimate on this split (the paper: valid)."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N questions of the split."),
    out: Path = typer.Option(Path("planner_reward.json"), "--out", help="The table as JSON."),
) -> None:
    """The reward table T[graph gold-rank bucket, candidate bucket]: the mean gain RR(fused) - RR(text) of the
    split's questions under the heuristic's and (with a Path-Bank) the pathbank planner's plans."""
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.pipeline.parts import assemble_parts
    from grasp_agent.training.plan_reward import CANDIDATE_BUCKETS, GOLD_RANK_BUCKETS, RewardTable
    from grasp_agent.training.plan_scoring import PlanScorer, observations

    settings = load_settings()
    chosen = read_queries(queries, split)
    chosen = chosen[:limit] if limit else chosen
    if not chosen:
        raise GraspError(f"{queries} has no questions in split {split!r}")
    with open_driver(settings) as driver:
        parts = assemble_parts(driver, settings, make_embedder(settings), progress=True)
        branches = [parts.graph_branches[name] for name in ("heuristic", "pathbank") if name in parts.graph_branches]
        scorer = PlanScorer(parts, branches[0])
        seen = observations(scorer, chosen, branches, progress=True)
    table = RewardTable.estimate(seen)
    table.save(out)
    shown = Table(
        "graph gold rank",
        *CANDIDATE_BUCKETS,
        title=f"Reward: mean RR(fused) - RR(text), shrunk (n), {len(seen)} plans of {len(chosen)} questions",
    )
    for row in GOLD_RANK_BUCKETS:
        shown.add_row(
            row,
            *(
                f"{table.cells[(row, column)].value:+.3f} ({table.cells[(row, column)].count})"
                for column in CANDIDATE_BUCKETS
            ),
        )
    console.print(shown)
    console.print(f"planners: {', '.join(b.planner_name for b in branches)}; written to {out}", highlight=False)


REWARD = typer.Option(..., "--reward", help="The reward table (JSON from `grasp train planner reward-table`).")
DEVICE = typer.Option(DeviceChoice.AUTO, "--device", help=DEVICE_HELP)


def _selector(scorer: Any, queries: Any, count: int, tokenizer: Any, out: Path) -> Any:
    """Scores checkpoints by fused Hit@1 of greedy plans for the first `count` valid questions."""
    from grasp_agent.training.plan_selection import CheckpointSelector, SelectionQuestion
    from grasp_agent.training.teacher_plans import student_prompt

    valid = [query for query in queries if query.split == "valid"][:count]
    if not valid:
        raise GraspError("--select needs questions of the valid split in --queries")
    questions = [SelectionQuestion(query, student_prompt(scorer.branch, query.text)) for query in valid]
    return CheckpointSelector(scorer, questions, tokenizer, out)


def _print_selection(history: list[dict[str, float]] | None) -> None:
    if not history:
        return
    table = Table("step", "valid fused Hit@1", "valid plans", "kept", title="Checkpoints scored on valid")
    for point in history:
        table.add_row(
            str(int(point["step"])),
            f"{point['fused_hit_at_1']:.3f}",
            f"{point['valid_plans']:.0%}",
            "yes" if point["kept"] else "",
        )
    console.print(table)


def _scoring(settings: Any, driver: Any, queries: Path) -> tuple[Any, dict[str, Any]]:
    """A PlanScorer on the loaded SKB and the query file's questions by id."""
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.pipeline.parts import assemble_parts
    from grasp_agent.training.plan_scoring import PlanScorer

    parts = assemble_parts(driver, settings, make_embedder(settings), progress=True)
    return PlanScorer(parts, parts.graph_branch("heuristic")), {q.id: q for q in read_queries(queries)}


@app.command()
@friendly_errors
def rft(
    data: Path = typer.Option(..., "--data", help="Teacher plans (the SFT data)."),
    adapter: Path = typer.Option(..., "--adapter", help="The SFT adapter that samples the plans."),
    queries: Path = QUERIES,
    reward_path: Path = REWARD,
    base: str = typer.Option("qwen2.5-0.5b", "--base", help="The student's base (as for sft)."),
    samples: int = typer.Option(8, "--samples", min=1, help="Plans sampled per question at temperature 1.0."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    max_completion: int = typer.Option(512, "--max-completion", min=16, help="Tokens per sampled plan at most."),
    sample_limit: int = typer.Option(
        None, "--sample-limit", min=1, help="Sample plans for the first N questions only (all still train)."
    ),
    samples_out: Path = typer.Option(None, "--samples-out", help="Also write every sample and its reward (JSONL)."),
    continue_sft: bool = typer.Option(
        False,
        "--continue-sft/--from-base",
        help="Keep training the SFT adapter "
        "on the sampled questions' teacher plans and best samples (a cheaper CPU "
        "recipe) instead of fine-tuning the base again on all of them (the paper).",
    ),
    out: Path = typer.Option(Path("planner-rft"), "--out", help="Checkpoints, adapter, report."),
    epochs: float = typer.Option(3.0, "--epochs", min=0.01),
    max_steps: int = typer.Option(-1, "--max-steps"),
    gradient_accumulation: int = typer.Option(32, "--grad-accum", min=1),
    save_steps: int = typer.Option(50, "--save-steps", min=1),
    select: int = SELECT_SFT,
    device: DeviceChoice = DEVICE,
) -> None:
    """Rejection-sampling fine-tuning: sample plans from the SFT student, reward them against the live graph,
    fine-tune the base on the SFT data plus each question's best positive-reward plan."""
    from grasp_agent.training.plan_reward import RewardTable
    from grasp_agent.training.planner_rl import rft_records, sample_completions
    from grasp_agent.training.planner_sft import SftOptions, load_student, require_training_extra, train_sft
    from grasp_agent.training.teacher_plans import read_teacher_set

    require_training_extra()
    from peft import PeftModel
    from tqdm import tqdm

    settings = load_settings()
    table = RewardTable.load(reward_path)
    records = read_teacher_set(data)
    records = records[:limit] if limit else records
    models_dir = settings.resolved_models_cache_dir
    student, tokenizer = load_student(base, models_dir)
    sampler = PeftModel.from_pretrained(student, adapter)
    found: dict[str, list[tuple[str, float]]] = {}
    with open_driver(settings) as driver:
        scorer, by_id = _scoring(settings, driver, queries)
        for record in tqdm(records[:sample_limit] if sample_limit else records, desc="sampling", unit="question"):
            if record["id"] not in by_id:
                raise GraspError(f"{record['id']} of {data} is not in {queries}")
            texts = sample_completions(sampler, tokenizer, record["prompt"], samples, max_new_tokens=max_completion)
            found[record["id"]] = [(text, scorer.reward(by_id[record["id"]], text, table)) for text in texts]
        if samples_out is not None:
            with samples_out.open("w", encoding="utf-8") as sink:
                for question_id, pairs in found.items():
                    for text, value in pairs:
                        sink.write(json.dumps({"id": question_id, "completion": text, "reward": value}) + "\n")
        sampled = [record for record in records if record["id"] in found]
        merged = rft_records(sampled if continue_sft else records, found)
        positive = len(merged) - (len(sampled) if continue_sft else len(records))
        base_model, tokenizer = load_student(base, models_dir)
        trained: Any = PeftModel.from_pretrained(base_model, adapter, is_trainable=True) if continue_sft else base_model
        selector = _selector(scorer, by_id.values(), select, tokenizer, out) if select else None
        report = train_sft(
            trained,
            tokenizer,
            merged,
            out,
            SftOptions(
                epochs=epochs,
                max_steps=max_steps,
                gradient_accumulation=gradient_accumulation,
                save_steps=save_steps,
                device=device.value,
            ),
            selector,
        )
    console.print(
        f"RFT: {positive} of {len(found)} questions sampled a positive-reward plan; {report.steps} steps "
        f"in {report.minutes:.1f} min; adapter in {out}/adapter",
        highlight=False,
    )
    _print_selection(report.selection)


@app.command()
@friendly_errors
def grpo(
    data: Path = typer.Option(..., "--data", help="Questions to train on (teacher-set JSONL: its prompts and ids)."),
    adapter: Path = typer.Option(..., "--adapter", help="The RFT adapter, merged into the base before GRPO."),
    queries: Path = QUERIES,
    reward_path: Path = REWARD,
    base: str = typer.Option("qwen2.5-0.5b", "--base"),
    out: Path = typer.Option(Path("planner-grpo"), "--out"),
    max_steps: int = typer.Option(100, "--max-steps", min=1),
    generations: int = typer.Option(8, "--generations", min=2, help="Completions per prompt (paper: 8)."),
    prompts_per_step: int = typer.Option(8, "--prompts-per-step", min=1, help="Prompts per optimizer step."),
    resample_ties: int = typer.Option(
        3, "--resample-ties", min=0, help="Sample a group again when its rewards all tie, up to N times."
    ),
    save_steps: int = typer.Option(25, "--save-steps", min=1),
    select: int = typer.Option(50, "--select", min=0, help=SELECT_HELP),
    max_completion: int = typer.Option(512, "--max-completion", min=16, help="Completion tokens at most."),
    device: DeviceChoice = DEVICE,
) -> None:
    """GRPO from the merged RFT student with a new LoRA (r=32), rewarded by executing every completion."""
    from grasp_agent.training.plan_reward import RewardTable
    from grasp_agent.training.planner_rl import GrpoOptions, PlanReward, train_grpo
    from grasp_agent.training.planner_sft import load_student, require_training_extra
    from grasp_agent.training.teacher_plans import read_teacher_set

    require_training_extra()
    from peft import PeftModel

    settings = load_settings()
    table = RewardTable.load(reward_path)
    records = read_teacher_set(data)
    student, tokenizer = load_student(base, settings.resolved_models_cache_dir)
    merged = PeftModel.from_pretrained(student, adapter).merge_and_unload()
    with open_driver(settings) as driver:
        scorer, by_id = _scoring(settings, driver, queries)
        reward = PlanReward(scorer, table, by_id)
        selector = _selector(scorer, by_id.values(), select, tokenizer, out) if select else None
        report = train_grpo(
            merged,
            tokenizer,
            records,
            reward,
            out,
            GrpoOptions(
                max_steps=max_steps,
                num_generations=generations,
                batch_size=generations,
                gradient_accumulation=prompts_per_step,
                resample_ties=resample_ties,
                save_steps=save_steps,
                max_completion_length=max_completion,
                device=device.value,
            ),
            selector,
        )
    console.print(
        f"GRPO: {report.steps} steps in {report.minutes:.1f} min; mean reward {report.mean_reward_first} -> "
        f"{report.mean_reward_last}; {report.tied_groups} groups tied, {report.resampled_groups} broken by "
        f"resampling; adapter in {out}/adapter",
        highlight=False,
    )
    _print_selection(report.selection)
