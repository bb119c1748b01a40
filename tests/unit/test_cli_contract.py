"""One CLI contract (#17): every read command's --json prints one JSON document on stdout, errors exit with the
documented codes, renamed options keep their old names as hidden aliases. No database: the commands' readers are
replaced by stand-ins."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import pytest
import typer
from neo4j.exceptions import ServiceUnavailable
from typer.testing import CliRunner

from grasp_agent.cli import _common, db, plan, skb
from grasp_agent.cli.main import app
from grasp_agent.db.server import ServerState
from grasp_agent.db.versions import StackVersions
from grasp_agent.errors import DatabaseUnavailableError, GraspError
from grasp_agent.graph_branch.branch import GraphBranchResult
from grasp_agent.graph_branch.entity_table import EntityRow, EntityTable
from grasp_agent.graph_branch.mentions import Mention
from grasp_agent.graph_branch.planning import PlanningOutcome
from grasp_agent.graph_branch.procedure_calls import CompiledPlan, NodeLink, RankedNode
from grasp_agent.graph_branch.ranking import GraphRanking
from grasp_agent.pipeline.results import SearchHit, SearchResult
from grasp_agent.skb.context import NoSkbLoadedError
from grasp_agent.skb.info import SkbInfo
from grasp_agent.skb.schema import SkbSchema

RUNNER = CliRunner()


def invoke(*args: str) -> Any:
    """Runs `grasp ARGS`; stdout and stderr apart, so a test sees what a pipe would."""
    return RUNNER.invoke(app, list(args), env={"COLUMNS": "200"})


@contextmanager
def no_driver(*_: object, **__: object) -> Iterator[object]:
    yield object()


class FakeServer:
    def __init__(self, state: ServerState) -> None:
        self._state = state

    def __call__(self, settings: object) -> FakeServer:
        return self

    def state(self) -> ServerState:
        return self._state


VERSIONS = StackVersions(
    neo4j="5.26.18", edition="community", plugins={"gds": "2.13.9", "apoc": "5.26.18", "grasp": "0.1.0"}
)


def test_db_status_json_is_one_document(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "LocalServer", FakeServer(ServerState.RUNNING))
    monkeypatch.setattr(db, "open_driver", no_driver)
    monkeypatch.setattr(db, "read_versions", lambda driver, database: VERSIONS)
    done = invoke("db", "status", "--json")
    assert done.exit_code == 0, done.output
    status = json.loads(done.stdout)
    assert status["state"] == "running" and status["neo4j"] == "5.26.18"
    assert status["plugins"] == {"gds": "2.13.9", "apoc": "5.26.18", "grasp": "0.1.0"}


def test_db_status_of_a_stopped_instance_exits_3_with_json_still_one_document(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "LocalServer", FakeServer(ServerState.STOPPED))
    done = invoke("db", "status", "--json")
    assert done.exit_code == _common.ExitCode.DATABASE_UNREACHABLE == 3
    assert json.loads(done.stdout)["state"] == "stopped"
    assert "is not running" in done.stderr


SCHEMA = SkbSchema.model_validate(
    {
        "name": "films",
        "description": "Directors and films.",
        "node_types": [{"label": "Person", "text_fields": ["bio"]}, {"label": "Film"}],
        "relation_types": [{"type": "DIRECTED", "pairs": [{"source": "Person", "target": "Film"}]}],
    }
)


def test_skb_info_json_is_the_schema_and_no_skb_exits_4(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skb, "open_driver", no_driver)
    infos: list[SkbInfo] = [
        SkbInfo(schema=SCHEMA, state=None, label_counts={"Film": 1, "Person": 1}, patterns=[], indexes=[])
    ]
    monkeypatch.setattr(skb, "read_skb_info", lambda driver, database: infos)
    done = invoke("skb", "info", "--json")
    assert done.exit_code == 0, done.output
    assert SkbSchema.model_validate(json.loads(done.stdout)) == SCHEMA
    infos.clear()
    empty = invoke("skb", "info", "--json")
    assert empty.exit_code == _common.ExitCode.NO_SKB == 4
    assert empty.stdout == "" and "No SKB is loaded" in empty.stderr


class FakeBranch:
    def __init__(self, result: GraphBranchResult) -> None:
        self.result = result

    def run(self, question: str, with_cypher: bool = False) -> GraphBranchResult:
        return self.result


def test_plan_json_is_one_document(monkeypatch: pytest.MonkeyPatch) -> None:
    link = NodeLink(node_id="HP:1", name="Epileptic spasm", label="Phenotype", score=0.97, degree=12)
    node = RankedNode(
        node_id="OMIM:2",
        name="DEE 96",
        anchor_score=0.97,
        dense_score=0.5,
        score=1.47,
        witness=(
            {"var": "a", "id": "HP:1", "name": "Epileptic spasm", "label": "Phenotype"},
            {"type": "HAS_PHENOTYPE", "direction": "in"},
            {"var": "t", "id": "OMIM:2", "name": "DEE 96", "label": "Disease"},
        ),
    )
    result = GraphBranchResult(
        question="Which diseases present epileptic spasm?",
        mentions=(),
        entity_table=EntityTable((EntityRow(Mention(text="epileptic spasm"), {"Phenotype": (link,)}),)),
        planning=PlanningOutcome(planner="heuristic", plan=None, reason="no target type"),
        ranking=GraphRanking(nodes=(node,), compiled=CompiledPlan("RETURN 1", {"vector": [0.5] * 20})),
        timings_ms={"extract": 1.0, "link": 2.0, "plan": 3.0, "execute": 4.0},
    )
    monkeypatch.setattr(plan, "open_driver", no_driver)
    monkeypatch.setattr(plan, "make_embedder", lambda settings: object())
    monkeypatch.setattr(plan, "graph_branch_for", lambda *args, **kwargs: FakeBranch(result))
    done = invoke("plan", "Which diseases present epileptic spasm?", "--planner", "heuristic", "--json", "-k", "1")
    assert done.exit_code == 0, done.output
    shown = json.loads(done.stdout)
    assert shown["entity_table"][0]["links"]["Phenotype"][0]["node_id"] == "HP:1"
    assert shown["plan"] is None and shown["no_plan_reason"] == "no target type"
    assert shown["cypher_params"] == {"vector": [0.5] * 20}  # in full: pasted into Neo4j Browser
    assert [target["node_id"] for target in shown["targets"]] == ["OMIM:2"]
    assert shown["timings_ms"] == {"extract": 1.0, "link": 2.0, "plan": 3.0, "execute": 4.0}


class FakeGrasp:
    """`Grasp.from_config(...)` as `grasp search` uses it: a context manager whose stream ends with the result."""

    @classmethod
    def from_config(cls, settings: object, progress: bool = True) -> FakeGrasp:
        assert not progress  # --json: no progress bars
        return cls()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def stream(self, question: str, options: object) -> Iterator[object]:
        yield SearchResult(
            question=question, hits=[SearchHit(rank=1, node_id="OMIM:2", name="DEE 96", label="Disease", score=0.03)]
        )


def test_search_json_is_one_document(monkeypatch: pytest.MonkeyPatch) -> None:
    import grasp_agent.api

    monkeypatch.setattr(grasp_agent.api, "Grasp", FakeGrasp)
    done = invoke("search", "Which diseases present epileptic spasm?", "--json", "--fusion", "static")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["hits"][0]["node_id"] == "OMIM:2"


def test_eval_score_json_is_the_results_file(tmp_path: Path) -> None:
    from tests.unit.test_run_files import QUERIES, RESULTS, write_runs

    write_runs(RESULTS, tmp_path / "eval")
    query_file = tmp_path / "queries.jsonl"
    query_file.write_text(
        "".join(
            json.dumps({"id": q.id, "query": q.text, "answer_ids": list(q.answer_ids), "split": q.split}) + "\n"
            for q in QUERIES
        )
    )
    done = invoke("eval", "score", "--runs", str(tmp_path / "eval"), "--queries", str(query_file), "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == json.loads((tmp_path / "eval" / "results.json").read_text())
    assert "written:" in done.stderr


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (GraspError("bad file"), 1),
        (DatabaseUnavailableError("no Neo4j server answers"), 3),
        (ServiceUnavailable("gone"), 3),
        (NoSkbLoadedError("database 'neo4j' holds no SKB"), 4),
    ],
)
def test_errors_exit_with_their_documented_code(error: Exception, code: int) -> None:
    probe = typer.Typer()

    @probe.command()
    @_common.friendly_errors
    def fails() -> None:
        raise error

    done = RUNNER.invoke(probe, [])
    assert done.exit_code == code
    assert done.stdout == "" and done.stderr.startswith("error: ") and "Traceback" not in done.stderr


def test_usage_errors_exit_2_and_a_choice_lists_the_allowed_values() -> None:
    done = invoke("search", "q", "--fusion", "both")
    assert done.exit_code == _common.ExitCode.USAGE == 2
    assert "'static', 'dynamic'" in done.stderr
    assert invoke("train", "reranker", "--queries", "q.jsonl", "--device", "tpu").exit_code == 2


def test_the_old_count_option_of_bench_load_is_named_in_the_error() -> None:
    done = invoke("bench", "load", "--queries", "200")
    assert done.exit_code == 2 and "is --count 200" in done.stderr


def test_a_renamed_option_takes_its_old_name_once_but_not_both(capsys: pytest.CaptureFixture[str]) -> None:
    assert _common.renamed(Path("new.jsonl"), None, "--queries", "--questions") == Path("new.jsonl")
    assert _common.renamed(None, Path("old.jsonl"), "--queries", "--questions") == Path("old.jsonl")
    assert _common.renamed(10, 5, "-k", "--top", default=10) == 5
    with pytest.raises(typer.BadParameter, match="--questions is the old name of --queries"):
        _common.renamed(Path("new.jsonl"), Path("old.jsonl"), "--queries", "--questions")


@pytest.mark.parametrize(
    "command", [["train", "weights"], ["train", "fusion"], ["bench", "graph"], ["bench", "text"], ["bench", "load"]]
)
def test_query_files_are_queries_everywhere(command: list[str]) -> None:
    shown = invoke(*command, "--help").stdout
    assert "--queries" in shown and "--questions" not in shown  # the old name still parses, hidden


def test_eval_help_lists_every_system() -> None:
    from grasp_agent.evaluation.runner import SYSTEMS

    shown = " ".join(invoke("eval", "--help").stdout.split())
    assert all(name in shown for name in SYSTEMS)
