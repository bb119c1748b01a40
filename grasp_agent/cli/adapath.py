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


@app.command()
@friendly_errors
def ask(
    question: str = typer.Argument(..., help="The question."),
    topic: list[str] = typer.Option(..., "--topic", help="A topic node's SKB id (the path start); repeatable."),
    hops: int = typer.Option(None, "--hops", min=1, max=3, help="Only meta-paths of this many hops."),
    answer_type: str = typer.Option(None, "--answer-type", help="Only meta-paths ending at this label."),
    beam: int = typer.Option(20, "--beam", min=1, help="Beam width of the guided search."),
    k: int = typer.Option(10, "-k", min=1, help="Paths to show."),
) -> None:
    """Meta-paths the Path-Bank offers for the question, and the paths adapath.bfs finds from the topic."""
    from grasp_agent.adapath.path_search import find_paths
    from grasp_agent.embed.factory import make_embedder

    settings = load_settings()
    with open_driver(settings) as driver:
        search = find_paths(driver, settings.neo4j_database, make_embedder(settings), question, topic, hops=hops,
                            answer_label=answer_type, config={"beamWidth": beam, "limit": k})
    if search.meta_paths:
        table = Table("meta-path", "vote", "similar queries", "support", title="Meta-paths from the Path-Bank")
        for item in search.meta_paths:
            table.add_row(item.meta_path.signature, f"{item.vote:.2f}", str(item.voters), str(item.support))
        console.print(table)
    else:
        console.print("The Path-Bank offers no meta-path for this question: unguided search.")
    paths = Table("#", "path", "score", "meta-path", title=f"Paths from {', '.join(topic)}")
    for number, path in enumerate(search.paths[:k], start=1):
        paths.add_row(str(number), path.render(), f"{path.score:.3f}", path.meta_path)
    console.print(paths)
    if search.truncated:
        console.print("[yellow]a search budget stopped the search early; results may be incomplete[/]")
