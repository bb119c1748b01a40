"""README's command tables match the CLI: every `grasp ...` command a table row names exists, and every option
the row names is in that command's --help (hidden aliases of renamed options do not count)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grasp_agent.cli.main import app

README = Path(__file__).resolve().parents[2] / "README.md"
WORD = re.compile(r"[a-z][a-z0-9-]*")
OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def table_commands() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(command path, options named) of every table row whose first cell is a backticked `grasp ...`."""
    rows = []
    for line in README.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\|\s*`grasp ([^`]*)`", line)
        if match is None:
            continue
        words = match.group(1).replace("\\|", "|").split()
        path = []
        for word in words:
            if not WORD.fullmatch(word):
                break
            path.append(word)
        rows.append((tuple(path), tuple(OPTION.findall(" ".join(words[len(path) :])))))
    return rows


ROWS = table_commands()


def test_the_readme_tables_name_the_commands() -> None:
    named = {path for path, _ in ROWS}
    assert {("db", "status"), ("skb", "info"), ("search",), ("plan",), ("eval",), ("eval", "score")} <= named
    assert len(named) >= 25


@pytest.mark.parametrize(("path", "options"), ROWS, ids=[" ".join(path) for path, _ in ROWS])
def test_every_readme_command_and_option_is_in_its_help(path: tuple[str, ...], options: tuple[str, ...]) -> None:
    shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, f"grasp {' '.join(path)}: {shown.output}"
    for option in options:
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", shown.stdout), (
            f"README names {option} for `grasp {' '.join(path)}`, which its --help does not list"
        )
