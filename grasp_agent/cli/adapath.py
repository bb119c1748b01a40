"""`grasp adapath ...`: AdaPath's Path-Bank (built from a query file's training queries)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from grasp_agent.cli._common import console, friendly_errors, load_settings
from grasp_agent.db.connection import open_driver

if TYPE_CHECKING:
    from grasp_agent.adapath.bank_transfer import ImportOutcome
    from grasp_agent.config import Settings

app = typer.Typer(help="AdaPath: the Path-Bank of meta-paths learnt from training queries.", no_args_is_help=True)


class MetaPathChoice(str, Enum):
    """`--meta-paths`: where the search's meta-paths come from."""

    BANK = "bank"
    PLANNER = "planner"
    NONE = "none"


class ScorerChoice(str, Enum):
    """`--scorer`: how partial paths are ranked."""

    EMBEDDING = "embedding"
    LLM = "llm"


@app.command("build-bank")
@friendly_errors
def build_bank_command(
    queries: Path = typer.Option(..., "--queries", help="Query file with topic_ids (e.g. docs/eval/hpo_bench.jsonl)."),
    split: str = typer.Option("train", "--split", help="The split whose queries feed the bank."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N queries of the split."),
    corridor: int = typer.Option(
        200, "--corridor", min=1, help="Corridor size: nodes kept by PPR(topic) x PPR(answer)."
    ),
    paths: int = typer.Option(3, "--paths", min=1, help="Yen's k: paths per topic-answer pair."),
    force: bool = typer.Option(False, "--force", help="Clear the bank first (also a bank of another load)."),
) -> None:
    """Per training query: PPR corridor, Yen's paths inside it, their meta-paths; stored in the SKB's database.
    Resumable: queries already in the bank are skipped."""
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.bank_build import BankConfig
    from grasp_agent.embed.factory import make_embedder
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.skb.context import read_skb_context
    from grasp_agent.text_branch.from_database import completed_load

    settings = load_settings()
    chosen = read_queries(queries, split)[:limit] if limit else read_queries(queries, split)
    config = BankConfig(corridor_size=corridor, paths_per_answer=paths)
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        fingerprint = completed_load(driver, settings.neo4j_database, schema.name).fingerprint
        summary = build_bank(
            driver, settings.neo4j_database, schema, fingerprint, make_embedder(settings), chosen, config, rebuild=force
        )
    table = Table("what", "value", title=f"Path-Bank of '{schema.name}' from {queries.name} ({split})")
    for name, value in (
        ("queries", summary.queries),
        ("searched now", summary.built),
        ("already in the bank", summary.already_stored),
        ("without topic ids", summary.without_topic),
        ("without a path", summary.without_paths),
        ("distinct meta-paths", summary.meta_paths),
        ("query -> meta-path links", summary.uses),
    ):
        table.add_row(name, f"{value:,}")
    table.add_row("seconds per query (median / p95)", f"{summary.median_seconds:.2f} / {summary.p95_seconds:.2f}")
    console.print(table)


@app.command("export-bank")
@friendly_errors
def export_bank_command(
    out: Path = typer.Option(..., "--out", help="The pack to write (.npz; `grasp adapath import-bank F` reads it)."),
    source: str = typer.Option("", "--source", help="What the bank was built from (kept in the pack, for people)."),
) -> None:
    """Write the database's Path-Bank to one pickle-free .npz (queries, embeddings, meta-paths, the identity)."""
    from grasp_agent.adapath.bank_transfer import export_bank, read_loaded_skb

    settings = load_settings()
    with open_driver(settings) as driver:
        pack = export_bank(driver, settings.neo4j_database, read_loaded_skb(driver, settings.neo4j_database), source)
    pack.save(out)
    manifest = pack.manifest
    console.print(
        f"exported the Path-Bank of '{manifest.skb}' ({manifest.queries:,} queries, {manifest.meta_paths:,} "
        f"meta-paths, {manifest.uses:,} links; embedder {manifest.embedder}) to {out} "
        f"({out.stat().st_size / 2**10:,.0f} KiB)"
        + ("" if manifest.content else "; built on an earlier load, so it fits only that load's fingerprint"),
        highlight=False,
    )


@app.command("import-bank")
@friendly_errors
def import_bank_command(
    pack: Path = typer.Argument(
        None, help="A pack from `grasp adapath export-bank`. Default: the packaged one for the SKB and embedder."
    ),
    force: bool = typer.Option(False, "--force", help="Replace the bank the database holds."),
) -> None:
    """Write a Path-Bank pack into the database, as a build would have stored it. Only a pack of the loaded
    SKB's data and the configured embedder is taken; a database holding a bank keeps it unless --force."""
    from grasp_agent.adapath.bank_pack import BankPack
    from grasp_agent.adapath.bank_transfer import import_bank, import_packaged_bank, read_loaded_skb
    from grasp_agent.embed.factory import make_embedder

    settings = load_settings()
    embedder_id = make_embedder(settings).model_id
    with open_driver(settings) as driver:
        database = settings.neo4j_database
        if pack is None:
            outcome = import_packaged_bank(driver, database, embedder_id, force=force)
        else:
            loaded = read_loaded_skb(driver, database, embedder_id)
            outcome = import_bank(driver, database, BankPack.load(pack), loaded, force=force)
    console.print(import_line(outcome, pack.name if pack else "the packaged Path-Bank"), highlight=False)


def packaged_bank_line(settings: Settings) -> str:
    """`grasp demo`: the packaged Path-Bank imported when the database holds none (seconds, where a build
    takes minutes), said in one line; a pack that does not fit (a --subset load, another embedder) is only
    reported, since AdaPath runs unguided without a bank."""
    from neo4j.exceptions import Neo4jError

    from grasp_agent.adapath.bank_transfer import import_packaged_bank
    from grasp_agent.errors import GraspError

    try:
        with open_driver(settings) as driver:
            # The load just ran with the configured embedder, so the load's model id is that embedder's.
            outcome = import_packaged_bank(driver, settings.neo4j_database)
    except (GraspError, Neo4jError) as error:  # the demo goes on: AdaPath answers unguided without a bank
        return f"Path-Bank: none imported: {error}"
    return import_line(outcome, "the packaged Path-Bank")


def import_line(outcome: ImportOutcome, what: str) -> str:
    """One line for people: what an import did and how long it took, or why it did nothing."""
    if not outcome.imported:
        return f"Path-Bank: {what} not imported: {outcome.reason}"
    return (
        f"Path-Bank: imported {what} ({outcome.queries:,} queries, {outcome.meta_paths:,} meta-paths, "
        f"{outcome.uses:,} links) in {outcome.seconds:.1f} s"
    )


@app.command()
@friendly_errors
def profile(
    queries: Path = typer.Option(..., "--queries", help="Query file with topic_ids (e.g. docs/eval/hpo_bench.jsonl)."),
    split: str = typer.Option("train", "--split", help="The split whose queries are profiled."),
    limit: int = typer.Option(20, "--limit", min=1, help="Profile the first N queries of the split."),
    json_out: Path = typer.Option(None, "--json-out", help="Write per-query costs and the summary as JSON here."),
) -> None:
    """Yen inside the PPR corridor vs Yen on the whole SKB (same query-conditioned costs): time and memory
    (projection size + GDS's Yen estimate), median and p95. The whole-SKB side is slow by design."""
    import json
    from dataclasses import asdict

    from grasp_agent.adapath.bank_build import BankConfig, BankQuery, PathBankBuilder
    from grasp_agent.adapath.cost_profile import CostProfiler
    from grasp_agent.embed.factory import make_embedder
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.skb.context import read_skb_context

    settings = load_settings()
    chosen = [query for query in read_queries(queries, split) if query.topic_ids][:limit]
    with open_driver(settings) as driver:
        schema = read_skb_context(driver, settings.neo4j_database).schema
        with PathBankBuilder(driver, settings.neo4j_database, schema, make_embedder(settings), BankConfig()) as builder:
            result = CostProfiler(builder).profile(
                [(query.id, BankQuery(query.text, query.topic_ids, query.answer_ids)) for query in chosen]
            )
    summary = result.summary()
    table = Table(
        "side",
        "time median / p95 (s)",
        "Yen memory median / p95 (KiB)",
        "projection median (MiB)",
        "relationships (median)",
        "paths",
        title=f"Yen cost, {len(result.queries)} queries of {queries.name} ({split}); {result.skipped} skipped",
    )
    for side, values in summary.items():
        table.add_row(
            side,
            f"{values['seconds_median']:.3f} / {values['seconds_p95']:.3f}",
            f"{values['yen_kib_median']:,.1f} / {values['yen_kib_p95']:,.1f}",
            f"{values['graph_mib_median']:.1f}",
            f"{values['relationships_median']:,.0f}",
            f"{values['paths_total']:,.0f}",
        )
    console.print(table)
    if json_out is not None:
        json_out.write_text(
            json.dumps(
                {"summary": summary, "skipped": result.skipped, "queries": [asdict(query) for query in result.queries]},
                indent=1,
            )
        )
        console.print(f"written: {json_out}", highlight=False)


@app.command()
@friendly_errors
def ask(
    question: str = typer.Argument(..., help="The question."),
    topic: list[str] = typer.Option(
        None,
        "--topic",
        help="A topic node's SKB id (the path start); repeatable. Default: the question's best-linked anchors.",
    ),
    meta_paths: MetaPathChoice = typer.Option(
        MetaPathChoice.BANK,
        "--meta-paths",
        help="bank (Path-Bank), planner (read off the GRASP plan) or none (unguided).",
    ),
    scorer: ScorerChoice = typer.Option(None, "--scorer", help="embedding or llm (default: GRASP_ADAPATH_SCORER)."),
    k: int = typer.Option(10, "--k", "-k", min=1, help="Paths to show."),
) -> None:
    """Topic nodes, the meta-paths offered for the question, the paths found from the topics, and the answer."""
    from grasp_agent.adapath.graph import assemble_path_parts, build_path_graph, run_path_graph
    from grasp_agent.adapath.path_search import PathSearchOptions
    from grasp_agent.embed.factory import make_embedder
    from grasp_agent.llm.factory import make_llm

    settings = load_settings()
    if scorer is ScorerChoice.LLM and settings.llm == "none":
        raise typer.BadParameter("--scorer llm needs an LLM (GRASP_LLM=llama-cpp or openai)")
    llm = make_llm(settings)
    try:
        with open_driver(settings) as driver:
            parts = assemble_path_parts(driver, settings, make_embedder(settings), llm)
            options = PathSearchOptions.from_settings(settings, scorer=scorer.value if scorer else None)
            result = run_path_graph(
                build_path_graph(parts), question, topic_ids=topic or None, mode=meta_paths.value, options=options
            )
    finally:
        if llm is not None:
            llm.close()
    topics = ", ".join(f"{t.name} ({t.label or '?'} {t.node_id}, {t.score:.2f})" for t in result.topics) or "none"
    console.print(
        f"topics ({result.topic_source}): {topics}; hops {result.hops or '?'}; answer type {result.answer_type or '?'}",
        highlight=False,
    )
    if result.meta_paths:
        table = Table(
            "meta-path", "vote", "similar queries", "support", title=f"Meta-paths ({result.meta_path_source})"
        )
        for item in result.meta_paths:
            table.add_row(item.signature, f"{item.vote:.2f}", str(item.voters), str(item.support))
        console.print(table)
    else:
        console.print("No meta-path for this question: unguided search.")
    paths = Table("#", "path", "score", "meta-path", title=f"Paths ({result.scorer} scorer)")
    for number, path in enumerate(result.paths[:k], start=1):
        paths.add_row(str(number), path.text, f"{path.score:.3f}", path.meta_path)
    console.print(paths)
    answer = result.answer
    console.print(
        f"answer ({answer.source}): {answer.text or '-'}" + (f" [{answer.node_id}]" if answer.node_id else ""),
        highlight=False,
    )
    for failure in result.failures:
        console.print(f"[red]failed:[/] {failure}", highlight=False)
    for note in result.notes + ([answer.failure] if answer.failure else []):
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    if result.truncated:
        console.print("[yellow]a search budget stopped the search early; results may be incomplete[/]")
