"""`grasp`: the entry point; subcommands live in one module each."""

from __future__ import annotations

import typer

from grasp_agent.cli import db, load, skb
from grasp_agent.cli._common import console, friendly_errors, load_settings

app = typer.Typer(help="grasp: Neo4j-native hybrid retrieval over semi-structured knowledge bases.",
                  no_args_is_help=True)
app.add_typer(db.app, name="db")
app.add_typer(load.app, name="load")
app.add_typer(skb.app, name="skb")


@app.command()
@friendly_errors
def demo() -> None:
    """The main job: start Neo4j (building it on first use), load the demo data, say where to look."""
    settings = load_settings()
    db.start_server(settings)
    db.smoke()
    console.print(f"\nOpen the Neo4j Browser at {settings.browser_url}")
    console.print(f"  user neo4j, password in {settings.password_file}; try: MATCH p=(:GraspSmokeItem)--() RETURN p")
    console.print("Stop the server with `grasp db stop`.")


if __name__ == "__main__":
    app()
