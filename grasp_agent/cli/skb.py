"""`grasp skb ...`: inspect the loaded knowledge base."""

from __future__ import annotations

import typer
from rich.table import Table

from grasp_agent.cli._common import console, friendly_errors, load_settings
from grasp_agent.db.connection import open_driver
from grasp_agent.skb.info import read_skb_info

app = typer.Typer(help="Inspect the loaded knowledge base.", no_args_is_help=True)


@app.command()
@friendly_errors
def info(as_json: bool = typer.Option(False, "--json", help="Print the SKB schema as JSON (for export).")) -> None:
    """Node types, relation types with the label pairs they connect, counts, vector indexes, load state."""
    settings = load_settings()
    with open_driver(settings) as driver:
        infos = read_skb_info(driver, settings.neo4j_database)
    if not infos:
        console.print("No SKB is loaded in this database (try `grasp load hpo`).")
        raise typer.Exit(code=3)
    for skb in infos:
        if as_json:
            console.print_json(skb.schema.to_json())
            continue
        console.print(f"[bold]{skb.schema.name}[/]: {skb.schema.description}")
        state = "complete" if skb.state and skb.state.complete else "INCOMPLETE (run the load again to resume)"
        console.print(f"load: {state}; embedder: {skb.state.embedder if skb.state else 'unknown'}")
        nodes = Table("node type", "nodes", "text fields")
        for node_type in skb.schema.node_types:
            nodes.add_row(node_type.label, f"{skb.label_counts.get(node_type.label, 0):,}", ", ".join(node_type.text_fields))
        console.print(nodes)
        relations = Table("relation (stored direction)", "edges")
        for pattern in skb.patterns:
            relations.add_row(f"(:{pattern['source']})-[:{pattern['type']}]->(:{pattern['target']})", f"{pattern['count']:,}")
        console.print(relations)
        indexes = Table("vector index", "on", "state")
        for index in skb.indexes:
            indexes.add_row(str(index["name"]), f"{index['label']}.{index['property']}",
                            f"{index['state']} {float(index['populationPercent']):.0f}%")
        console.print(indexes)
