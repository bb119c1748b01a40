"""Hostile text (#32): control characters and bidi overrides from an SKB or a question never reach the terminal
raw (`grasp search`, `grasp plan`, error lines, --json), are stripped from text fields at load, and JSON
nested past Python's recursion limit is one `error:` line, not a traceback."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import pytest
import typer
from typer.testing import CliRunner

from grasp_agent.cli import _common, plan
from grasp_agent.cli.main import app
from grasp_agent.errors import SourceFormatError
from grasp_agent.graph_branch.branch import GraphBranchResult
from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable
from grasp_agent.graph_branch.mentions import Mention
from grasp_agent.graph_branch.planning import PlanningOutcome
from grasp_agent.graph_branch.procedure_calls import NodeLink, RankedNode
from grasp_agent.graph_branch.ranking import GraphRanking
from grasp_agent.pipeline.results import SearchHit, SearchResult
from grasp_agent.skb.generic import GenericSource
from grasp_agent.skb.graph_stage import _check_node, node_row
from grasp_agent.skb.source import NodeRecord
from grasp_agent.terminal_text import printable, safe_json

EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "generic_example"
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4K\x07"  # OSC 52: puts "rm -rf ~" on the clipboard
HIDDEN = "\x1b[8mhidden\x1b[0m"
C1_CSI = "\x9b2J"  # one-character CSI: clears the screen on terminals that take C1
BIDI = "\u202eevil\u202c \u2066x\u2069"
HOSTILE = f"Dravet{CLIPBOARD} syndrome {HIDDEN} {C1_CSI} {BIDI}\x00\x08\x7f"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2066", "\u2069", "\x00", "\x08", "\x7f")
RUNNER = CliRunner()


def _raw(text: str) -> list[str]:
    return [character for character in RAW if character in text]


def test_printable_drops_controls_and_overrides_and_keeps_the_text() -> None:
    assert printable(HOSTILE) == "Dravet]52;c;cm0gLXJmIH4K syndrome [8mhidden[0m 2J evil x"
    kept = "Névé 宮崎駿 שלום\u200f a\tb\nc"  # letters of any script, a right-to-left mark, tab and newline
    assert printable(kept) == kept


def test_safe_json_escapes_what_json_dumps_leaves_raw_and_parses_to_the_same_values() -> None:
    document = json.dumps({"name": HOSTILE, "other": "宮崎駿"}, ensure_ascii=False)
    assert _raw(document) != []  # json.dumps leaves DEL, C1 and bidi characters raw
    shown = safe_json(document)
    assert _raw(shown) == [] and json.loads(shown) == {"name": HOSTILE, "other": "宮崎駿"}
    assert "宮崎駿" in shown


class HostileGrasp:
    """`Grasp.from_config(...)` as `grasp search` uses it, answering with a node whose name is hostile."""

    @classmethod
    def from_config(cls, settings: object, progress: bool = True) -> HostileGrasp:
        return cls()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def stream(self, question: str, options: object) -> Iterator[object]:
        hit = SearchHit(rank=1, node_id="OMIM:1", name=HOSTILE, label="Disease", score=0.5)
        yield SearchResult(question=question, hits=[hit], notes=[f"note {HIDDEN}"], failures={"graph": CLIPBOARD})


@pytest.mark.parametrize("as_json", [False, True])
def test_grasp_search_prints_no_control_characters(monkeypatch: pytest.MonkeyPatch, as_json: bool) -> None:
    import grasp_agent.api

    monkeypatch.setattr(grasp_agent.api, "Grasp", HostileGrasp)
    done = RUNNER.invoke(
        app, ["search", f"Which {C1_CSI}diseases{BIDI}?", *(["--json"] if as_json else [])], env={"COLUMNS": "300"}
    )
    assert done.exit_code == 0, done.output
    assert _raw(done.stdout) == [] and _raw(done.stderr) == []
    if as_json:  # the values themselves are untouched: --json is for scripts
        assert json.loads(done.stdout)["hits"][0]["name"] == HOSTILE
    else:
        assert "Dravet" in done.stdout and "syndrome" in done.stdout


class HostileBranch:
    def run(self, question: str, with_cypher: bool = False) -> GraphBranchResult:
        link = NodeLink(node_id="HP:1", name=HOSTILE, label="Phenotype", score=0.97, degree=12)
        witness: tuple[dict[str, Any], ...] = (
            {"var": "a", "id": "HP:1", "name": HOSTILE, "label": "Phenotype"},
            {"type": "HAS_PHENOTYPE", "direction": "in"},
            {"var": "t", "id": "OMIM:2", "name": HOSTILE, "label": "Disease"},
        )
        node = RankedNode("OMIM:2", HOSTILE, anchor_score=0.9, dense_score=0.5, score=1.4, witness=witness)
        return GraphBranchResult(
            question=question,
            mentions=(),
            entity_table=EntityTable((EntityRow(Mention(text=f"spasm{HIDDEN}"), {"Phenotype": (link,)}),)),
            planning=PlanningOutcome(planner="heuristic", plan=None, reason=f"no target {CLIPBOARD}"),
            ranking=GraphRanking(nodes=(node,)),
            notes=(f"a note {BIDI}",),
        )


@pytest.mark.parametrize("as_json", [False, True])
def test_grasp_plan_prints_no_control_characters(monkeypatch: pytest.MonkeyPatch, as_json: bool) -> None:
    monkeypatch.setattr(plan, "open_driver", lambda settings: _null_context())
    monkeypatch.setattr(plan, "make_embedder", lambda settings: object())
    monkeypatch.setattr(plan, "graph_branch_for", lambda *args, **kwargs: HostileBranch())
    arguments = ["plan", f"Which diseases {HIDDEN}?", "--planner", "heuristic", *(["--json"] if as_json else [])]
    done = RUNNER.invoke(app, arguments, env={"COLUMNS": "300"})
    assert done.exit_code == 0, done.output
    assert _raw(done.stdout) == [] and _raw(done.stderr) == []
    assert "Dravet" in done.stdout


class _null_context:  # noqa: N801 (stands in for a function)
    def __enter__(self) -> object:
        return object()

    def __exit__(self, *exc: object) -> None:
        return None


def test_an_error_line_prints_no_control_characters() -> None:
    probe = typer.Typer()

    @probe.command()
    @_common.friendly_errors
    def fails() -> None:
        raise SourceFormatError("nodes.jsonl", 3, f"bad value {HOSTILE}")

    done = RUNNER.invoke(probe, [])
    assert done.exit_code == 1 and done.stderr.startswith("error: ") and _raw(done.stderr) == []


def test_loaded_names_and_text_fields_lose_control_characters_and_ids_stay_exact() -> None:
    source = GenericSource(EXAMPLE / "schema.json", EXAMPLE / "nodes.jsonl", EXAMPLE / "edges.jsonl")
    record = NodeRecord("Person", "p\x1b1", HOSTILE, {"bio": f"bio {HIDDEN}", "aliases": [CLIPBOARD + "x", "y"]})
    row = node_row(source.schema(), record)
    assert row == {
        "id": "p\x1b1",
        "name": printable(HOSTILE),
        "properties": {"bio": "bio [8mhidden[0m", "aliases": ["]52;c;cm0gLXJmIH4Kx", "y"]},
    }
    with pytest.raises(SourceFormatError, match="control characters only"):
        _check_node(source.schema(), NodeRecord("Person", "p2", "\x1b\x07"))


DEEP = 100_000


def test_deeply_nested_jsonl_is_a_source_error_naming_the_line(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "schema.json", tmp_path / "schema.json")
    nodes = tmp_path / "nodes.jsonl"
    nodes.write_text(
        '{"id": "p1", "type": "Person", "name": "A"}\n'
        + '{"id": "p2", "type": "Person", "name": "B", "bio": '
        + "[" * DEEP
        + "]" * DEEP
        + "}\n"
    )
    source = GenericSource(tmp_path / "schema.json", nodes, EXAMPLE / "edges.jsonl")
    with pytest.raises(SourceFormatError, match=r"nodes.jsonl:2: JSON nested too deeply"):
        list(source.nodes())
    nodes.write_text('{"id": "p2", "type": "Person", "name": "B", "bio": ' + "[" * 900 + "]" * 900 + "}\n")
    with pytest.raises(SourceFormatError, match=r"nodes.jsonl:1: .{0,200}allowed: a string or a list"):
        list(source.nodes())  # shallower: refused as a value, in a message of bounded length


@pytest.mark.parametrize("broken", ["runs", "queries", "gold_names"])
def test_grasp_eval_score_on_deeply_nested_json_is_one_error_line(tmp_path: Path, broken: str) -> None:
    from grasp_agent.evaluation.run_files import write_runs
    from tests.unit.test_run_files import QUERIES, RESULTS

    runs = write_runs(RESULTS, tmp_path / "eval", {"q1": {"Dravet syndrome"}})
    deep = "[" * DEEP + "]" * DEEP
    queries = tmp_path / "queries.jsonl"
    lines = [json.dumps({"id": q.id, "query": q.text, "answer_ids": list(q.answer_ids)}) for q in QUERIES]
    if broken == "queries":
        lines.append('{"id": "q9", "query": "x", "answer_ids": ' + deep + "}")
    queries.write_text("\n".join(lines) + "\n")
    if broken == "runs":
        with (runs / "bm25.jsonl").open("a") as run_file:
            run_file.write('{"system": "bm25", "query_id": "q1", "ranked": ' + deep + ', "latency_ms": 1}\n')
    if broken == "gold_names":
        (runs / "gold_names.json").write_text(deep)
    done = RUNNER.invoke(app, ["eval", "score", "--runs", str(tmp_path / "eval"), "--queries", str(queries)])
    assert done.exit_code == 1, done.output
    assert done.stderr.startswith("error: ") and "nested too deeply" in done.stderr
    assert isinstance(done.exception, SystemExit) and "Traceback" not in done.output
