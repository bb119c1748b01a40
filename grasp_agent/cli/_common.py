"""What every command shares: settings, the console, and turning GraspError into a message."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from functools import wraps
from typing import NoReturn, ParamSpec, TypeVar

import typer
from neo4j.exceptions import DriverError, Neo4jError
from pydantic import ValidationError
from rich.console import Console

from grasp_agent.config import Settings
from grasp_agent.errors import GraspError
from grasp_agent.pipeline.options import PlannerName


class PlannerChoice(str, Enum):
    """`--planner`: the graph branch's planner (default: GRASP_PLANNER)."""

    HEURISTIC = "heuristic"
    LLM = "llm"
    PATHBANK = "pathbank"


PLANNER_HELP = ("heuristic, llm (the configured GRASP_LLM) or pathbank (routes from the Path-Bank); "
                "default: GRASP_PLANNER. --heuristic is short for --planner heuristic.")


def planner_name(planner: PlannerChoice | None, heuristic: bool) -> PlannerName | None:
    """The planner asked for, by `--planner` or the older `--heuristic` flag (which may not contradict it)."""
    if heuristic and planner not in (None, PlannerChoice.HEURISTIC):
        raise typer.BadParameter(f"--heuristic contradicts --planner {planner.value if planner else ''}")
    chosen = PlannerChoice.HEURISTIC if heuristic else planner
    return chosen.value if chosen is not None else None


console = Console()
errors = Console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


def is_loopback(host: str | None) -> bool:
    """`localhost` or a loopback address (127.0.0.0/8, ::1): reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def load_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as error:
        raise GraspError(f"invalid GRASP_* setting: {error}") from error


def friendly_errors(command: Callable[P, R]) -> Callable[P, R]:
    """A command that fails on purpose prints one readable line and exits 1, never a traceback."""

    @wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except GraspError as error:
            _fail(str(error))
        except Neo4jError as error:  # a query the server refused: show its own words
            _fail(f"Neo4j refused a query: {error.message} ({error.code})")
        except DriverError as error:
            _fail(f"lost the connection to Neo4j: {error}")

    return wrapper


def _fail(message: str) -> NoReturn:
    errors.print("[bold red]error:[/] ", end="")
    errors.print(message, markup=False, highlight=False)
    raise typer.Exit(code=1)


@contextmanager
def progress_lines(title: str) -> Iterator[Callable[[str], None]]:
    """A spinner with the latest progress line under it (for Maven builds and long waits)."""
    with console.status(title) as status:
        yield lambda line: status.update(f"{title}\n[dim]{line}[/]")
