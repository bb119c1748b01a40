"""The generic JSONL/CSV SKB source: the documented example, and one error per kind of bad input."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from grasp_agent.errors import SchemaError, SourceFormatError
from grasp_agent.skb.generic import GenericSource

EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "generic_example"
NODES = (EXAMPLE / "nodes.jsonl").read_text(encoding="utf-8")
EDGES = (EXAMPLE / "edges.jsonl").read_text(encoding="utf-8")


def _example(kind: str) -> GenericSource:
    return GenericSource(EXAMPLE / "schema.json", EXAMPLE / f"nodes.{kind}", EXAMPLE / f"edges.{kind}")


def _source(tmp_path: Path, nodes: str = NODES, edges: str = EDGES, suffix: str = "jsonl") -> GenericSource:
    shutil.copy(EXAMPLE / "schema.json", tmp_path / "schema.json")
    (tmp_path / f"nodes.{suffix}").write_text(nodes, encoding="utf-8")
    (tmp_path / f"edges.{suffix}").write_text(edges, encoding="utf-8")
    return GenericSource(tmp_path / "schema.json", tmp_path / f"nodes.{suffix}", tmp_path / f"edges.{suffix}")


def _consume(source: GenericSource) -> None:
    list(source.nodes())
    list(source.edges())


def test_the_documented_example_loads() -> None:
    source = _example("jsonl")
    nodes, edges = list(source.nodes()), list(source.edges())
    assert source.schema().name == "films"
    assert Counter(node.label for node in nodes) == {"Person": 2, "Film": 2, "Studio": 1}
    assert nodes[0].id == "p1" and nodes[0].name == "Hayao Miyazaki"
    assert nodes[0].properties == {
        "bio": "Japanese animator, director and manga artist.",
        "aliases": ["Miyazaki Hayao", "宮崎駿"],
    }
    assert nodes[3].properties == {"genres": ["animation", "family"]}
    assert Counter(edge.type for edge in edges) == {"DIRECTED": 2, "ACTED_IN": 1, "PRODUCED_BY": 2}
    acted = next(edge for edge in edges if edge.type == "ACTED_IN")
    assert (acted.source_label, acted.source_id, acted.target_label, acted.target_id) == ("Person", "p2", "Film", "f1")
    assert acted.properties == {"role": "Chihiro"}
    assert source.size_hint() == (5, 5) and source.skipped() == {}


def test_csv_and_jsonl_give_the_same_records() -> None:
    jsonl, csv = _example("jsonl"), _example("csv")
    assert list(csv.nodes()) == list(jsonl.nodes())
    assert list(csv.edges()) == list(jsonl.edges())
    assert csv.size_hint() == jsonl.size_hint()
    mixed = GenericSource(EXAMPLE / "schema.json", EXAMPLE / "nodes.csv", EXAMPLE / "edges.jsonl")
    assert list(mixed.edges()) == list(jsonl.edges())


def test_jsonl_ids_keep_their_type(tmp_path: Path) -> None:
    nodes = '{"id": 1, "type": "Film", "name": "Ran"}\n{"id": "1", "type": "Studio", "name": "Herald Ace"}\n'
    edges = '{"source": 1, "type": "PRODUCED_BY", "target": "1"}\n'
    source = _source(tmp_path, nodes, edges)
    assert [node.id for node in source.nodes()] == [1, "1"]
    (edge,) = source.edges()
    assert (edge.source_label, edge.source_id, edge.target_label, edge.target_id) == ("Film", 1, "Studio", "1")


def test_fingerprint_follows_content(tmp_path: Path) -> None:
    source = _source(tmp_path)
    before = source.fingerprint()
    (tmp_path / "edges.jsonl").write_text(EDGES.replace("Chihiro", "Sen"), encoding="utf-8")
    assert source.fingerprint() != before


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        (
            '{"id": "p1", "type": "Person", "name": "A"}\n{"id": "p2", "type": "Person", "name": \n',
            r"nodes\.jsonl:2: malformed JSON",
        ),
        ('["p1", "Person", "A"]\n', r"nodes\.jsonl:1: expected a JSON object, got list"),
        ('{"type": "Person", "name": "A"}\n', r"nodes\.jsonl:1: missing 'id'"),
        ('{"id": "p1", "name": "A"}\n', r"nodes\.jsonl:1: missing or non-string 'type' \(got None\)"),
        ('{"id": "p1", "type": "Person", "name": ""}\n', r"nodes\.jsonl:1: missing or non-string 'name' \(got ''\)"),
        (
            '{"id": 1.5, "type": "Person", "name": "A"}\n',
            r"nodes\.jsonl:1: id 1\.5 is a float; allowed: a string or an integer",
        ),
        (
            '\n{"id": "a1", "type": "Actor", "name": "A"}\n',
            r"nodes\.jsonl:2: node type 'Actor' is not in the schema; known: \['Film', 'Person', 'Studio'\]",
        ),
        (
            '{"id": "f1", "type": "Film", "name": "A", "budget": "1M"}\n',
            r"nodes\.jsonl:1: property 'budget' is not a text field of Film; allowed: \['plot', 'genres'\]",
        ),
        (
            '{"id": "f1", "type": "Film", "name": "A", "genres": ["x", 3]}\n',
            r"nodes\.jsonl:1: genres is \['x', 3\]; allowed: a string or a list of strings",
        ),
        (
            NODES + '{"id": "p1", "type": "Studio", "name": "Toho"}\n',
            r"nodes\.jsonl:6: duplicate node id 'p1', first at line 1; ids must be unique across all node types",
        ),
        (
            '{"id": 9223372036854775808, "type": "Person", "name": "A"}\n',
            r"nodes\.jsonl:1: 'id' is 9223372036854775808, outside the 64-bit integers Neo4j stores",
        ),
        ('{"id": "p1", "type": "Person", "name": "A\\ud800"}\n', r"nodes\.jsonl:1: 'name' holds a lone surrogate"),
        ('{"id": "f1", "type": "Film", "name": "A", "plot": NaN}\n', r"nodes\.jsonl:1: NaN is not a value"),
        ('{"id": "f1", "type": "Film", "name": "A", "plot": -Infinity}\n', r"nodes\.jsonl:1: -Infinity is not a"),
        (
            '{"id": "f1", "type": "Film", "name": "A", "plot": "' + "x" * 100_001 + '"}\n',
            r"nodes\.jsonl:1: 'plot' is 100,001 characters; a value may hold at most 100,000",
        ),
    ],
)
def test_bad_nodes_name_file_line_and_value(tmp_path: Path, nodes: str, message: str) -> None:
    with pytest.raises(SourceFormatError, match=message):
        list(_source(tmp_path, nodes=nodes).nodes())


@pytest.mark.parametrize(
    ("edges", "message"),
    [
        (
            '{"source": "p1", "type": "DIRECTED", "target": "f1"}\n'
            '{"source": "p1", "type": "DIRECTED", "target": "f9"}\n',
            r"edges\.jsonl:2: target 'f9' is not a node id in nodes\.jsonl",
        ),
        ('{"source": "p1", "type": "DIRECTED"}\n', r"edges\.jsonl:1: missing 'target'"),
        (
            '{"source": "p1", "type": "WROTE", "target": "f1"}\n',
            r"edges\.jsonl:1: relation type 'WROTE' is not in the schema; "
            r"known: \['ACTED_IN', 'DIRECTED', 'PRODUCED_BY'\]",
        ),
        (
            '{"source": "s1", "type": "DIRECTED", "target": "f1"}\n',
            r"edges\.jsonl:1: Studio -\[DIRECTED\]-> Film is not declared; DIRECTED connects \[\('Person', 'Film'\)\]$",
        ),
        (
            '{"source": "f1", "type": "DIRECTED", "target": "p1"}\n',
            r"edges\.jsonl:1: Film -\[DIRECTED\]-> Person is not declared; "
            r".* the schema declares the reverse, so swap source and target",
        ),
        (
            '{"source": "p2", "type": "ACTED_IN", "target": "f1", "role": {"name": "Chihiro"}}\n',
            r"edges\.jsonl:1: edge property role is \{'name': 'Chihiro'\}; allowed: a string, number, boolean",
        ),
        (
            '{"source": "p2", "type": "ACTED_IN", "target": "f1", "the role": "Chihiro"}\n',
            r"edges\.jsonl:1: edge property name 'the role' must match",
        ),
        ('{"source": "p1", "type": "DIRECTED", "target": "f1"}\n{oops}\n', r"edges\.jsonl:2: malformed JSON"),
        (
            '{"source": "p2", "type": "ACTED_IN", "target": "f1", "weight": 1e400}\n',
            r"edges\.jsonl:1: 'weight' is inf; allowed: finite numbers",
        ),
        (
            '{"source": "p2", "type": "ACTED_IN", "target": "f1", "ranks": [1, -9223372036854775809]}\n',
            r"edges\.jsonl:1: 'ranks' is -9223372036854775809, outside the 64-bit integers",
        ),
    ],
)
def test_bad_edges_name_file_line_and_value(tmp_path: Path, edges: str, message: str) -> None:
    with pytest.raises(SourceFormatError, match=message):
        _consume(_source(tmp_path, edges=edges))


CSV_NODES = (EXAMPLE / "nodes.csv").read_text(encoding="utf-8")
CSV_EDGES = (EXAMPLE / "edges.csv").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("nodes", "edges", "message"),
    [
        ("id,type,name\np1,Person,A,extra\n", CSV_EDGES, r"nodes\.csv:2: 4 cells, header has 3"),
        (
            "type,id,name\nPerson,p1,A\n",
            CSV_EDGES,
            r"nodes\.csv:1: header is \['type', 'id', 'name'\]; it must start with \['id', 'type', 'name'\]",
        ),
        ("id,type,name,bio,bio\n", CSV_EDGES, r"nodes\.csv:1: bad or repeated property columns \['bio'\]"),
        ("id,type,name\n,Person,A\n", CSV_EDGES, r"nodes\.csv:2: missing 'id'"),
        ('id,type,name,plot\nf1,Film,A,"unterminated\n', CSV_EDGES, r"nodes\.csv:\d+: malformed CSV"),
        (
            "id,type,name,budget\nf1,Film,A,1M\n",
            CSV_EDGES,
            r"nodes\.csv:2: property 'budget' is not a text field of Film",
        ),
        (
            CSV_NODES,
            "source,type,target\np1,DIRECTED,f1\n\np1,DIRECTED,x\n",
            r"edges\.csv:4: target 'x' is not a node id",
        ),
    ],
)
def test_bad_csv_names_file_line_and_value(tmp_path: Path, nodes: str, edges: str, message: str) -> None:
    with pytest.raises(SourceFormatError, match=message):
        _consume(_source(tmp_path, nodes, edges, suffix="csv"))


def test_bad_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(
        SourceFormatError, match=r"nodes\.tsv: unsupported extension '\.tsv'; allowed: \['\.jsonl', '\.csv'\]"
    ):
        GenericSource(EXAMPLE / "schema.json", tmp_path / "nodes.tsv", EXAMPLE / "edges.jsonl")
    with pytest.raises(SourceFormatError, match=r"missing\.jsonl: file not found"):
        GenericSource(EXAMPLE / "schema.json", EXAMPLE / "nodes.jsonl", tmp_path / "missing.jsonl")
    (tmp_path / "schema.json").write_text('{"name": "x y", "node_types": []}', encoding="utf-8")
    with pytest.raises(SchemaError, match=r"schema\.json: invalid SKB schema"):
        GenericSource(tmp_path / "schema.json", EXAMPLE / "nodes.jsonl", EXAMPLE / "edges.jsonl")
    (tmp_path / "nodes.jsonl").write_bytes(b'{"id": "p1", "type": "Person", "name": "\xff"}\n')
    shutil.copy(EXAMPLE / "edges.jsonl", tmp_path / "edges.jsonl")
    with pytest.raises(SourceFormatError, match=r"nodes\.jsonl: not UTF-8 text"):
        list(GenericSource(EXAMPLE / "schema.json", tmp_path / "nodes.jsonl", tmp_path / "edges.jsonl").nodes())


def test_a_schema_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    (tmp_path / "schema.json").write_bytes((EXAMPLE / "schema.json").read_bytes().replace(b"Film", b"F\xefilm", 1))
    with pytest.raises(SchemaError, match=r"schema\.json: not UTF-8 text"):
        GenericSource(tmp_path / "schema.json", EXAMPLE / "nodes.jsonl", EXAMPLE / "edges.jsonl")


@pytest.mark.parametrize(
    ("node_type", "relation", "message"),
    [
        ({"label": "GraspMeta"}, None, r"node type label 'GraspMeta' is reserved"),
        ({"label": "adapathQuery"}, None, r"node type label 'adapathQuery' is reserved"),
        ({"label": "Film", "text_fields": ["plot", "doc"]}, None, r"text fields \['doc'\] of Film are reserved"),
        ({"label": "Film", "text_fields": ["id"]}, None, r"text fields \['id'\] of Film are reserved"),
        ({"label": "Film", "text_fields": ["plot_embedding"]}, None, r"\['plot_embedding'\] of Film are reserved"),
        ({"label": "Film", "text_fields": ["plot", "plot"]}, None, r"text fields of Film repeat a name"),
        ({"label": "Film"}, "ADAPATH_USES", r"relation type 'ADAPATH_USES' is reserved"),
    ],
)
def test_the_schema_refuses_names_grasp_writes_itself(
    node_type: dict[str, object], relation: str | None, message: str
) -> None:
    from grasp_agent.skb.schema import SkbSchema

    schema: dict[str, object] = {"name": "films", "node_types": [node_type]}
    if relation:
        schema["relation_types"] = [{"type": relation, "pairs": [{"source": "Film", "target": "Film"}]}]
    with pytest.raises(SchemaError, match=message):
        SkbSchema.from_json(json.dumps(schema))
