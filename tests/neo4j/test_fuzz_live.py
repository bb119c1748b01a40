"""Bounded, derandomized fuzzing against the live test instance (the HPO slice): plan JSON into the plan
procedures, arguments into grasp.link, questions into the whole pipeline, and labels planted in the graph itself.

Asserted for every input: the only errors are our typed ones (an IllegalArgumentException naming the problem
from the plugin, a QuestionError from Python), graph counts never change, and no identifier outside the strict
alphabet and no question text ever appears in compiled Cypher. Seeded with the cases of issue #16.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from neo4j import Driver
from neo4j.exceptions import ClientError

from grasp_agent.api import Grasp
from grasp_agent.errors import QuestionError
from tests.unit.test_fuzz_inputs import HOSTILE_LABELS, json_values, plan_like

pytestmark = pytest.mark.neo4j

LIVE = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SAFE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
LABELS = ["Phenotype", "Disease", "Gene"]
RELATIONS = ["HAS_PHENOTYPE", "ASSOCIATED_WITH", "IS_A"]
# What a plugin error may be: our refusals. A NullPointerException, ClassCastException or Cypher syntax error
# means input reached somewhere it should not.
TYPED = re.compile(r"IllegalArgumentException|plan exceeded the time budget")


def _counts(driver: Driver) -> tuple[int, int, int]:
    records, _, _ = driver.execute_query(
        "MATCH (n) WITH count(n) AS nodes OPTIONAL MATCH ()-[r]->() WITH nodes, count(r) AS edges "
        "OPTIONAL MATCH (p {pwned: 1}) RETURN nodes, edges, count(p) AS pwned"
    )
    return records[0]["nodes"], records[0]["edges"], records[0]["pwned"]


@pytest.fixture(scope="module")
def counts(hpo_slice: object, driver: Driver) -> Iterator[tuple[int, int, int]]:
    before = _counts(driver)
    yield before
    assert _counts(driver) == before  # nothing any example did changed the graph


def _only_typed(error: ClientError) -> None:
    assert TYPED.search(str(error.message)), error.message


def _backticked_names(query: str) -> list[str]:
    return re.findall(r"`((?:[^`]|``)*)`", query)


schema_names = st.one_of(st.sampled_from(LABELS + RELATIONS), st.sampled_from(HOSTILE_LABELS), st.text(max_size=20))
schema_plans = st.fixed_dictionaries(
    {
        "anchors": st.lists(
            st.fixed_dictionaries(
                {"var": st.sampled_from(["a", "b", "x y", "b_1"]), "type": schema_names, "text": st.text(max_size=30)}
            ),
            max_size=2,
        ),
        "hops": st.lists(
            st.fixed_dictionaries(
                {
                    "source": st.sampled_from(["a", "b", "m"]),
                    "relation": schema_names,
                    "target": st.sampled_from(["t", "m", "a"]),
                    "direction": st.sampled_from(["out", "in", "any", "up", 1]),
                }
            ),
            max_size=3,
        ),
        "target": st.fixed_dictionaries({"var": st.sampled_from(["t", "a"]), "type": schema_names}),
        "relevance_text": st.text(max_size=40),
        "n_cand": json_values,
        "risk": json_values,
    }
)


@LIVE
@given(st.one_of(plan_like, schema_plans, json_values))
@example({"anchors": ["a"], "hops": [], "target": {"var": "t", "type": "Disease"}})
@example(
    {
        "anchors": [{"var": "a", "type": "Phenotype", "text": "x"}],
        "hops": [1],
        "target": {"var": "t", "type": "Disease"},
    }
)
@example(
    {
        "anchors": [{"var": "a", "type": HOSTILE_LABELS[1], "text": "x"}],
        "hops": [{"source": "a", "relation": "HAS_PHENOTYPE", "target": "t"}],
        "target": {"var": "t", "type": "Disease"},
    }
)
def test_plan_json_is_validated_compiled_or_refused_never_injected(
    counts: object, driver: Driver, payload: object
) -> None:
    plan = json.dumps(payload)
    checked, _, _ = driver.execute_query("CALL grasp.plan.validate($plan)", plan=plan)  # never throws
    assert isinstance(checked[0]["valid"], bool) and (checked[0]["valid"] or checked[0]["errors"])
    try:
        compiled, _, _ = driver.execute_query("CALL grasp.plan.compile($plan, {}) YIELD query RETURN query", plan=plan)
    except ClientError as error:
        _only_typed(error)
        return
    assert checked[0]["valid"]
    query = compiled[0]["query"]
    assert all(SAFE.fullmatch(name) for name in _backticked_names(query)), query
    for text in [a.get("text") for a in payload.get("anchors", []) if isinstance(a, dict)] + [  # type: ignore[union-attr]
        payload.get("relevance_text")
    ]:  # type: ignore[union-attr]
        if isinstance(text, str) and len(text) > 3:
            assert text not in query  # values travel as parameters


@LIVE
@given(
    st.lists(st.floats(-2, 2, allow_nan=False), min_size=0, max_size=400) | st.just([0.0] * 384),
    st.one_of(st.sampled_from(LABELS), st.sampled_from(HOSTILE_LABELS), st.text(max_size=20)),
    st.sampled_from(["name", "doc", "both", "", "NAME"]),
    st.integers(-5, 2**40),
    st.floats(-2, 2, allow_nan=False),
)
@example([0.1] * 384, HOSTILE_LABELS[0], "name", 5, 0.0)
def test_link_arguments_are_answered_or_refused(
    counts: object, driver: Driver, vector: list[float], label: str, mode: str, k: int, tau: float
) -> None:
    try:
        records, _, _ = driver.execute_query(
            "CALL grasp.link($v, $label, $mode, $k, $tau) YIELD nodeId, score RETURN nodeId, score",
            v=vector,
            label=label,
            mode=mode,
            k=k,
            tau=tau,
        )
    except ClientError as error:
        _only_typed(error)
        return
    assert label in LABELS and len(records) <= max(k, 0)


def test_a_planted_hostile_label_is_never_quoted_into_cypher(hpo_slice: object, driver: Driver) -> None:
    """The probe's attack: a label holding the backtick escape, planted by anyone who can write to the graph."""
    hostile = HOSTILE_LABELS[0]
    # The attacker's own write: a dynamic label (Neo4j 5.26) stores the escape sequence literally.
    driver.execute_query("CREATE (:$($label) {id: 'planted', name: 'planted'})", label=hostile)
    try:
        genes_before = _counts(driver)
        with pytest.raises(ClientError) as refused:
            driver.execute_query(
                "CALL grasp.link($v, $label, 'name', 5) YIELD nodeId RETURN nodeId", v=[0.1] * 384, label=hostile
            )
        _only_typed(refused.value)
        plan = json.dumps(
            {
                "anchors": [{"var": "a", "type": hostile, "text": "x"}],
                "hops": [{"source": "a", "relation": "HAS_PHENOTYPE", "target": "t"}],
                "target": {"var": "t", "type": "Disease"},
            }
        )
        checked, _, _ = driver.execute_query("CALL grasp.plan.validate($plan)", plan=plan)
        assert not checked[0]["valid"]
        with pytest.raises(ClientError) as compiled:
            driver.execute_query("CALL grasp.plan.compile($plan, {})", plan=plan)
        _only_typed(compiled.value)
        assert _counts(driver) == genes_before
    finally:
        driver.execute_query("MATCH (n:$($label)) DELETE n", label=hostile)


@LIVE
@given(
    st.one_of(
        st.text(max_size=300),
        st.sampled_from(HOSTILE_LABELS),
        st.text(alphabet=st.characters(codec="utf-8"), max_size=50),
    )
)
@example("")
@example("   \n\t")
@example("\ud800 epileptic spasm")
@example("x" * 2001)
@example("MATCH (n) DETACH DELETE n")
@example("Which diseases present with epileptic spasm?' }) RETURN 1 //")
def test_questions_give_a_result_or_a_question_error(counts: object, grasp: Grasp, question: str) -> None:
    try:
        result = grasp.search(question, k=5, rerank=False)
    except QuestionError:
        return
    assert len(result.hits) <= 5
    query = result.cypher or ""
    assert question.strip() not in query or len(question.strip()) <= 3  # the question is a parameter
    assert all(SAFE.fullmatch(name) for name in _backticked_names(query)), query
