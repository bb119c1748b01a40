"""`grasp ui`: the Gradio demo over the search pipeline, on 127.0.0.1 unless `--expose` is given."""

from __future__ import annotations

import socket

import typer

from grasp_agent.cli._common import console, friendly_errors, is_loopback, load_settings
from grasp_agent.config import Settings
from grasp_agent.errors import GraspError

DEFAULT_PORT = 7860
LOCALHOST = "127.0.0.1"


def check_host(host: str, expose: bool) -> None:
    """Refuse a non-loopback address unless exposing was asked for: the demo has no login."""
    if not expose and not is_loopback(host):
        raise GraspError(
            f"--host {host} would serve the demo (which has no login) beyond this machine; "
            "allowed without --expose: 127.0.0.1, ::1, localhost. Add --expose to bind it anyway."
        )


def check_port(host: str, port: int) -> None:
    """Binds `host:port` once, as the server will (address reuse on, so a closed port's TIME_WAIT does not
    count), before minutes of loading indexes; a port in use is one error line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise GraspError(
            f"cannot serve on {host}:{port}: {error.strerror or error} (another `grasp ui`?); "
            "stop what holds it or choose another port with --port"
        ) from error


def launch_ui(settings: Settings, host: str = LOCALHOST, port: int = DEFAULT_PORT) -> None:
    """Opens the pipeline, serves the demo until Ctrl-C, then closes the pipeline."""
    from grasp_agent.api import Grasp  # imports LangGraph and Gradio; kept off the other commands' start-up
    from grasp_agent.ui import build_app, launch_options

    check_port(host, port)
    with Grasp.from_config(settings, progress=True) as grasp:
        app = build_app(grasp, settings)
        options = launch_options(host, port, loopback=is_loopback(host))
        console.print(f"GRASP demo on http://{host}:{port} (Ctrl-C stops it)", highlight=False)
        try:
            app.launch(server_name=host, server_port=port, quiet=True, **options)
        except OSError as error:  # taken while the indexes loaded
            raise GraspError(f"cannot serve on {host}:{port}: {error}; choose another port with --port") from error


@friendly_errors
def ui(
    port: int = typer.Option(DEFAULT_PORT, "--port", min=1, max=65535, help="Port to serve on."),
    host: str = typer.Option(LOCALHOST, "--host", help="Address to bind; other than loopback needs --expose."),
    expose: bool = typer.Option(False, "--expose", help="Allow binding a non-loopback address (no login!)."),
) -> None:
    """The demo in a browser: live stage progress, entity table, plan, Cypher, rankings and witness paths."""
    check_host(host, expose)
    check_port(host, port)
    launch_ui(load_settings(), host, port)
