"""What every command shares: settings, the console, the option choices, and turning errors into exit codes."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum, IntEnum
from functools import wraps
from typing import NoReturn, ParamSpec, TypeVar

import typer
from neo4j.exceptions import DatabaseUnavailable, DriverError, Neo4jError, ServiceUnavailable, SessionExpired
from pydantic import ValidationError
from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook, RenderResult
from rich.segment import Segment

from grasp_agent.config import Settings
from grasp_agent.errors import DatabaseUnavailableError, GraspError
from grasp_agent.pipeline.options import PlannerName
from grasp_agent.skb.context import NoSkbLoadedError
from grasp_agent.terminal_text import printable, safe_json


class ExitCode(IntEnum):
    """What a `grasp` command exits with (README, "Exit codes")."""

    OK = 0
    ERROR = 1  # a failure grasp reports in one line: a GraspError, a query Neo4j refused
    USAGE = 2  # Typer's usage errors (unknown option, bad or missing value); refusing to act without --yes
    DATABASE_UNREACHABLE = 3  # the local instance is not running, or no Neo4j answers at the address
    NO_SKB = 4  # Neo4j answers but holds no (such) knowledge base


class PlannerChoice(str, Enum):
    """`--planner`: the graph branch's planner (default: GRASP_PLANNER)."""

    HEURISTIC = "heuristic"
    LLM = "llm"
    PATHBANK = "pathbank"


class FusionChoice(str, Enum):
    """`--fusion`: static (one graph weight) or dynamic (fitted tables) RRF."""

    STATIC = "static"
    DYNAMIC = "dynamic"


class DeviceChoice(str, Enum):
    """`--device` of the trainers: auto (CUDA when torch sees it, else the CPU), cpu or cuda."""

    AUTO = "auto"
    CPU = "cpu"
    CUDA = "cuda"


PLANNER_HELP = (
    "heuristic, llm (the configured GRASP_LLM) or pathbank (routes from the Path-Bank); "
    "default: GRASP_PLANNER. --heuristic is short for --planner heuristic."
)


def planner_name(planner: PlannerChoice | None, heuristic: bool) -> PlannerName | None:
    """The planner asked for, by `--planner` or the older `--heuristic` flag (which may not contradict it)."""
    if heuristic and planner not in (None, PlannerChoice.HEURISTIC):
        raise typer.BadParameter(f"--heuristic contradicts --planner {planner.value if planner else ''}")
    chosen = PlannerChoice.HEURISTIC if heuristic else planner
    return chosen.value if chosen is not None else None


class _Printable:
    """A renderable shown without the control characters its text holds; rich's own styling and cursor
    moves (control segments) pass as they are."""

    def __init__(self, inner: ConsoleRenderable) -> None:
        self._inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self._inner, options):
            yield segment if segment.control else Segment(printable(segment.text), segment.style)


class PrintableText(RenderHook):
    """Everything a console prints (node names, questions, error messages) loses its control characters, so
    a hostile SKB or question cannot drive the terminal (escape sequences, hidden text, bidi overrides)."""

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_Printable(renderable) for renderable in renderables]


def safe_console(stderr: bool = False) -> Console:
    terminal = Console(stderr=stderr)
    terminal.push_render_hook(PrintableText())
    return terminal


console = safe_console()
errors = safe_console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


def renamed(value: R, old_value: R | None, new: str, old: str, default: R | None = None) -> R:
    """An option given by its name or by its old one (a hidden alias kept for scripts written before the
    rename); giving both is a usage error."""
    if old_value is None:
        return value
    if value != default:
        raise typer.BadParameter(f"{old} is the old name of {new}; give {new} only")
    errors.print(f"note: {old} is deprecated; say {new}", highlight=False)
    return old_value


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


_UNREACHABLE = (DatabaseUnavailableError, ServiceUnavailable, SessionExpired, DatabaseUnavailable)


def friendly_errors(command: Callable[P, R]) -> Callable[P, R]:
    """A command that fails on purpose prints one readable line on stderr, never a traceback, and exits with
    its `ExitCode`: 3 when Neo4j cannot be reached, 4 when it holds no SKB, 1 otherwise."""

    @wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except NoSkbLoadedError as error:
            fail(str(error), ExitCode.NO_SKB)
        except GraspError as error:
            fail(str(error), ExitCode.DATABASE_UNREACHABLE if isinstance(error, _UNREACHABLE) else ExitCode.ERROR)
        except Neo4jError as error:  # a query the server refused: show its own words
            fail(
                f"Neo4j refused a query: {error.message} ({error.code})",
                ExitCode.DATABASE_UNREACHABLE if isinstance(error, _UNREACHABLE) else ExitCode.ERROR,
            )
        except DriverError as error:
            fail(
                f"lost the connection to Neo4j: {error}",
                ExitCode.DATABASE_UNREACHABLE if isinstance(error, _UNREACHABLE) else ExitCode.ERROR,
            )

    return wrapper


def fail(message: str, code: ExitCode = ExitCode.ERROR) -> NoReturn:
    """`error: <message>` on stderr (stdout stays clean for --json), then exit with `code`; one line however
    narrow the terminal (a script reads it with `head -1`)."""
    errors.print("[bold red]error:[/] ", end="")
    errors.print(message, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code=int(code))


def print_json(document: object) -> None:
    """One JSON document on stdout, nothing else (no markup, no wrapping): what every `--json` prints."""
    import json

    echo_json(json.dumps(document, indent=1, ensure_ascii=False, default=str))


def echo_json(document: str) -> None:
    """A JSON text on stdout, its DEL, C1 and bidi characters written as escapes (the values stay the same)."""
    typer.echo(safe_json(document))


@contextmanager
def progress_lines(title: str) -> Iterator[Callable[[str], None]]:
    """A spinner with the latest progress line under it (for Maven builds and long waits)."""
    with console.status(title) as status:
        yield lambda line: status.update(f"{title}\n[dim]{line}[/]")
