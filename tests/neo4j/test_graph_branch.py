"""The graph branch end to end on the real HPO slice: mentions, entity table, heuristic plan, ranking."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.branch import NAME_TOKENS, GraphBranch
from grasp_agent.graph_branch.entity_table import build_entity_table
from grasp_agent.graph_branch.mentions import Mention
from grasp_agent.graph_branch.plan import Plan, parse_plan
from grasp_agent.graph_branch.planning import PlanningOutcome
from grasp_agent.graph_branch.procedure_calls import GraphProcedures
from grasp_agent.graph_branch.ranking import ExecutionSettings, PlanRunner
from tests.conftest import TEST_INSTANCE_ENV, cli_env
from tests.neo4j.test_stack import GRASP

pytestmark = pytest.mark.neo4j

SPASM_AND_NSF = "Which diseases present with epileptic spasms and are associated with the gene NSF?"


@pytest.fixture(scope="module")
def branch(hpo_slice: object, driver: Driver, test_settings: Settings, embedder: GraspEmbedder) -> GraphBranch:
    return GraphBranch.build(driver, test_settings, embedder)


def test_heuristic_branch_answers_a_two_anchor_question(branch: GraphBranch) -> None:
    result = branch.run(SPASM_AND_NSF, with_cypher=True)
    anchors = {row.mention.text: row.best for row in result.entity_table.rows if row.mention.role.value == "anchor"}
    assert anchors["epileptic spasms"] is not None and anchors["epileptic spasms"].node_id == "HP:0011097"
    assert anchors["NSF"] is not None and anchors["NSF"].node_id == "NCBIGene:4905"
    plan = result.planning.plan
    assert plan is not None and plan.target.type == "Disease"
    assert {(h.relation, h.target) for h in plan.hops} == {("HAS_PHENOTYPE", "t"), ("ASSOCIATED_WITH", "t")}
    # phenotype.hpoa + genes_to_phenotype.txt: DEE 96 is the one disease of the slice with both
    assert result.ranking.node_ids == ["OMIM:619340"]
    assert set(result.timings_ms) == {"extract", "link", "plan", "execute"}


def test_compiled_cypher_of_the_branch_reproduces_its_ranking(branch: GraphBranch, driver: Driver) -> None:
    # no relevance text (and no question as fallback, the default): the score is the anchor score, as in the Cypher
    result = branch.run("Which diseases present with epileptic spasms?", with_cypher=True)
    compiled = result.ranking.compiled
    assert compiled is not None and result.planning.plan is not None
    direct, _, _ = driver.execute_query(compiled.query, compiled.params)
    assert result.planning.plan.relevance_text == ""
    assert [r["nodeId"] for r in direct] == result.ranking.node_ids[: len(direct)]
    assert len(result.ranking.nodes) == 72  # every disease annotated with Epileptic spasm in phenotype.hpoa


def test_a_plan_without_relevance_text_is_rescored_by_the_question(
    driver: Driver, test_settings: Settings, embedder: GraspEmbedder, hpo_slice: object
) -> None:
    settings = test_settings.model_copy(update={"graph_relevance_fallback": True})
    result = GraphBranch.build(driver, settings, embedder).run("Which diseases present with epileptic spasms?")
    assert result.planning.plan is not None and result.planning.plan.relevance_text == ""
    nodes = result.ranking.nodes
    assert len(nodes) == 72 and all(node.dense_score != 0.0 for node in nodes)
    assert [n.score for n in nodes] == sorted((n.score for n in nodes), reverse=True)


def test_a_described_phenotype_is_anchored_through_the_document_index(
    driver: Driver, test_settings: Settings, embedder: GraspEmbedder, hpo_slice: object
) -> None:
    # the first sentence of Epileptic spasm's definition, quoted the way people paste one; it names no phenotype
    # ("seizure" is the only name in it, and it is a word of the description)
    records, _, _ = driver.execute_query("MATCH (p:Phenotype {id: 'HP:0011097'}) RETURN p.doc AS doc")
    definition = records[0]["doc"].split("definition: ", 1)[1].split(".", 1)[0]
    branch = GraphBranch.build(driver, test_settings, embedder)
    result = branch.run(f'Which diseases present with the abnormality described as "{definition}"?')
    described = [row for row in result.entity_table.rows if row.mention.match_mode.value == "doc"]
    assert [row.best.node_id for row in described if row.best is not None] == ["HP:0011097"]
    plan = result.planning.plan
    assert plan is not None and [(a.type, a.match_mode.value) for a in plan.anchors] == [("Phenotype", "doc")]
    assert "OMIM:619340" in result.ranking.node_ids  # DEE 96 has epileptic spasms


def test_a_described_phenotype_is_bound_by_its_definition_too(
    driver: Driver, test_settings: Settings, embedder: GraspEmbedder, hpo_slice: object
) -> None:
    """With the text branch's field vectors, the runner passes a described entity's candidates as bindings,
    scored by the better of document and definition cosine: the defined term first, at its definition's
    cosine; execute and the compiled Cypher use those bindings."""
    from grasp_agent.skb.context import read_skb_context
    from grasp_agent.text_branch.from_database import open_text_branch
    from grasp_agent.text_branch.own_text import OwnTextReader

    records, _, _ = driver.execute_query("MATCH (p:Phenotype {id: 'HP:0011097'}) RETURN p.doc AS doc")
    definition = records[0]["doc"].split("definition: ", 1)[1].split(".", 1)[0]
    schema = read_skb_context(driver, test_settings.neo4j_database).schema
    text = open_text_branch(driver, test_settings, embedder, schema)
    assert text.dense is not None
    reader = OwnTextReader(text.dense, text.lexical)
    branch = GraphBranch.build(driver, test_settings, embedder).with_field_similarity(reader)
    result = branch.run(f'Which diseases present with the abnormality described as "{definition}"?', with_cypher=True)
    plan = result.planning.plan
    assert plan is not None and [a.match_mode.value for a in plan.anchors] == ["doc"]
    anchor = plan.anchors[0]
    bindings = branch.runner.anchor_inputs(plan)[anchor.var]
    vector = branch.runner.anchor_vectors(plan)[anchor.var]
    by_document = {
        link.node_id: link.score
        for link in branch.procedures.link_many({anchor.var: vector}, ["Phenotype"], "doc", 10, 0.0)[anchor.var]
    }
    # the definition is closer than the whole document (name, synonyms, neighbours' names dilute it)
    assert bindings[0]["id"] == "HP:0011097" and bindings[0]["score"] > by_document["HP:0011097"] + 0.05
    # the entity table reads the clause by the nodes' own text too: the row's best link scores as the binding
    (row,) = [row for row in result.entity_table.rows if row.mention.match_mode.value == "doc"]
    assert row.best is not None and row.best.node_id == "HP:0011097"
    assert row.best.score == pytest.approx(bindings[0]["score"], abs=1e-4) and row.best.name == "Epileptic spasm"
    assert [b["score"] for b in bindings] == sorted((b["score"] for b in bindings), reverse=True)
    assert "OMIM:619340" in result.ranking.node_ids
    compiled = result.ranking.compiled  # the Cypher a user can paste: with the same bindings
    assert compiled is not None
    assert [b["id"] for b in compiled.params[f"bindings_{anchor.var}"]] == [b["id"] for b in bindings]
    direct, _, _ = driver.execute_query(compiled.query, compiled.params)
    assert set(result.ranking.node_ids) <= {r["nodeId"] for r in direct}


def test_nodes_are_read_by_id_within_their_label(driver: Driver, test_settings: Settings, hpo_slice: object) -> None:
    procedures = GraphProcedures(driver, test_settings.neo4j_database)
    found = procedures.nodes_by_id("Phenotype", ["HP:0011097", "OMIM:619340", "HP:nowhere"])
    assert list(found) == ["HP:0011097"]  # a disease id is no phenotype; an unknown id is nothing
    name, degree = found["HP:0011097"]
    records, _, _ = driver.execute_query("MATCH (p:Phenotype {id: 'HP:0011097'}) RETURN COUNT { (p)--() } AS d")
    assert name == "Epileptic spasm" and degree == records[0]["d"] > 0
    assert procedures.nodes_by_id("Phenotype", []) == {}


def test_a_mention_typed_wrongly_gets_the_strong_type_added(
    hpo_slice: object, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    procedures = GraphProcedures(driver, test_settings.neo4j_database)
    table = build_entity_table(
        [Mention(text="NSF", types=("Phenotype",))],
        procedures,
        embedder.with_max_tokens(NAME_TOKENS),
        ["Phenotype", "Disease", "Gene"],
    )
    row = table.rows[0]
    assert row.added_type == "Gene" and list(row.links) == ["Phenotype", "Gene"]
    assert row.links["Gene"][0].node_id == "NCBIGene:4905" and row.links["Gene"][0].score > 0.99
    assert len(row.links["Phenotype"]) == 3


def test_cypher_in_the_question_is_plain_data(branch: GraphBranch, driver: Driver) -> None:
    before, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS nodes")
    hostile = "Which diseases present with epileptic spasms'}) DETACH DELETE n // and NSF`) MATCH (m) DELETE m //?"
    result = branch.run(hostile, with_cypher=True)
    after, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS nodes")
    assert after[0]["nodes"] == before[0]["nodes"] > 0
    assert result.planning.plan is not None  # the question still means something
    compiled = result.ranking.compiled
    assert compiled is not None and "DETACH" not in compiled.query  # identifiers come from the schema only


def test_a_plan_over_the_row_budget_gives_a_reason_not_an_exception(
    hpo_slice: object, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    plan = Plan.model_validate(
        {
            "anchors": [{"var": "p", "type": "Phenotype", "text": "Epileptic spasm"}],
            "hops": [{"source": "p", "relation": "HAS_PHENOTYPE", "target": "t"}],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    runner = PlanRunner(
        GraphProcedures(driver, test_settings.neo4j_database),
        embedder.with_max_tokens(NAME_TOKENS),
        embedder,
        ExecutionSettings(max_rows=5),
    )
    ranking = runner.run(plan)
    assert ranking.nodes == () and ranking.reason is not None and "5" in ranking.reason
    unmatched = plan.model_copy(update={"anchors": (plan.anchors[0].model_copy(update={"text": "zzzz qqqq"}),)})
    nothing = PlanRunner(
        GraphProcedures(driver, test_settings.neo4j_database), embedder.with_max_tokens(NAME_TOKENS), embedder
    ).run(unmatched)
    assert nothing.nodes == () or all(n.anchor_score < 0.9 for n in nothing.nodes)


def test_grasp_plan_prints_every_intermediate_result(hpo_slice: object) -> None:
    shown = subprocess.run(
        [GRASP, "plan", SPASM_AND_NSF], env=cli_env(TEST_INSTANCE_ENV), capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    for expected in (
        "Entity table",
        "epileptic spasms",
        "HAS_PHENOTYPE",
        "Compiled Cypher",
        "UNWIND $bindings_a1",
        "OMIM:619340",
        "Epileptic spasm (Phenotype) <-[HAS_PHENOTYPE]-",
        "timings (ms)",
    ):
        assert expected in shown.stdout, expected


# ---- the name dictionary (#30): exact names and synonyms of the loaded SKB ---------------------------------------
def _anchors(result: object) -> dict[str, object]:
    rows = result.entity_table.rows  # type: ignore[attr-defined]
    return {row.mention.text: row.best.node_id for row in rows if row.mention.role.value == "anchor" and row.best}


def test_an_exact_whole_name_wins_over_its_exact_parts(branch: GraphBranch) -> None:
    # "Focal motor seizure" holds two other names of the slice, "Motor seizure" and "Seizure"
    result = branch.run("Which diseases present with focal motor seizures?")
    assert _anchors(result) == {"focal motor seizures": "HP:0011153"}


def test_hyphen_compounds_lower_case_symbols_and_synonyms_are_found(branch: GraphBranch) -> None:
    result = branch.run("Which nsf-related disorders show salaam convulsions?")
    # "salaam convulsions" is a synonym of Epileptic spasm (HP:0011097), "nsf" the gene NSF in lower case
    assert _anchors(result) == {"nsf": "NCBIGene:4905", "salaam convulsions": "HP:0011097"}
    plan = result.planning.plan
    assert plan is not None and plan.target.type == "Disease"
    assert result.ranking.node_ids[:1] == ["OMIM:619340"]  # DEE 96, the one disease of the slice with both


def test_the_dictionary_is_read_from_the_loaded_skb(
    hpo_slice: object, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    from grasp_agent.graph_branch.name_dictionary import read_name_dictionary
    from grasp_agent.skb.context import read_skb_context

    schema = read_skb_context(driver, test_settings.neo4j_database).schema
    dictionary = read_name_dictionary(GraphProcedures(driver, test_settings.neo4j_database), schema)
    counts, _, _ = driver.execute_query(
        "MATCH (n) WHERE n.name IS NOT NULL RETURN count(DISTINCT toLower(n.name)) AS c"
    )
    assert len(dictionary) >= counts[0]["c"]  # every name, plus the synonyms
    assert dictionary.canonical_name("Salaam seizures", "Phenotype") == "Epileptic spasm"
    off = GraphBranch.build(driver, test_settings.model_copy(update={"name_dictionary": False}), embedder)
    assert "nsf" not in _anchors(off.run("Which nsf-related disorders show salaam convulsions?"))


def test_a_quoted_keyword_is_asked_of_the_targets_names_and_never_linked(branch: GraphBranch) -> None:
    plain = branch.run("Which diseases present with epileptic spasms?").ranking.nodes
    assert len(plain) >= 2
    # the lowest-ranked disease with a word of its name that no other of them has
    words = {node.node_id: {w.lower() for w in node.name.replace("-", " ").split() if w.isalpha()} for node in plain}
    node, word = next(
        (node, word)
        for node in reversed(plain)
        for word in sorted(words[node.node_id])
        if len(word) > 3 and not any(word in words[other.node_id] for other in plain if other is not node)
    )
    result = branch.run(f'Which diseases named "{word}" present with epileptic spasms?')
    plan = result.planning.plan
    assert plan is not None and plan.name_contains == (word,)
    assert result.ranking.node_ids[0] == node.node_id
    # a name of the SKB in quotes is a keyword too: neither the dictionary nor the embedding links it
    quoted = branch.run('Which diseases named "Seizure" present with epileptic spasms?')
    assert "Seizure" not in _anchors(quoted) and quoted.planning.plan is not None
    assert quoted.planning.plan.name_contains == ("Seizure",)


def test_a_keyword_no_target_name_holds_orders_nothing(branch: GraphBranch) -> None:
    plain = branch.run("Which diseases present with epileptic spasms?").ranking
    keyed = branch.run('Which diseases named "qzxv" present with epileptic spasms?')
    assert keyed.planning.plan is not None and keyed.planning.plan.name_contains == ("qzxv",)
    # the targets come as the plan without the keyword ranks them, and the ranking says why
    assert keyed.ranking.node_ids == plain.node_ids and len(plain.node_ids) >= 2
    assert keyed.ranking.note is not None and "name keyword 'qzxv' dropped" in keyed.ranking.note


def test_a_keyword_no_target_of_the_plan_holds_runs_the_plan_without_the_anchor_it_names(
    branch: GraphBranch, driver: Driver
) -> None:
    # a disease presenting epileptic spasms, a word of its name no other disease's name holds, and a phenotype it
    # lacks that another such disease has ("Which Myopia disorders ...": "Myopia 6" lacks the phenotype Myopia)
    rows, _, _ = driver.execute_query(
        "MATCH (d:Disease)-[:HAS_PHENOTYPE]->(:Phenotype {id: 'HP:0011097'})<-[:HAS_PHENOTYPE]-(o:Disease) "
        "MATCH (o)-[:HAS_PHENOTYPE]->(p:Phenotype) WHERE o <> d AND NOT (d)-[:HAS_PHENOTYPE]->(p) "
        "RETURN d.id AS id, d.name AS name, p.name AS phenotype ORDER BY d.id, p.id"
    )
    found = None
    for row in rows:
        for word in sorted({w.lower() for w in re.split(r"[^A-Za-z]+", row["name"]) if len(w) > 4}):
            holders, _, _ = driver.execute_query(
                "MATCH (x:Disease) WHERE toLower(x.name) CONTAINS $word RETURN count(x) AS n", word=word
            )
            if holders[0]["n"] == 1:
                found = (row["id"], row["phenotype"], word)
                break
        if found:
            break
    assert found is not None
    disease, phenotype, word = found
    anchors = [
        {"var": "a1", "type": "Phenotype", "text": "epileptic spasms", "match_mode": "name"},
        {"var": "a2", "type": "Phenotype", "text": phenotype, "match_mode": "name"},
    ]
    hops = [{"source": a["var"], "relation": "HAS_PHENOTYPE", "target": "t"} for a in anchors]
    common = {"target": {"var": "t", "type": "Disease"}, "relevance_text": "", "name_contains": [word]}
    plan = parse_plan(json.dumps({"anchors": anchors, "hops": hops, **common}))
    fallback = parse_plan(json.dumps({"anchors": anchors[:1], "hops": hops[:1], **common}))
    # the plan's own targets: none holds the word, since the one disease whose name does lacks the phenotype
    alone = branch.execute(PlanningOutcome("test", plan))
    assert alone.nodes and disease not in alone.node_ids
    kept = branch.execute(PlanningOutcome("test", plan, keyword_fallback=fallback))
    assert kept.node_ids[0] == disease
    # a fallback whose targets hold the word no better is not taken
    unheld = parse_plan(json.dumps({**json.loads(fallback.to_json()), "name_contains": ["qzxv"]}))
    assert branch.execute(PlanningOutcome("test", plan, keyword_fallback=unheld)).node_ids == alone.node_ids


# ---- soft constraints (#30): a plan nobody matches wholly ranks its partial matches -------------------------------
def test_a_conjunction_nobody_satisfies_ranks_partial_matches(
    branch: GraphBranch, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    # a gene of the slice none of whose diseases presents epileptic spasms
    rows, _, _ = driver.execute_query(
        "MATCH (g:Gene)-[:ASSOCIATED_WITH]->(d:Disease) WITH g, collect(d) AS diseases "
        "WHERE none(d IN diseases WHERE (d)-[:HAS_PHENOTYPE]->(:Phenotype {id: 'HP:0011097'})) "
        "RETURN g.name AS gene, [d IN diseases | d.id] AS diseases ORDER BY g.name LIMIT 1"
    )
    gene, diseases = rows[0]["gene"], set(rows[0]["diseases"])
    question = f"Which diseases present with epileptic spasms and are associated with the gene {gene}?"
    result = branch.run(question)
    assert result.ranking.nodes and not any(node.exact for node in result.ranking.nodes)
    # the gene's few diseases are the more specific evidence: they lead, ahead of the many spasm diseases
    assert result.ranking.node_ids[0] in diseases
    strict = GraphBranch.build(driver, test_settings.model_copy(update={"graph_relax_below": 0}), embedder)
    none = strict.run(question).ranking
    assert none.nodes == () and none.reason is not None and "no path joins" in none.reason


def test_an_aside_that_nothing_satisfies_with_the_question_is_set_aside(branch: GraphBranch, driver: Driver) -> None:
    # a gene of the slice none of whose diseases presents epileptic spasms, named in a sentence of its own
    rows, _, _ = driver.execute_query(
        "MATCH (g:Gene)-[:ASSOCIATED_WITH]->(d:Disease) WITH g, collect(d) AS diseases "
        "WHERE none(d IN diseases WHERE (d)-[:HAS_PHENOTYPE]->(:Phenotype {id: 'HP:0011097'})) "
        "RETURN g.name AS gene ORDER BY g.name LIMIT 1"
    )
    gene = rows[0]["gene"]
    plain = branch.run("Which diseases present with epileptic spasms?").ranking
    result = branch.run(f"Leaving {gene} aside for now. Which diseases present with epileptic spasms?")
    assert result.planning.plan is not None and len(result.planning.plan.anchors) == 2
    assert result.planning.fallback is not None and len(result.planning.fallback.anchors) == 1
    # the whole plan matched nobody; the fallback's exact matches are the plain question's
    assert result.ranking.nodes and all(node.exact for node in result.ranking.nodes)
    assert set(result.ranking.node_ids) == set(plain.node_ids)


def test_every_name_links_back_to_its_own_node_and_the_bench_prints_it(hpo_slice: object) -> None:
    # `grasp bench link-recall` links stored name vectors through grasp.link, as every mention is linked
    shown = subprocess.run(
        [GRASP, "bench", "link-recall", "--sample", "150"],
        env=cli_env(TEST_INSTANCE_ENV),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert shown.returncode == 0, shown.stderr
    cells = [[cell.strip() for cell in line.strip("│").split("│")] for line in shown.stdout.splitlines()]
    rows = {row[0]: row for row in cells if len(row) == 7}
    assert set(rows) >= {"Phenotype", "Disease", "Gene"}, shown.stdout
    for label in ("Phenotype", "Disease", "Gene"):
        _, nodes, sampled, first, in_top, missed, _ = rows[label]
        assert int(sampled) == min(150, int(nodes.replace(",", ""))) > 0
        assert int(first) == int(in_top) == int(sampled) and missed == "0", rows[label]


def test_a_name_the_dictionary_knows_binds_its_own_nodes_alone(branch: GraphBranch) -> None:
    """An exact name (any case, plural) is its node: its near namesakes, a hair's breadth away in the name
    index ("Loeys-Dietz syndrome 2" against "... 3"), are not bound beside it. A name the dictionary lacks is
    linked by its vector, near candidates and all."""
    plan = Plan.model_validate(
        {
            "anchors": [{"var": "p", "type": "Phenotype", "text": "epileptic spasms"}],
            "hops": [{"source": "p", "relation": "HAS_PHENOTYPE", "target": "t"}],
            "target": {"var": "t", "type": "Disease"},
        }
    )
    assert branch.runner.anchor_inputs(plan)["p"] == [{"id": "HP:0011097", "score": 1.0}]
    ranking = branch.runner.run(plan, with_cypher=True)
    assert "OMIM:619340" in ranking.node_ids and all(node.anchor_score == 1.0 for node in ranking.nodes)
    compiled = ranking.compiled
    assert compiled is not None and compiled.params["bindings_p"] == [{"id": "HP:0011097", "score": 1.0}]
    paraphrase = plan.model_copy(update={"anchors": (plan.anchors[0].model_copy(update={"text": "spasm epilepsy"}),)})
    vector = branch.runner.anchor_inputs(paraphrase)["p"]
    assert isinstance(vector[0], float)


def test_a_named_node_of_the_asked_type_walks_the_route_the_path_bank_learned(
    branch: GraphBranch, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    """ "X-allelic diseases with P" names a disease and asks for diseases; the HPO has no relation of diseases
    with themselves and no word names the gene between them. Without a Path-Bank the disease is left out of the
    plan; with one whose same-type questions mostly went through a gene, the plan walks that way."""
    from grasp_agent.adapath.bank_build import BankConfig, BankQuery, FoundPath, QueryPaths
    from grasp_agent.adapath.bank_store import BankIdentity, BankStore
    from grasp_agent.adapath.metapath import MetaPath, MetaPathStep, PathHop
    from grasp_agent.graph_branch.learned_loops import MIN_QUESTIONS

    # a disease of the slice sharing a gene with another that presents epileptic spasms
    rows, _, _ = driver.execute_query(
        "MATCH (:Phenotype {id: 'HP:0011097'})<-[:HAS_PHENOTYPE]-(answer:Disease)<-[:ASSOCIATED_WITH]-(g:Gene)"
        "-[:ASSOCIATED_WITH]->(named:Disease) WHERE named <> answer AND NOT named.name CONTAINS '-' "
        "AND NOT (named)-[:HAS_PHENOTYPE]->(:Phenotype {id: 'HP:0011097'}) "
        "RETURN named.id AS id, named.name AS name, min(g.id) AS gene, collect(DISTINCT answer.id) AS answers "
        "ORDER BY size(name), id LIMIT 1"
    )
    named, name, gene, answers = rows[0]["id"], rows[0]["name"], rows[0]["gene"], set(rows[0]["answers"])
    question = f"Which {name}-allelic diseases present with epileptic spasms?"
    before = branch.run(question)
    assert before.planning.plan is not None and name not in {a.text for a in before.planning.plan.anchors}
    assert any(f"'{name}' (Disease) is no anchor of the plan" in note for note in before.planning.notes)

    store = BankStore(driver, test_settings.neo4j_database)
    steps = (MetaPathStep("ASSOCIATED_WITH", False, "Gene"), MetaPathStep("ASSOCIATED_WITH", True, "Disease"))
    answer, *_ = sorted(answers)
    path = FoundPath(
        (
            PathHop(named, gene, "Disease", "Gene", "ASSOCIATED_WITH", False),
            PathHop(gene, answer, "Gene", "Disease", "ASSOCIATED_WITH", True),
        ),
        1.0,
        MetaPath("Disease", steps),
    )
    # a disease that presents epileptic spasms itself and shares a gene with another that does
    itself, _, _ = driver.execute_query(
        "MATCH (:Phenotype {id: 'HP:0011097'})<-[:HAS_PHENOTYPE]-(d:Disease)<-[:ASSOCIATED_WITH]-(:Gene)"
        "-[:ASSOCIATED_WITH]->(other:Disease)-[:HAS_PHENOTYPE]->(:Phenotype {id: 'HP:0011097'}) "
        "WHERE d <> other AND NOT d.name CONTAINS '-' RETURN DISTINCT d.id AS id, d.name AS name "
        "ORDER BY size(name), id LIMIT 1"
    )
    try:
        store.claim(BankIdentity("hpo", "test", embedder.model_id), BankConfig(), embedder.dimension, rebuild=True)
        vector = embedder.embed_query("diseases allelic to a disease")
        for number in range(MIN_QUESTIONS):
            store.write(f"q{number}", QueryPaths(BankQuery(f"q{number}", (named,), (answer,)), [path]), vector)
        learned = GraphBranch.build(driver, test_settings, embedder)
        result = learned.run(question)
        kind = learned.run(f"Which {itself[0]['name']} diseases present with epileptic spasms?")
    finally:
        driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")
    plan = result.planning.plan
    assert plan is not None and [(a.type, a.text) for a in plan.anchors][0] == ("Disease", name)
    assert [hop.relation for hop in plan.hops[:2]] == ["ASSOCIATED_WITH", "ASSOCIATED_WITH"]
    assert any("Path-Bank" in note and f"'{name}'" in note for note in result.planning.notes)
    exact = [node.node_id for node in result.ranking.nodes if node.exact]
    assert exact and set(exact) <= answers
    # "the X diseases with P", X itself presenting P: the plainer reading, X among the targets, is ranked
    assert kind.planning.looped_anchor is not None and kind.planning.fallback is not None
    assert itself[0]["id"] in [node.node_id for node in kind.ranking.nodes if node.exact]
