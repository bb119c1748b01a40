"""`grasp adapath ...`: AdaPath's Path-Bank (built from a query file's training queries)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from grasp_agent.cli._common import console, friendly_errors, load_settings
from grasp_agent.db.connection import open_driver

app = typer.Typer(help="AdaPath: the Path-Bank of meta-paths learnt from training queries.", no_args_is_help=True)


@app.command("build-bank")
@friendly_errors
def build_bank_command(
    queries: Path = typer.Option(..., "--queries", help="Query file with topic_ids (e.g. docs/eval/hpo_bench.jsonl)."),
    split: str = typer.Option("train", "--split", help="The split whose queries feed the bank."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N queries of the split."),
    corridor: int = typer.Option(200, "--corridor", min=1, help="Corridor size: nodes kept by PPR(topic) x PPR(answer)."),
    paths: int = typer.Option(3, "--paths", min=1, help="Yen's k: paths per topic-answer pair."),
    force: bool = typer.Option(False, "--force", help="Clear the bank first (also a bank of another load)."),
) -> None:
    """Per training query: PPR corridor, Yen's paths inside it, their meta-paths; stored in the SKB's database.
    Resumable: queries already in the bank are skipped."""
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.bank_build import BankConfig
    from grasp_agent.embed.factory import make_embedder
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.graph_branch.skb_context import read_skb_context
    from grasp_agent.text_branch.from_database import completed_load

    settings = load_settings()
    chosen = read_queries(queries, split)[:limit] if limit else read_queries(queries, split)
    config = BankConfig(corridor_size=corridor, paths_per_answer=paths)
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        fingerprint = completed_load(driver, settings.neo4j_database, schema.name).fingerprint
        summary = build_bank(driver, settings.neo4j_database, schema, fingerprint, make_embedder(settings), chosen,
                             config, rebuild=force)
    table = Table("what", "value", title=f"Path-Bank of '{schema.name}' from {queries.name} ({split})")
    for name, value in (("queries", summary.queries), ("searched now", summary.built),
                        ("already in the bank", summary.already_stored), ("without topic ids", summary.without_topic),
                        ("without a path", summary.without_paths), ("distinct meta-paths", summary.meta_paths),
                        ("query -> meta-path links", summary.uses)):
        table.add_row(name, f"{value:,}")
    table.add_row("seconds per query (median / p95)", f"{summary.median_seconds:.2f} / {summary.p95_seconds:.2f}")
    console.print(table)
