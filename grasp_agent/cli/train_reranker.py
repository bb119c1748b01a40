"""`grasp train reranker`: listwise fine-tuning of the MiniLM cross-encoder on the fused pool's hard negatives."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.table import Table

from grasp_agent.cli._common import PLANNER_HELP, DeviceChoice, PlannerChoice, console, friendly_errors, load_settings
from grasp_agent.errors import GraspError

QUERIES = typer.Option(
    ..., "--queries", help="A query file with train and valid splits (e.g. docs/eval/hpo_bench.jsonl)."
)


@friendly_errors
def reranker(
    queries: Path = QUERIES,
    data: Path = typer.Option(
        None, "--data", help="Reuse training data written by --data-out (skips the pipeline runs)."
    ),
    data_out: Path = typer.Option(
        None,
        "--data-out",
        help="Write the training data (JSONL, train and valid questions with positives and hard negatives) here.",
    ),
    out: Path = typer.Option(
        None, "--out", help="The adapter folder; default: .grasp/rerankers/<skb> (searches read it from there)."
    ),
    planner: PlannerChoice = typer.Option(None, "--planner", help=PLANNER_HELP),
    exclude_template: list[str] = typer.Option(
        None,
        "--exclude-template",
        help="Leave questions of this template out of training and model selection (a leave-template-out check).",
    ),
    epochs: int = typer.Option(2, "--epochs", min=1),
    learning_rate: float = typer.Option(3e-4, "--lr", min=0.0),
    rank: int = typer.Option(16, "--rank", min=1, help="LoRA rank (alpha = 2 x rank unless --alpha)."),
    alpha: float = typer.Option(None, "--alpha", min=0.0),
    max_tokens: int = typer.Option(128, "--max-tokens", min=16, max=512, help="Query + document tokens per pair."),
    positives: int = typer.Option(
        1, "--positives", min=1, help="Groups per question and epoch (one per positive, drawn afresh each epoch)."
    ),
    max_groups: int = typer.Option(None, "--max-groups", min=1, help="At most this many groups per epoch."),
    device: DeviceChoice = typer.Option(
        DeviceChoice.CPU, "--device", help="auto: CUDA when torch sees a GPU, else the CPU."
    ),
    seed: int = typer.Option(0, "--seed"),
) -> None:
    """Run the pipeline over the train and valid questions (fused top 100, no reranking), take each gold answer
    with 23 of the 30 highest-ranked wrong candidates as one listwise group, fine-tune LoRA + a score head on
    all-MiniLM-L6-v2 with a softmax cross-entropy, keep the epoch with the best valid Hit@1 and write the
    adapter. Afterwards `grasp train fusion` fits its weight in the last RRF on valid."""
    from grasp_agent.db.connection import open_driver
    from grasp_agent.embed.factory import make_embedder
    from grasp_agent.embed.packaged_models import MINILM, packaged_model_dir
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.rerank.factory import local_reranker_dir
    from grasp_agent.skb.context import read_skb_context
    from grasp_agent.training.reranker_data import build_rerank_data, read_rerank_data, write_rerank_data
    from grasp_agent.training.reranker_train import RerankTrainConfig, train_reranker

    settings = load_settings()
    torch_device = "cpu" if device is DeviceChoice.CPU else _resolve_device(device.value)
    excluded = set(exclude_template or ())
    if data is not None:
        rows = read_rerank_data(data)
        with open_driver(settings) as driver:
            skb = read_skb_context(driver, settings.neo4j_database).schema.name
    else:
        from grasp_agent.api import Grasp
        from grasp_agent.pipeline.parts import assemble_parts

        questions = [q for q in read_queries(queries) if q.split in ("train", "valid", "val")]
        if not questions:
            raise GraspError(f"{queries} has no train or valid questions")
        with open_driver(settings) as driver:
            parts = assemble_parts(driver, settings, make_embedder(settings), None, progress=True)
            skb = parts.schema.name
            rows, summary = build_rerank_data(
                Grasp(parts), questions, planner=planner.value if planner else None, progress=True
            )
        console.print(
            f"data: {summary.questions} questions, {summary.kept} kept ({summary.positives} positives, "
            f"{summary.negatives} hard negatives); {summary.no_positive} without a gold answer in the "
            f"fused top 100, {summary.no_negative} without a wrong one, {summary.failed} failed",
            highlight=False,
        )
        if data_out is not None:
            write_rerank_data(data_out, rows)
    train = [row for row in rows if row.split == "train" and row.template not in excluded]
    valid = [row for row in rows if row.split in ("valid", "val") and row.template not in excluded]
    config = RerankTrainConfig(
        epochs=epochs,
        learning_rate=learning_rate,
        rank=rank,
        alpha=alpha if alpha is not None else 2.0 * rank,
        max_tokens=max_tokens,
        device=torch_device,
        seed=seed,
        max_groups=max_groups,
        max_positives=positives,
    )
    target = out or local_reranker_dir(settings, skb)
    start = time.perf_counter()
    report = train_reranker(
        train,
        valid,
        packaged_model_dir(MINILM, settings.models_cache_dir),
        target,
        skb,
        MINILM,
        config,
        progress=lambda line: console.print(line, highlight=False),
    )
    table = Table(
        "epoch",
        "groups",
        "loss",
        "valid Hit@1",
        "valid MRR",
        "minutes",
        title=f"Listwise reranker: {report.train_questions} train / {report.valid_questions} valid questions",
    )
    for epoch in report.epochs:
        table.add_row(
            str(epoch.epoch),
            str(epoch.groups),
            f"{epoch.mean_loss:.3f}",
            f"{epoch.valid_hit1:.3f}",
            f"{epoch.valid_mrr:.3f}",
            f"{epoch.seconds / 60:.1f}",
        )
    table.add_row("fused", "", "", f"{report.fused_valid_hit1:.3f}", f"{report.fused_valid_mrr:.3f}", "")
    console.print(table)
    console.print(
        f"best epoch {report.best_epoch}; {time.perf_counter() - start:.0f} s, peak RSS "
        f"{report.peak_rss_mib:.0f} MiB; adapter written to {target}",
        highlight=False,
    )


def _resolve_device(device: str) -> str:
    """auto -> cuda or cpu; cuda only when torch sees one (the planner trainers' rule)."""
    from grasp_agent.optional_imports import require
    from grasp_agent.training.planner_sft import resolve_device

    require("torch", need="reranker training", hint="pip install -e '.[train]'")
    return resolve_device(device)  # type: ignore[arg-type]
