"""`grasp skb ...`: inspect the loaded knowledge base, export its stored vectors."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from grasp_agent.cli._common import ExitCode, console, errors, fail, friendly_errors, load_settings, print_json
from grasp_agent.db.connection import open_driver
from grasp_agent.skb.info import read_skb_info

app = typer.Typer(help="Inspect, export or drop the loaded knowledge base.", no_args_is_help=True)


@app.command()
@friendly_errors
def info(
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print the SKB's schema as one JSON object (the schema.json format `grasp load jsonl` reads).",
    ),
) -> None:
    """Node types, relation types with the label pairs they connect, counts, vector indexes, load state; exits 4
    when no SKB is loaded."""
    settings = load_settings()
    with open_driver(settings) as driver:
        infos = read_skb_info(driver, settings.neo4j_database)
    if not infos:
        (errors if as_json else console).print("No SKB is loaded in this database (try `grasp load hpo`).")
        raise typer.Exit(code=ExitCode.NO_SKB)
    if as_json:
        if len(infos) > 1:
            fail(
                f"this database records {len(infos)} SKBs ({', '.join(skb.schema.name for skb in infos)}); --json "
                "exports one schema (a database holds one SKB): `grasp skb info` lists them"
            )
        print_json(json.loads(infos[0].schema.to_json()))
        return
    for skb in infos:
        console.print(f"[bold]{skb.schema.name}[/]: {skb.schema.description}")
        state = "complete" if skb.state and skb.state.complete else "INCOMPLETE (run the load again to resume)"
        console.print(f"load: {state}; embedder: {skb.state.embedder if skb.state else 'unknown'}")
        nodes = Table("node type", "nodes", "text fields")
        for node_type in skb.schema.node_types:
            nodes.add_row(
                node_type.label, f"{skb.label_counts.get(node_type.label, 0):,}", ", ".join(node_type.text_fields)
            )
        console.print(nodes)
        relations = Table("relation (stored direction)", "edges")
        for pattern in skb.patterns:
            relations.add_row(
                f"(:{pattern['source']})-[:{pattern['type']}]->(:{pattern['target']})", f"{pattern['count']:,}"
            )
        console.print(relations)
        indexes = Table("vector index", "on", "state")
        for index in skb.indexes:
            indexes.add_row(
                str(index["name"]),
                f"{index['label']}.{index['property']}",
                f"{index['state']} {float(str(index['populationPercent'])):.0f}%",
            )
        console.print(indexes)


@app.command("export-vectors")
@friendly_errors
def export_vectors(
    out: Path = typer.Option(..., "--out", help="Folder for the packs (GRASP_VECTOR_PACKS_DIR reads it)."),
    text_fields: bool = typer.Option(
        True,
        "--text-fields/--no-text-fields",
        help="Also the text branch's field texts (vectors from the cache after "
        "`grasp index`; any the cache lacks are embedded now).",
    ),
) -> None:
    """Write the loaded SKB's embeddings as vector packs (one per model id), so a load and `grasp index`
    elsewhere, with the same models, look them up instead of embedding again."""
    from grasp_agent.embed.factory import make_embedder
    from grasp_agent.skb.vector_export import read_stored_vectors, write_packs
    from grasp_agent.text_branch.from_database import dense_field_texts

    settings = load_settings()
    embedder = make_embedder(settings)
    with open_driver(settings) as driver:
        infos = read_skb_info(driver, settings.neo4j_database)
        if not infos:
            console.print("No SKB is loaded in this database (try `grasp load hpo`).")
            raise typer.Exit(code=ExitCode.NO_SKB)
        schema = infos[0].schema
        stored = read_stored_vectors(driver, settings.neo4j_database, schema, embedder, progress=True)
        if text_fields:
            texts = dense_field_texts(driver, settings.neo4j_database, schema, progress=True)
            stored.entries(embedder.model_id).add(texts, embedder.embed_texts(texts))
            console.print(f"text fields: {len(texts):,} texts, {embedder.misses:,} embedded now (not in the cache)")
    source = f"SKB {schema.name!r} (source fingerprint {stored.fingerprint[:16]}) as loaded and indexed by grasp"
    for path, count in write_packs(stored, out, schema.name, source):
        console.print(f"{path}: {count:,} vectors, {path.stat().st_size / 2**20:.1f} MiB")
    if stored.other_models:
        console.print(f"[yellow]{stored.other_models:,} nodes hold vectors of other models and were left out[/]")


@app.command()
@friendly_errors
def drop(yes: bool = typer.Option(False, "--yes", help="Do not ask; required when not run from a terminal.")) -> None:
    """Remove the loaded SKB from the database: its nodes and edges, vector indexes, constraints, Path-Bank and
    load bookkeeping (also what a failed or interrupted load left). Files on disk are kept."""
    import sys

    from grasp_agent.skb.cleanup import drop_skb

    settings = load_settings()
    with open_driver(settings) as driver:
        infos = read_skb_info(driver, settings.neo4j_database)
        if not infos:
            console.print("No SKB is recorded in this database; nothing to drop.")
            return
        for skb in infos:
            nodes = sum(skb.label_counts.values())
            what = f"SKB '{skb.schema.name}' ({nodes:,} nodes) from database '{settings.neo4j_database}'"
            if not yes:
                if not sys.stdin.isatty():
                    console.print(f"Refusing to drop the {what} without --yes (not a terminal).")
                    raise typer.Exit(code=ExitCode.USAGE)
                typer.confirm(f"Drop the {what}?", abort=True)
            with driver.session(database=settings.neo4j_database) as session:
                removed = drop_skb(session, skb.schema)
            listed = ", ".join(f"{label} {count:,}" for label, count in removed.nodes.items())
            console.print(
                f"dropped '{skb.schema.name}': {removed.total:,} nodes ({listed}), its vector indexes, "
                "constraints, Path-Bank and load state"
            )
