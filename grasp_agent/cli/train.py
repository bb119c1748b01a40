"""`grasp index` and `grasp train ...`: build the text indexes, train field weights, fit the fusion tables."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import typer
from rich.table import Table

from grasp_agent.cli._common import (
    PLANNER_HELP,
    PlannerChoice,
    console,
    friendly_errors,
    load_settings,
    planner_name,
    progress_lines,
    renamed,
)
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.factory import make_embedder
from grasp_agent.evaluation.query_sets import query_set
from grasp_agent.skb.context import read_skb_context
from grasp_agent.text_branch.from_database import field_weights_directory, open_text_branch
from grasp_agent.text_branch.multifield import Scorer
from grasp_agent.training.train_all_stages import STAGES

if TYPE_CHECKING:
    from grasp_agent.evaluation.query_sets import EvalQuery
    from grasp_agent.text_branch.field_weights import TrainConfig
    from grasp_agent.text_branch.multifield import FieldKey
    from grasp_agent.text_branch.retriever import TextBranch
    from grasp_agent.training.fusion_fit import FusionFitOutcome

app = typer.Typer(
    help="Learn from a question set: field weights (train split), fusion tables (valid split), the "
    "planner and the reranker.",
    no_args_is_help=True,
)

QUERIES = typer.Option(
    None,
    "--queries",
    help="A query file with splits (JSONL, e.g. from `grasp bench "
    "build-hpo`, or STaRK's QA CSV) instead of generated HPO questions.",
)
QUESTIONS = typer.Option(None, "--questions", hidden=True)  # the old name of --queries
COUNT = typer.Option(500, "--count", min=1, help="Generated HPO questions (all splits) when no file is given.")
SEED = typer.Option(0, "--seed", help="Seed of the generated HPO question set.")
SUBSET = typer.Option(None, "--subset", help="Generate questions from this HPO slice (as loaded).")


@friendly_errors
def index() -> None:
    """Build (or load) the text branch's BM25 and dense field indexes of the loaded SKB."""
    settings = load_settings()
    embedder = make_embedder(settings)
    start = time.perf_counter()
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        branch = open_text_branch(driver, settings, embedder, schema, progress=True)
    console.print(
        f"text indexes of '{schema.name}' ready in {time.perf_counter() - start:.1f} s: "
        f"{len(branch.keys)} (field, scorer) keys: " + ", ".join(f"{f}/{s}" for f, s in branch.keys),
        highlight=False,
    )


@app.command()
@friendly_errors
def weights(
    queries: Path = QUERIES,
    count: int = COUNT,
    seed: int = SEED,
    subset: list[str] = SUBSET,
    questions: Path = QUESTIONS,
    leave_template_out: bool = typer.Option(
        False,
        "--leave-template-out",
        help="Save nothing; per test template, score weights trained without "
        "it against weights trained on every template and whole-document BM25.",
    ),
    prior: str = typer.Option(
        None,
        "--prior",
        help="Start training from these weights and decay toward "
        "them, e.g. 'doc/bm25=0.5,name/bm25=0.2' (the rest share 1%).",
    ),
    weight_decay: float = typer.Option(0.0, "--weight-decay", min=0.0, help="L2 pull toward the start."),
) -> None:
    """Train the query-conditioned field weights (train split; early stopping on valid) and save them."""
    from grasp_agent.text_branch.field_weights import TrainConfig
    from grasp_agent.training.fit import train_weights

    queries = renamed(queries, questions, "--queries", "--questions")
    settings = load_settings()
    embedder = make_embedder(settings)
    question_set = query_set(queries, count, seed, subset)
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        branch = open_text_branch(driver, settings, embedder, schema, progress=True)
    config = TrainConfig(weight_decay=weight_decay)
    start = parse_prior(prior) if prior else None
    if leave_template_out:
        show_leave_template_out(branch, question_set, config, start)
        return
    model, report = train_weights(branch, question_set, config, start)
    directory = field_weights_directory(settings, schema.name, embedder.model_id)
    model.save(directory, report)
    console.print(
        f"field weights: {report.train_questions} train / {report.valid_questions} valid questions, "
        f"best epoch {report.best_epoch} of {report.epochs_run}; valid MRR over candidates "
        f"{report.valid_mrr_uniform:.4f} (start) -> {report.valid_mrr_best:.4f}",
        highlight=False,
    )
    console.print(f"saved to {directory} (searches read them from there)", highlight=False)


def parse_prior(text: str) -> dict[FieldKey, float]:
    """'doc/bm25=0.5,name/bm25=0.2' -> {("doc", "bm25"): 0.5, ("name", "bm25"): 0.2}."""
    prior: dict[FieldKey, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        field, _, scorer = key.strip().partition("/")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if scorer not in ("bm25", "dense") or not field or weight <= 0:
            raise typer.BadParameter(
                f"--prior takes FIELD/SCORER=WEIGHT items (scorer bm25 or dense, weight > 0); got {part!r}"
            )
        prior[(field, cast(Scorer, scorer))] = weight
    return prior


def show_leave_template_out(
    branch: TextBranch, questions: Sequence[EvalQuery], config: TrainConfig, prior: dict[FieldKey, float] | None
) -> None:
    from grasp_agent.training.text_lto import run_leave_template_out

    with progress_lines("leave-template-out") as say:
        result = run_leave_template_out(branch, questions, config, prior, progress=say)
    table = Table(
        "template",
        "n",
        "untrained",
        "in-template",
        "held-out",
        "BM25 doc",
        title="Text branch, test split, Hit@1 (MRR)",
    )
    for row in result.rows:
        table.add_row(
            row.template,
            str(row.questions),
            *(f"{s.hit_at_1:.3f} ({s.mrr:.3f})" for s in (row.untrained, row.in_template, row.held_out, row.bm25)),
        )
    overall = [result.overall(c) for c in ("untrained", "in_template", "held_out", "bm25")]
    table.add_row(
        "all", str(sum(r.questions for r in result.rows)), *(f"{s.hit_at_1:.3f} ({s.mrr:.3f})" for s in overall)
    )
    console.print(table)
    below = result.below_bm25()
    console.print(
        f"held-out below whole-document BM25 (Hit@1): {', '.join(below) if below else 'none'}", highlight=False
    )


@app.command()
@friendly_errors
def demos(
    queries: Path = QUERIES,
    count: int = COUNT,
    seed: int = SEED,
    subset: list[str] = SUBSET,
    split: str = typer.Option("train", "--split", help="The split the demonstrations come from."),
    out: Path = typer.Option(
        None, "--out", help="Where to write them. Default: where LLM extraction reads them (GRASP_EXTRACTION_DEMOS)."
    ),
) -> None:
    """Derive the LLM extractor's demonstrations from a question set's training split: each question with the
    mentions it should yield (its topic nodes as written, a described one as its quoted passage, the asked type).
    Questions whose topics cannot all be placed in their text are left out."""
    from grasp_agent.training.extraction_demo_set import build_extraction_demos

    settings = load_settings()
    question_set = query_set(queries, count, seed, subset)
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        outcome = build_extraction_demos(
            driver,
            settings.neo4j_database,
            schema,
            question_set,
            split,
            out or settings.extraction_demos_path(schema.name),
        )
    source = f"the {outcome.split} split" if outcome.split else "all questions (the set has no splits)"
    console.print(
        f"{len(outcome.demos)} demonstrations from {outcome.considered} questions of {source} "
        f"({outcome.considered - len(outcome.demos)} left out: topics not all in their text), "
        f"written to {outcome.path}",
        highlight=False,
    )


@app.command("answer-types")
@friendly_errors
def answer_types(
    queries: Path = QUERIES,
    count: int = COUNT,
    seed: int = SEED,
    subset: list[str] = SUBSET,
    split: str = typer.Option("train", "--split", help="The split the prior is counted on."),
    out: Path = typer.Option(None, "--out", help="Where to write it. Default: where the planner reads it."),
) -> None:
    """Count, per anchor type, which type the training questions' answers have: the type a question that names
    none asks for (the heuristic planner's default target)."""
    from grasp_agent.training.answer_type_fit import fit_answer_types

    settings = load_settings()
    question_set = query_set(queries, count, seed, subset)
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        target = out or settings.answer_types_path(schema.name)
        prior = fit_answer_types(driver, settings.neo4j_database, schema, question_set, split, target)
    table = Table("anchor type", *sorted(prior.overall), title=f"answer types of {prior.questions} questions")
    for anchor, counts in prior.by_anchor_type.items():
        table.add_row(anchor, *[str(counts.get(label, 0)) for label in sorted(prior.overall)])
    table.add_row("all", *[str(prior.overall[label]) for label in sorted(prior.overall)], style="bold")
    console.print(table)
    console.print(f"written to {target}", highlight=False)


@app.command("all")
@friendly_errors
def train_all(
    queries: Path = typer.Option(
        None,
        "--queries",
        help="Your own labelled questions with train/valid splits (JSONL). Default: synthetic questions "
        "generated from the loaded SKB (`grasp bench build`), written to .grasp/questions/<skb>.jsonl.",
    ),
    skb: str = typer.Option(None, "--skb", help="The loaded SKB (default: the only one loaded)."),
    count: int = typer.Option(600, "--count", min=10, help="Synthetic questions to generate (all splits)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the synthetic questions."),
    budget_min: float = typer.Option(
        10.0, "--budget-min", min=0.1, help="Minutes for all stages; what does not fit is skipped (or resumed)."
    ),
    skip: list[str] = typer.Option(None, "--skip", help="A stage to leave out (repeatable): " + ", ".join(STAGES)),
) -> None:
    """Fit everything a search learns, in one go: field weights, the answer-type prior, the asked-type model,
    the fusion tables, extraction demonstrations and the Path-Bank. Each stage prints its time, peak memory
    and its effect on the valid split, and keeps its output only when it helps."""
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.training.train_all import train_everything

    unknown = sorted(set(skip or ()) - set(STAGES))
    if unknown:
        raise typer.BadParameter(f"unknown stage(s) {unknown}; stages: {', '.join(STAGES)}")
    settings = load_settings()
    started = time.perf_counter()
    with progress_lines("Training") as show:
        outcome = train_everything(
            settings,
            read_queries(queries) if queries is not None else None,
            source=queries,
            skb=skb,
            count=count,
            seed=seed,
            budget_s=budget_min * 60,
            skip=skip or (),
            say=show,
        )
    where = "generated from the SKB" if outcome.generated else "given"
    console.print(
        f"{sum(outcome.counts.values())} questions ({where}: {outcome.questions}), "
        + ", ".join(f"{n} {split}" for split, n in outcome.counts.items()),
        highlight=False,
    )
    table = Table("stage", "minutes", "peak MiB", "valid metric", "before", "after", "kept", "note")
    for stage in outcome.stages:
        table.add_row(
            stage.stage,
            f"{stage.seconds / 60:.2f}",
            f"{stage.peak_rss_mib:,.0f}",
            stage.metric or "-",
            "-" if stage.before is None else f"{stage.before:.3f}",
            "-" if stage.after is None else f"{stage.after:.3f}",
            "yes" if stage.kept else "no",
            stage.note,
        )
    console.print(table)
    console.print(f"done in {(time.perf_counter() - started) / 60:.1f} min", highlight=False)


@app.command("asked-type")
@friendly_errors
def asked_type(
    queries: Path = QUERIES,
    count: int = COUNT,
    seed: int = SEED,
    subset: list[str] = SUBSET,
    out: Path = typer.Option(None, "--out", help="Where to write it. Default: where the planner reads it."),
) -> None:
    """Fit the asked-type classifier on the train split (each question read as a search reads it: extraction,
    linking, the planner's evidence), and keep it only when it reads the valid split's asked types better than
    the planner's rules alone."""
    from grasp_agent.graph_branch.branch import GraphBranch
    from grasp_agent.training.asked_type_fit import fit_asked_type_model

    settings = load_settings().model_copy(update={"asked_type_model": False})
    question_set = query_set(queries, count, seed, subset)
    started = time.perf_counter()
    with open_driver(settings) as driver, progress_lines("Reading questions") as show:
        branch = GraphBranch.build(driver, settings, make_embedder(settings))
        target = out or settings.asked_type_path(branch.context.schema.name)
        fit = fit_asked_type_model(
            driver,
            settings.neo4j_database,
            branch,
            question_set,
            target,
            progress=lambda done, total: show(f"question {done} of {total}"),
        )
    console.print(
        f"asked type on valid ({fit.valid} questions): planner rules {fit.rule_valid:.3f}, fitted model "
        f"{fit.model_valid:.3f} (fitted on {fit.train} train questions, {len(fit.model.weights)} features, "
        f"{time.perf_counter() - started:.0f} s)",
        highlight=False,
    )
    if fit.written is None:
        console.print("not kept: it does not read the valid split better than the rules", highlight=False)
    else:
        console.print(f"written to {fit.written}", highlight=False)


@app.command()
@friendly_errors
def fusion(
    queries: Path = QUERIES,
    count: int = COUNT,
    seed: int = SEED,
    subset: list[str] = SUBSET,
    planner: PlannerChoice = typer.Option(None, "--planner", help=PLANNER_HELP),
    heuristic: bool = typer.Option(False, "--heuristic", hidden=True),
    rerank: bool = typer.Option(
        True, "--rerank/--no-rerank", help="Also fit the reranker's weight in the last RRF (runs the reranker)."
    ),
    questions: Path = QUESTIONS,
) -> None:
    """Fit on the valid split: the static graph weight, the dynamic tables and the reranker's weight; save them
    as one JSON file that searches read (explicit GRASP_FUSION_GRAPH_WEIGHT / GRASP_RERANK_WEIGHT still win)."""
    from grasp_agent.training.fusion_fit import fit_fusion_tables

    queries = renamed(queries, questions, "--queries", "--questions")
    chosen = planner_name(planner, heuristic)
    settings = load_settings()
    show_fusion_fit(fit_fusion_tables(settings, query_set(queries, count, seed, subset), chosen, rerank, progress=True))


def show_fusion_fit(outcome: FusionFitOutcome) -> None:
    """The fitted policies' valid quality, the reranker's weight and whether it reranks by default, the file."""
    from grasp_agent.fusion.tables import MIN_RERANK_GAIN

    fits, tables, choice = outcome.fits, outcome.tables, outcome.rerank
    table = Table(
        "policy",
        "graph weight",
        "MRR",
        "Hit@1",
        "Hit@5",
        "R@20",
        title=f"Fusion fitted on {fits.examples} valid questions ({fits.graph_empty} with no graph ranking)",
    )
    for name, weight, quality in (
        ("static", f"{fits.static.graph_weight:g}", fits.static.quality),
        ("dynamic", "per bucket x risk", fits.dynamic.quality),
    ):
        table.add_row(
            name,
            weight,
            f"{quality.mrr:.3f}",
            f"{quality.hit_at_1:.3f}",
            f"{quality.hit_at_5:.3f}",
            f"{quality.recall_at_20:.3f}",
        )
    console.print(table)
    if choice is not None:
        curve = dict(choice.curve)
        console.print(
            f"reranker weight {choice.value:g} (valid MRR {choice.score:.3f}; without the "
            f"reranker, w = 0: {curve[0.0]:.3f}; equal weights, w = 0.5: {curve.get(0.5, float('nan')):.3f})",
            highlight=False,
        )
        stored = tables.rerank
        if stored is not None:
            console.print(
                f"reranking by default: {'yes' if stored.helps else 'no'} (gain {stored.gain:+.3f} MRR; "
                f"on by default from +{MIN_RERANK_GAIN:g})",
                highlight=False,
            )
    console.print(
        f"saved to {outcome.path}: policy {tables.policy}, static graph weight {fits.static.graph_weight:g}, "
        f"w_bucket {list(tables.w_bucket)}, m_risk {dict(tables.m_risk)}, m_agree {dict(tables.m_agree)}"
        + (f", reranker weight {tables.rerank_weight:g}" if tables.rerank_weight is not None else ""),
        highlight=False,
    )


from grasp_agent.cli import train_planner, train_reranker  # noqa: E402  (registered last: sub-commands of `train`)

app.add_typer(train_planner.app, name="planner")
app.command(name="reranker")(train_reranker.reranker)
