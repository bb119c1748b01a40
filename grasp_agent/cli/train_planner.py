"""`grasp train planner ...`: the planner's training data (teacher plans, the reward table) and its training."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import typer
from rich.table import Table

from grasp_agent.cli._common import console, friendly_errors, load_settings
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.factory import make_embedder
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.branch import GraphBranch

app = typer.Typer(help="Planner training: teacher plans (SFT data), the reward table, SFT.", no_args_is_help=True)

QUERIES = typer.Option(..., "--queries", help="A query file with splits and ids (e.g. docs/eval/hpo_bench.jsonl).")


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
    console.print(f"{len(kept)} kept ({len(kept) / len(chosen):.0%}); {too_many} skipped for more than {MAX_ANSWERS} "
                  f"answers; {len(chosen) - len(kept) - too_many} with no plan ranking a gold answer first; "
                  f"written to {out}", highlight=False)
