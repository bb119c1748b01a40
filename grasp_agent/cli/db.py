"""`grasp db ...`: the local Neo4j server (or the external one named by GRASP_NEO4J_URI)."""

from __future__ import annotations

import time
import webbrowser

import typer

from grasp_agent.cli._common import (
    ExitCode,
    console,
    errors,
    friendly_errors,
    load_settings,
    print_json,
    progress_lines,
)
from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.db.runtime import ensure_runtime
from grasp_agent.db.schema import apply_schema
from grasp_agent.db.server import LocalServer, ServerState
from grasp_agent.db.smoke import PAGERANK_SOURCE, run_smoke
from grasp_agent.db.versions import read_versions

app = typer.Typer(help="Run and inspect the Neo4j server grasp uses.", no_args_is_help=True)


def build_runtime(settings: Settings, force: bool = False) -> None:
    with progress_lines("Building the Neo4j runtime with Maven (first run downloads ~300 MB)") as show:
        outcome = ensure_runtime(settings, force=force, on_line=show)
    if outcome.built:
        console.print(f"Built the Neo4j runtime in {outcome.runtime_dir} ({outcome.seconds:.0f} s).")


def start_server(settings: Settings) -> None:
    """Shared by `db start` and `demo`: build if needed, start, apply the schema."""
    if settings.uses_external_server:
        console.print(f"GRASP_NEO4J_URI is set: using the external server at {settings.neo4j_uri}; nothing to start.")
        with open_driver(settings) as driver:
            apply_schema(driver, settings.neo4j_database)
        return
    build_runtime(settings)
    server = LocalServer(settings)
    with console.status(f"Starting Neo4j instance '{settings.instance}'"):
        outcome = server.start()
    if outcome.already_running:
        console.print(
            f"Neo4j instance '{settings.instance}' is already running (pid {outcome.pid}) at {settings.bolt_uri}."
        )
    else:
        console.print(
            f"Started Neo4j instance '{settings.instance}' (pid {outcome.pid}) in {outcome.seconds:.1f} s "
            f"at {settings.bolt_uri}."
        )
    with open_driver(settings) as driver:
        apply_schema(driver, settings.neo4j_database)


@app.command()
@friendly_errors
def build(
    force: bool = typer.Option(False, "--force", help="Rebuild even if the runtime is up to date."),
    with_tests: bool = typer.Option(False, "--with-tests", help="Also run the plugin's JUnit/harness tests."),
) -> None:
    """Assemble the Neo4j runtime (server, Browser, APOC, GDS, grasp plugin) with Maven."""
    settings = load_settings()

    def show(line: str) -> None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    outcome = ensure_runtime(settings, force=force, run_tests=with_tests, on_line=show)
    state = f"built in {outcome.seconds:.0f} s" if outcome.built else "already up to date"
    console.print(f"Runtime {state}: {settings.resolved_runtime_dir}")


@app.command()
@friendly_errors
def start() -> None:
    """Start the local server (building the runtime on first use) and wait until Bolt answers."""
    start_server(load_settings())


@app.command()
@friendly_errors
def stop() -> None:
    """Stop the local server; leaves no JVM behind."""
    settings = load_settings()
    outcome = LocalServer(settings).stop()
    if outcome.was_running:
        console.print(f"Stopped Neo4j instance '{settings.instance}' in {outcome.seconds:.1f} s.")
    else:
        console.print(f"Neo4j instance '{settings.instance}' is not running.")


@app.command()
@friendly_errors
def status(
    as_json: bool = typer.Option(False, "--json", help="Print the state and versions as one JSON object."),
) -> None:
    """Whether the server runs, where, and the versions of Neo4j, GDS, APOC and the grasp plugin; exits 3 when
    the local instance is not running."""
    settings = load_settings()
    state = LocalServer(settings).state()
    where = {"instance": settings.instance, "bolt_uri": settings.bolt_uri}
    if state is ServerState.STOPPED:
        message = f"Neo4j instance '{settings.instance}' is not running (start it with `grasp db start`)."
        if as_json:
            print_json({"state": state.value, **where})
            errors.print(message, highlight=False)
        else:
            console.print(message)
        raise typer.Exit(code=ExitCode.DATABASE_UNREACHABLE)
    with open_driver(settings) as driver:
        versions = read_versions(driver, settings.neo4j_database)
    if as_json:
        browser = {"browser_url": settings.browser_url, "password_file": str(settings.password_file)}
        print_json(
            {
                "state": state.value,
                **where,
                "neo4j": versions.neo4j,
                "edition": versions.edition,
                "plugins": versions.plugins,
                **(browser if state is ServerState.RUNNING else {}),
            }
        )
        return
    where_text = "external server" if state is ServerState.EXTERNAL else f"instance '{settings.instance}'"
    console.print(f"Neo4j {versions.neo4j} ({versions.edition}) running: {where_text} at {settings.bolt_uri}")
    for plugin, version in versions.plugins.items():
        console.print(f"  {plugin:<6} {version or '[red]not loaded[/]'}")
    if state is ServerState.RUNNING:
        console.print(f"  Browser: {settings.browser_url}  (user neo4j, password in {settings.password_file})")


@app.command()
@friendly_errors
def logs(
    lines: int = typer.Option(40, "--lines", "-n", min=1, help="How many lines from the end."),
    follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing new lines (Ctrl-C ends)."),
) -> None:
    """Print the end of the server's neo4j.log."""
    server = LocalServer(load_settings())
    for line in server.tail_log(lines):
        console.print(line, markup=False, highlight=False)
    if follow:
        _follow(server)


def _follow(server: LocalServer) -> None:
    with server.neo4j_log.open(errors="replace") as handle:
        handle.seek(0, 2)
        try:
            while True:
                line = handle.readline()
                if line:
                    console.print(line.rstrip("\n"), markup=False, highlight=False)
                else:
                    time.sleep(0.5)
        except KeyboardInterrupt:
            return


@app.command()
@friendly_errors
def browser(open_it: bool = typer.Option(True, "--open/--no-open", help="Try to open a local web browser.")) -> None:
    """Show (and open) the Neo4j Browser URL with the credentials to use."""
    settings = load_settings()
    console.print(f"Neo4j Browser: {settings.browser_url}")
    console.print(f"  connect to {settings.bolt_uri} as neo4j; password: {settings.password_file}")
    if open_it:
        webbrowser.open(settings.browser_url)


@app.command()
@friendly_errors
def smoke() -> None:
    """Load a five-node graph and check vector search, GDS PageRank and APOC end to end."""
    settings = load_settings()
    with open_driver(settings) as driver:
        report = run_smoke(driver, settings.neo4j_database)
    top_id, top_score = report.vector_hits[0]
    console.print(
        f"vector index: nearest to the query vector is '{top_id}' (index score {top_score:.3f}, i.e. (1 + cosine) / 2)"
    )
    ranked = ", ".join(f"{node}={score:.3f}" for node, score in report.pagerank)
    console.print(f"GDS personalized PageRank from '{PAGERANK_SOURCE}': {ranked}")
    console.print(f"APOC {report.apoc_version}")
