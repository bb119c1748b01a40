"""Bounded, derandomized fuzzing of every pure input gate: plan text, questions, identifiers, schemas and loader
rows. Each gate either accepts or raises its own typed error; nothing else may escape.

Seeded with the cases a hostile-input probe found (issue #16): backtick escapes in identifiers, integers past
64 bits, NaN, lone surrogates, reserved names, strings where objects belong.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grasp_agent.cypher_queries import fill_identifiers
from grasp_agent.errors import CypherFileError, QuestionError, SchemaError, SourceFormatError
from grasp_agent.graph_branch.plan import PlanError, parse_plan
from grasp_agent.question_text import checked_question
from grasp_agent.skb.generic import GenericSource
from grasp_agent.skb.schema import SkbSchema

BOUNDED = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SAFE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
HOSTILE_LABELS = [
    "H\\u0060) RETURN n LIMIT 0 UNION MATCH (n:Gene) RETURN n UNION MATCH (n:\\u0060Gene",
    "E\\u0060) SET a.pwned = 1 WITH * MATCH (a:\\u0060E",
    "A`B",
    "A``) DETACH DELETE n //",
    "Gene\u0000",
    "",
    " Gene",
    "GraspMeta",
]
EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "generic_example"

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.sampled_from(HOSTILE_LABELS),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
plan_like = st.fixed_dictionaries(
    {},
    optional={
        "anchors": st.lists(
            st.one_of(
                json_values,
                st.fixed_dictionaries(
                    {"var": json_values, "type": json_values, "text": json_values, "match_mode": json_values}
                ),
            ),
            max_size=3,
        ),
        "hops": st.lists(
            st.one_of(
                json_values,
                st.fixed_dictionaries(
                    {"source": json_values, "relation": json_values, "target": json_values, "direction": json_values}
                ),
            ),
            max_size=3,
        ),
        "target": st.one_of(json_values, st.fixed_dictionaries({"var": json_values, "type": json_values})),
        "relevance_text": json_values,
        "n_cand": json_values,
        "risk": json_values,
    },
)


@BOUNDED
@given(st.text(max_size=300))
@example('{"anchors": ["a"], "hops": [1], "target": {"var": "t", "type": "Disease"}}')
@example('prose before {"anchors": [] } and after')
def test_plan_text_parses_or_is_a_plan_error(text: str) -> None:
    with contextlib.suppress(PlanError):  # a plan or our typed error; anything else fails the test
        parse_plan(text)


@BOUNDED
@given(plan_like)
def test_plan_structures_parse_or_are_plan_errors(payload: dict[str, object]) -> None:
    try:
        plan = parse_plan(json.dumps(payload))
    except PlanError as error:
        assert error.errors  # every refusal says why
        return
    for name in [anchor.type for anchor in plan.anchors] + [hop.relation for hop in plan.hops] + [plan.target.type]:
        assert name is None or SAFE_NAME.fullmatch(name), name  # only safe identifiers survive parsing


@BOUNDED
@given(st.text(max_size=3000))
@example("\ud800")
@example("   ")
@example("x" * 100_000)
def test_questions_pass_stripped_or_are_question_errors(text: str) -> None:
    try:
        question = checked_question(text)
    except QuestionError:
        return
    assert question == text.strip() and 0 < len(question) <= 2000
    question.encode("utf-8")  # valid Unicode all the way down


@BOUNDED
@given(st.one_of(st.text(max_size=80), st.sampled_from(HOSTILE_LABELS)))
def test_identifiers_are_quoted_only_when_safe(name: str) -> None:
    try:
        query = fill_identifiers("MATCH (n:{{label}}) RETURN n", label=name)
    except CypherFileError:
        assert not SAFE_NAME.fullmatch(name)
        return
    assert SAFE_NAME.fullmatch(name) and query == f"MATCH (n:`{name}`) RETURN n"


identifier_like = st.one_of(
    st.from_regex(SAFE_NAME, fullmatch=True), st.text(max_size=20), st.sampled_from(HOSTILE_LABELS)
)


@BOUNDED
@given(
    st.fixed_dictionaries(
        {
            "name": identifier_like,
            "node_types": st.lists(
                st.fixed_dictionaries(
                    {"label": identifier_like}, optional={"text_fields": st.lists(identifier_like, max_size=3)}
                ),
                max_size=3,
            ),
        },
        optional={
            "relation_types": st.lists(
                st.fixed_dictionaries(
                    {
                        "type": identifier_like,
                        "pairs": st.lists(
                            st.fixed_dictionaries({"source": identifier_like, "target": identifier_like}), max_size=2
                        ),
                    }
                ),
                max_size=2,
            )
        },
    )
)
def test_schemas_load_or_are_schema_errors(payload: dict[str, object]) -> None:
    try:
        schema = SkbSchema.from_json(json.dumps(payload))
    except SchemaError:
        return
    for node_type in schema.node_types:
        assert SAFE_NAME.fullmatch(node_type.label) and not node_type.label.lower().startswith(("grasp", "adapath"))
        assert all(SAFE_NAME.fullmatch(name) for name in node_type.text_fields)


row_values = st.one_of(
    json_values,
    st.just(float("nan")),
    st.just(float("inf")),
    st.just("\ud800"),
    st.integers(min_value=2**63 - 2, max_value=2**63 + 2),
)
node_rows = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.one_of(st.sampled_from(["p1", "f1", "s1"]), row_values),
            "type": st.one_of(st.sampled_from(["Person", "Film", "Studio"]), row_values),
            "name": st.one_of(st.text(min_size=1, max_size=20), row_values),
        },
        optional={"plot": row_values, "genres": row_values, "bio": row_values, "junk": row_values},
    ),
    max_size=5,
)


def _jsonl(rows: list[dict[str, object]]) -> str:
    # NaN/Infinity and lone surrogates are written the way a careless exporter writes them
    return "".join(json.dumps(row, ensure_ascii=True, allow_nan=True) + "\n" for row in rows)


@BOUNDED
@given(
    node_rows,
    st.lists(
        st.fixed_dictionaries(
            {
                "source": st.one_of(st.sampled_from(["p1", "f1"]), row_values),
                "type": st.one_of(st.sampled_from(["DIRECTED", "PRODUCED_BY"]), row_values),
                "target": st.one_of(st.sampled_from(["f1", "s1"]), row_values),
            },
            optional={"role": row_values, "grasp_load": row_values},
        ),
        max_size=4,
    ),
    st.sampled_from(["jsonl", "csv"]),
)
def test_loader_rows_parse_or_name_their_file_and_line(
    nodes: list[dict[str, object]], edges: list[dict[str, object]], suffix: str
) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        if suffix == "jsonl":
            (root / "nodes.jsonl").write_text(_jsonl(nodes), encoding="utf-8", errors="surrogatepass")
            (root / "edges.jsonl").write_text(_jsonl(edges), encoding="utf-8", errors="surrogatepass")
        else:

            def cell(value: object) -> str:
                text = value if isinstance(value, str) else json.dumps(value)
                return '"' + text.replace('"', '""') + '"'

            (root / "nodes.csv").write_text(
                "id,type,name,plot\n"
                + "".join(
                    ",".join(cell(row.get(key, "")) for key in ("id", "type", "name", "plot")) + "\n" for row in nodes
                ),
                encoding="utf-8",
                errors="surrogatepass",
            )
            (root / "edges.csv").write_text(
                "source,type,target\n"
                + "".join(
                    ",".join(cell(row.get(key, "")) for key in ("source", "type", "target")) + "\n" for row in edges
                ),
                encoding="utf-8",
                errors="surrogatepass",
            )
        source = GenericSource(EXAMPLE / "schema.json", root / f"nodes.{suffix}", root / f"edges.{suffix}")
        try:
            records = list(source.nodes())
            list(source.edges())
        except SourceFormatError as error:
            assert re.match(rf".*(nodes|edges)\.{suffix}(:\d+)?: ", str(error)), str(error)
            return
        for record in records:  # what passes is storable: 64-bit ids, valid Unicode, bounded text
            assert isinstance(record.id, str) or -(2**63) <= record.id < 2**63
            record.name.encode("utf-8")
            for value in record.properties.values():
                for text in [value] if isinstance(value, str) else list(value):  # type: ignore[arg-type]
                    assert len(text) <= 100_000
                    text.encode("utf-8")
