"""`grasp`: the entry point; subcommands live in one module each."""

from __future__ import annotations

import typer

from grasp_agent.cli import adapath, bench, db, evaluate, load, skb, train
from grasp_agent.cli._common import console, friendly_errors, load_settings
from grasp_agent.cli.plan import plan
from grasp_agent.cli.search import search
from grasp_agent.cli.ui import DEFAULT_PORT, LOCALHOST, check_port, launch_ui, ui

app = typer.Typer(
    help="grasp: Neo4j-native hybrid retrieval over semi-structured knowledge bases.", no_args_is_help=True
)
app.add_typer(db.app, name="db")
app.add_typer(load.app, name="load")
app.add_typer(skb.app, name="skb")
app.command(name="plan")(plan)
app.command(name="search")(search)
app.command(name="ui")(ui)
app.command(name="index")(train.index)
app.add_typer(train.app, name="train")
app.add_typer(bench.app, name="bench")
app.add_typer(adapath.app, name="adapath")
app.add_typer(evaluate.app, name="eval")


@app.command()
@friendly_errors
def demo(
    subset: list[str] = typer.Option(
        None,
        "--subset",
        help="Load only a slice of HPO (e.g. HP:0011097) for a quick look; the default loads all of it.",
    ),
    no_ui: bool = typer.Option(False, "--no-ui", help="Stop after loading instead of serving the demo UI."),
) -> None:
    """The main job: start Neo4j (building it on first use), load the HPO knowledge base, serve the demo UI."""
    from grasp_agent.skb.hpo import HpoSource

    settings = load_settings()
    if not no_ui:
        check_port(LOCALHOST, DEFAULT_PORT)  # before minutes of loading, not after
    db.start_server(settings)
    db.smoke()
    console.print("\nLoading the Human Phenotype Ontology SKB (first run only; later runs find it loaded).")
    load.run_load(settings, HpoSource(subset_roots=tuple(subset) if subset else None), batch_size=2000, force=False)
    console.print(adapath.packaged_bank_line(settings), highlight=False)
    console.print(f"\nOpen the Neo4j Browser at {settings.browser_url}")
    console.print(f"  user neo4j, password in {settings.password_file}; try:")
    console.print("  MATCH p=(:Disease {id: 'OMIM:619340'})-[:HAS_PHENOTYPE]->(:Phenotype) RETURN p", markup=False)
    console.print("  CALL grasp.schema()")
    console.print("Stop the server with `.venv/bin/grasp db stop`.")
    console.print(
        "Your own SKB: `grasp load jsonl --nodes ... --edges ... --schema ...`, then `grasp train all` learns "
        "what the HPO ships (README: Your own SKB).",
        markup=False,
        highlight=False,
    )
    if not no_ui:
        console.print("\nStarting the demo UI (`grasp ui`; skip it with --no-ui).")
        launch_ui(settings)


if __name__ == "__main__":
    app()
