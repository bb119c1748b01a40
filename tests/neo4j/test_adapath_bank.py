"""Path-Bank construction on the real HPO slice: GDS PPR corridor, Yen inside it, meta-paths of the paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from grasp_agent.adapath.bank_build import BankConfig, BankQuery, PathBankBuilder
from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.cache import CachedEmbedder

pytestmark = pytest.mark.neo4j

SPASM, NSF, GAD1 = "HP:0011097", "NCBIGene:4905", "NCBIGene:2571"
DEE96 = "OMIM:619340"  # Developmental and epileptic encephalopathy 96: presents epileptic spasm; NSF is its gene


def _adapath_graphs(driver: Driver) -> list[str]:
    records, _, _ = driver.execute_query(
        "CALL gds.graph.list() YIELD graphName WHERE graphName STARTS WITH 'adapath_' RETURN graphName"
    )
    return [record["graphName"] for record in records]


def test_paths_run_from_the_topic_to_the_answers_and_abstract_to_meta_paths(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    query = BankQuery("Which genes are associated with diseases that present epileptic spasm?", (SPASM,), (NSF, GAD1))
    with PathBankBuilder(driver, test_settings.neo4j_database, hpo_slice.schema(), embedder) as builder:
        found = builder.paths_for(query)
        again = builder.paths_for(query)
    assert found.paths and found.missing_ids == ()
    assert 2 < found.corridor_nodes <= BankConfig().corridor_size + 3
    for path in found.paths:
        assert path.node_ids[0] == SPASM and path.node_ids[-1] in (NSF, GAD1)
        assert 1 <= path.meta_path.hops <= 3 and path.meta_path.start_label == "Phenotype"
        assert path.meta_path.answer_label == "Gene" and path.cost > 0
    signatures = [meta.signature for meta in found.meta_paths]
    assert "(:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)<-[:ASSOCIATED_WITH]-(:Gene)" in signatures
    # The stored direction is read back: genes point at phenotypes, so the 1-hop path walks against it.
    assert "(:Phenotype)<-[:ASSOCIATED_WITH]-(:Gene)" in signatures
    assert [p.node_ids for p in again.paths] == [p.node_ids for p in found.paths]  # deterministic
    assert _adapath_graphs(driver) == []  # every projection dropped


def test_the_reverse_question_finds_the_forward_meta_path(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    query = BankQuery(
        "Which phenotypes does developmental and epileptic encephalopathy 96 present?", (DEE96,), (SPASM,)
    )
    with PathBankBuilder(
        driver,
        test_settings.neo4j_database,
        hpo_slice.schema(),
        embedder,
        BankConfig(corridor_size=50, paths_per_answer=2),
    ) as builder:
        found = builder.paths_for(query)
    assert found.meta_paths[0].signature == "(:Disease)-[:HAS_PHENOTYPE]->(:Phenotype)"
    assert found.paths[0].node_ids == (DEE96, SPASM)


def test_unknown_ids_are_reported_and_yield_no_paths(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    with PathBankBuilder(driver, test_settings.neo4j_database, hpo_slice.schema(), embedder) as builder:
        found = builder.paths_for(BankQuery("anything", ("HP:9999999",), (NSF,)))
    assert found.missing_ids == ("HP:9999999",) and found.paths == []
    assert _adapath_graphs(driver) == []


def test_an_answer_with_no_relationship_inside_the_corridor_is_skipped_not_an_error(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    # a corridor of the ends and one node between: the spasm and DEE 96 are joined, and a gene joined to neither
    # (nor, on the slice, to that node) is not projected: GDS refused a Yen search to it, which stopped the build
    records, _, _ = driver.execute_query(
        "MATCH (g:Gene) WHERE NOT (g)--(:Phenotype {id: $spasm}) AND NOT (g)--(:Disease {id: $dee}) "
        "RETURN g.id AS id ORDER BY g.id LIMIT 1",
        spasm=SPASM,
        dee=DEE96,
    )
    stranger = records[0]["id"]
    query = BankQuery("Which diseases present epileptic spasm?", (SPASM,), (DEE96, stranger))
    with PathBankBuilder(
        driver, test_settings.neo4j_database, hpo_slice.schema(), embedder, BankConfig(corridor_size=1)
    ) as builder:
        found = builder.paths_for(query)
    assert found.corridor_relationships > 0 and found.corridor_nodes <= 3  # of 4: the stranger is not in it
    assert found.paths and all(path.node_ids[-1] == DEE96 for path in found.paths)
    assert _adapath_graphs(driver) == []


def slice_queries(count: int) -> list[Any]:
    """Benchmark queries generated on the loaded slice itself (topic ids and answers all in it)."""
    from grasp_agent.evaluation.hpo_benchmark import build_hpo_benchmark
    from grasp_agent.evaluation.query_sets import EvalQuery
    from grasp_agent.skb.hpo import HpoSource
    from tests.conftest import SPASM as SLICE

    built = build_hpo_benchmark(HpoSource(subset_roots=SLICE), count, seed=0)
    return [
        EvalQuery(id=q.id, text=q.query, answer_ids=q.answer_ids, topic_ids=tuple(a.id for a in q.anchors))
        for q in built
    ]


def test_the_bank_is_stored_outside_the_schema_resumable_and_tied_to_its_load(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.bank_store import BankStore
    from grasp_agent.errors import GraspError
    from grasp_agent.skb.info import read_skb_info

    database, schema = test_settings.neo4j_database, hpo_slice.schema()
    queries = slice_queries(12)
    config = BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2)
    summary = build_bank(driver, database, schema, "load-1", embedder, queries, config, rebuild=True, progress=False)
    assert summary.built == len(queries) and summary.without_topic == 0
    assert summary.meta_paths >= 2 and summary.uses >= summary.built - summary.without_paths
    stored, _, _ = driver.execute_query(
        "MATCH (q:AdaPathQuery) OPTIONAL MATCH (q)-[u:ADAPATH_USES]->(m:AdaPathMetaPath) "
        "RETURN count(DISTINCT q) AS queries, count(u) AS uses, collect(DISTINCT m.signature) AS signatures, "
        "min(size(q.embedding)) AS dims"
    )
    assert stored[0]["queries"] == len(queries) and stored[0]["uses"] == summary.uses
    assert stored[0]["dims"] == embedder.dimension
    assert all(signature.startswith("(:") for signature in stored[0]["signatures"])
    indexes, _, _ = driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, state WHERE name = 'adapath_query_embedding' RETURN state"
    )
    assert indexes and indexes[0]["state"] in ("ONLINE", "POPULATING")

    # Resumable: a second run finds every query stored and searches nothing.
    again = build_bank(driver, database, schema, "load-1", embedder, queries, config, progress=False)
    assert (again.built, again.already_stored) == (0, len(queries))
    # A bank of another load is refused until rebuilt.
    with pytest.raises(GraspError, match="built for"):
        build_bank(driver, database, schema, "load-2", embedder, queries[:1], config, progress=False)
    assert BankStore(driver, database).identity() is not None
    # The SKB's schema, as the planners read it, does not see the bank.
    schema_rows, _, _ = driver.execute_query("CALL grasp.schema() YIELD labels RETURN [l IN labels | l.label] AS names")
    assert not [name for name in schema_rows[0]["names"] if name.startswith("AdaPath")]
    assert [info.schema.name for info in read_skb_info(driver, database)] == ["hpo"]
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


def test_cli_builds_the_bank_from_a_query_file(
    hpo_slice: Any, driver: Driver, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    import json
    import subprocess

    from tests.conftest import TEST_INSTANCE_ENV, cli_env
    from tests.neo4j.test_stack import GRASP

    queries = slice_queries(5)
    lines = [
        json.dumps(
            {
                "id": q.id,
                "query": q.text,
                "answer_ids": list(q.answer_ids),
                "split": "train",
                "topic_ids": list(q.topic_ids),
            }
        )
        for q in queries[:4]
    ]
    path = tmp_path / "queries.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert isinstance(embedder, CachedEmbedder)
    env = {**TEST_INSTANCE_ENV, "GRASP_EMBEDDING_CACHE_PATH": str(embedder.path)}
    args = [GRASP, "adapath", "build-bank", "--queries", str(path), "--corridor", "40", "--paths", "2", "--force"]
    done = subprocess.run(args, env=cli_env(env), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "searched now" in done.stdout and "distinct meta-paths" in done.stdout
    stored, _, _ = driver.execute_query("MATCH (q:AdaPathQuery) RETURN count(q) AS n")
    assert stored[0]["n"] == 4
    driver.execute_query("CALL db.awaitIndexes(120)")
    asked = subprocess.run(
        [GRASP, "adapath", "ask", queries[4].text, "--topic", str(queries[4].topic_ids[0])],
        env=cli_env(env),
        capture_output=True,
        text=True,
    )
    assert asked.returncode == 0, asked.stderr
    assert "topics (given)" in asked.stdout and "Meta-paths (bank)" in asked.stdout
    assert "Paths (embedding scorer)" in asked.stdout and "answer (best-path)" in asked.stdout
    # Without --topic the question's anchors are linked: the answer comes from paths of a linked topic.
    linked = subprocess.run(
        [GRASP, "adapath", "ask", queries[4].text, "--meta-paths", "none"],
        env=cli_env(env),
        capture_output=True,
        text=True,
    )
    assert linked.returncode == 0, linked.stderr
    assert "topics (linked)" in linked.stdout and "unguided search" in linked.stdout
    refused = subprocess.run(
        [GRASP, "adapath", "ask", "q", "--meta-paths", "yes"], env=cli_env(env), capture_output=True, text=True
    )
    assert refused.returncode == 2 and "'bank', 'planner', 'none'" in refused.stdout + refused.stderr
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


def test_a_held_back_question_retrieves_the_meta_paths_of_its_template(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    """Bank from all but one generated query; the held-back one's embedding retrieves a meta-path that starts
    at its topic's type, and the answer-type filter keeps only meta-paths ending there."""
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.bank_retrieval import retrieve_meta_paths

    database, schema = test_settings.neo4j_database, hpo_slice.schema()
    queries = slice_queries(16)
    held_back, bank_queries = queries[0], queries[1:]
    build_bank(
        driver,
        database,
        schema,
        "load-1",
        embedder,
        bank_queries,
        BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2),
        rebuild=True,
        progress=False,
    )
    driver.execute_query("CALL db.awaitIndexes(120)")
    vector = embedder.embed_query(held_back.text)
    ranked = retrieve_meta_paths(driver, database, vector, queries=10, limit=5)
    assert ranked and all(item.vote > 0 and item.voters >= 1 for item in ranked)
    assert [item.vote for item in ranked] == sorted((item.vote for item in ranked), reverse=True)
    topic, _, _ = driver.execute_query("MATCH (n {id: $id}) RETURN labels(n)[0] AS label", id=held_back.topic_ids[0])
    assert ranked[0].meta_path.start_label == topic[0]["label"]  # similar questions start where it starts
    answer_label = ranked[0].meta_path.answer_label
    filtered = retrieve_meta_paths(driver, database, vector, queries=10, answer_label=answer_label, hops=1)
    assert all(item.meta_path.answer_label == answer_label and item.meta_path.hops == 1 for item in filtered)
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


def test_a_bank_built_from_the_slice_guides_the_search_to_a_gold_answer_of_a_held_back_query(
    hpo_slice: Any, grasp: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    """AdaPath end to end on the real slice, as `Grasp.paths` runs it: bank from the first generated queries,
    then each of a few held-back queries (from its topic ids) gets meta-paths from the bank, matched to its
    topic's type and answer type, and adapath.bfs paths from its topic; most reach a gold answer (the
    acceptance asks for at least one; we hold it to a majority)."""
    from grasp_agent.adapath.bank import build_bank

    database, schema = test_settings.neo4j_database, hpo_slice.schema()
    queries = slice_queries(30)
    bank_queries, held_back = queries[:24], queries[24:]
    build_bank(
        driver,
        database,
        schema,
        "load-1",
        embedder,
        bank_queries,
        BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2),
        rebuild=True,
        progress=False,
    )
    driver.execute_query("CALL db.awaitIndexes(120)")
    reached = 0
    for query in held_back:
        result = grasp.paths(query.text, topic_ids=list(query.topic_ids))
        assert result.meta_path_source == "bank" and result.meta_paths and not result.failures
        assert all(path.node_ids[0] in query.topic_ids for path in result.paths)
        reached += bool(set(result.ranked_end_nodes[:20]) & set(query.answer_ids))
    assert reached >= len(held_back) // 2 + 1, f"{reached} of {len(held_back)} held-back queries reached a gold answer"
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


def test_grasp_eval_runs_adapath_beside_its_unguided_baseline(
    hpo_slice: Any, grasp: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.evaluation.gold_names import gold_names
    from grasp_agent.evaluation.query_sets import EvalQuery
    from grasp_agent.evaluation.report import build_report, to_markdown
    from grasp_agent.evaluation.runner import EvaluationError, run_systems

    queries = slice_queries(30)
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")
    with pytest.raises(EvaluationError, match="build-bank"):
        run_systems(grasp, queries[24:], ["adapath"])
    build_bank(
        driver,
        test_settings.neo4j_database,
        hpo_slice.schema(),
        "load-1",
        embedder,
        queries[:24],
        BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2),
        rebuild=True,
        progress=False,
    )
    driver.execute_query("CALL db.awaitIndexes(120)")
    no_topic = EvalQuery(id="no-topic", text="which genes?", answer_ids=("NCBIGene:4905",))
    systems = ["adapath", "adapath-unguided", "adapath-nobank"]
    results = run_systems(grasp, [*queries[24:], no_topic], systems)
    for name in systems:
        runs = results[name].runs
        assert [run.query_id for run in runs] == [q.id for q in queries[24:]] + ["no-topic"]
        assert runs[-1].failure is not None and runs[-1].failure.startswith("no topic node")
        assert results[name].failures == 1
        # Without an LLM the answer is the best path's end: its name, where the ranking starts.
        assert all(run.answer for run in runs[:-1] if run.ranked)
    hits = {
        name: sum(
            bool(set(run.ranked[:20]) & set(q.answer_ids))
            for run, q in zip(results[name].runs, queries[24:], strict=False)
        )
        for name in systems
    }
    assert hits["adapath"] >= 1 and hits["adapath-nobank"] >= 1, hits
    report = build_report(
        results,
        [*queries[24:], no_topic],
        gold_names(driver, test_settings.neo4j_database, ["Disease", "Gene", "Phenotype"], [*queries[24:], no_topic]),
    )
    # Hiding every bank query (what leave-template-out does for one template) leaves AdaPath unguided.
    hidden = {q.id: [b.id for b in queries[:24]] for q in queries[24:]}
    blind = run_systems(grasp, queries[24:], ["adapath"], bank_exclusions=hidden)["adapath"].runs
    assert [run.ranked for run in blind] == [run.ranked for run in results["adapath-unguided"].runs[:-1]]
    em = {answer.system: answer for answer in report.answers}
    assert set(em) == set(systems) and em["adapath"].questions == len(queries[24:]) + 1
    assert 0.0 < em["adapath"].em_micro <= 1.0 and "Answer exact match" in to_markdown(report)
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


def test_paths_link_the_topic_answer_from_the_paths_and_serve_as_a_langchain_tool(
    hpo_slice: Any, grasp: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    """Grasp.paths() without topic ids: the question's anchor is linked, the bank guides the search, the
    answer is a path's end; the LangChain tool returns the same as text (content) and JSON (artifact)."""
    from grasp_agent.adapath.bank import build_bank

    queries = slice_queries(30)
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")
    driver.execute_query("DROP INDEX adapath_query_embedding IF EXISTS")
    no_bank = grasp.paths(queries[24].text)  # a failure that degrades the result is reported as one
    assert no_bank.failures and "has not been built" in no_bank.failures[0] and no_bank.meta_path_source == "none"
    build_bank(
        driver,
        test_settings.neo4j_database,
        hpo_slice.schema(),
        "load-1",
        embedder,
        queries[:24],
        BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2),
        rebuild=True,
        progress=False,
    )
    driver.execute_query("CALL db.awaitIndexes(120)")
    linked_right, reached = 0, 0
    for query in queries[24:]:
        result = grasp.paths(query.text)
        assert result.topic_source in ("linked", "none") and result.failures == []
        linked_right += bool({t.node_id for t in result.topics} & set(query.topic_ids))
        if result.paths:
            assert result.meta_path_source in ("bank", "none") and result.answer.source == "best-path"
            assert result.answer.node_id == result.paths[0].node_ids[-1]
            assert set(result.timings_ms) == {"analyse", "meta_paths", "search", "answer"}
        reached += bool(set(result.ranked_end_nodes[:20]) & set(query.answer_ids))
    assert linked_right >= len(queries[24:]) // 2 + 1 and reached >= 1, (linked_right, reached)
    tool = grasp.as_path_tool(k=3)
    content, artifact = tool._run(queries[24].text)
    assert content.startswith(("Answer: ", "No path found"))
    assert artifact["question"] == queries[24].text and len(content.splitlines()) <= 4
    empty = grasp.paths("What is the meaning of life?")  # nothing to link: an empty result that says why
    assert empty.paths == [] and empty.notes and empty.answer.source == "none" and empty.failures == []
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


@pytest.mark.slow
def test_the_packaged_llm_picks_the_frontier_and_names_the_answer(
    hpo_slice: Any, grasp: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    """The real 0.5B model between depths (adapath.expand) and as the answerer; skipped without the extra."""
    from grasp_agent.adapath.answer import answer_from_paths
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.path_search import PathSearchOptions, find_paths
    from tests.llm_support import open_05b

    llm = open_05b()
    queries = slice_queries(30)
    build_bank(
        driver,
        test_settings.neo4j_database,
        hpo_slice.schema(),
        "load-1",
        embedder,
        queries[:24],
        BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2),
        rebuild=True,
        progress=False,
    )
    driver.execute_query("CALL db.awaitIndexes(120)")
    query = queries[24]
    options = PathSearchOptions(scorer="llm", meta_paths=2, beam_width=5, llm_candidates=8)
    search = find_paths(
        driver, test_settings.neo4j_database, embedder, query.text, query.topic_ids, options=options, llm=llm
    )
    assert search.scorer == "llm" and search.paths
    assert all(
        path.node_ids[0] in query.topic_ids and path.meta_path in {m.meta_path.signature for m in search.meta_paths}
        for path in search.paths
    )
    answer = answer_from_paths(query.text, search.paths, llm)
    assert answer.text in {path.end_name for path in search.paths[:10]}
    assert answer.source == "llm" or answer.failure
    llm.close()
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


def test_the_cost_profile_runs_yen_in_the_corridor_and_on_the_whole_slice(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    """Both sides find paths with the same costs; the corridor side projects a fraction of the relationships
    and its Yen run needs less memory by GDS's own estimate; no projection is left behind."""
    from grasp_agent.adapath.cost_profile import CostProfiler

    queries = slice_queries(3)
    config = BankConfig(corridor_size=40, paths_per_answer=2, max_answers=2)
    with PathBankBuilder(driver, test_settings.neo4j_database, hpo_slice.schema(), embedder, config) as builder:
        profile = CostProfiler(builder).profile(
            [(q.id, BankQuery(q.text, q.topic_ids, q.answer_ids)) for q in queries]
            + [("absent", BankQuery("q", ("HP:9999999",), ("OMIM:619340",)))],
            progress=False,
        )
    assert len(profile.queries) == 3 and profile.skipped == 1
    for cost in profile.queries:
        assert cost.corridor.paths >= 1 and cost.raw.paths >= 1
        assert cost.corridor.relationships < cost.raw.relationships
        assert 0 < cost.corridor.yen_bytes <= cost.raw.yen_bytes and cost.raw.graph_bytes > 0
    summary = profile.summary()
    assert summary["corridor"]["relationships_median"] < summary["raw"]["relationships_median"]
    assert _adapath_graphs(driver) == []


def test_the_pathbank_planner_routes_held_back_questions_along_their_templates_meta_paths(
    hpo_slice: Any,
    grasp: Any,
    driver: Driver,
    test_settings: Settings,
    pipeline_settings: Settings,
    embedder: GraspEmbedder,
) -> None:
    """GRASP's third planner on the real slice: bank from the first generated queries; each held-back
    question gets a valid plan whose hops are a bank meta-path (directed), without an LLM, and its graph
    ranking reaches a gold answer in the top 20 at least as often as the heuristic's; hiding every bank
    question leaves the schema's routes, said in a note; asking for the planner without a bank is a clear
    error."""
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.bank_planner import PathBankPlanner
    from grasp_agent.errors import GraspError
    from grasp_agent.pipeline.parts import assemble_parts

    database, schema = test_settings.neo4j_database, hpo_slice.schema()
    heuristic = grasp.parts.graph_branch("heuristic")
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")
    with pytest.raises(GraspError, match="pathbank needs a Path-Bank"):
        assemble_parts(driver, pipeline_settings.model_copy(update={"planner": "pathbank"}), embedder)
    queries = slice_queries(30)
    bank_queries, held_back = queries[:24], queries[24:]
    build_bank(
        driver,
        database,
        schema,
        "load-1",
        embedder,
        bank_queries,
        BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2),
        rebuild=True,
        progress=False,
    )
    driver.execute_query("CALL db.awaitIndexes(120)")
    branch = heuristic.with_planner(PathBankPlanner(driver, database, embedder, heuristic.context))
    reached = {"pathbank": 0, "heuristic": 0}
    for query in held_back:
        result = branch.run(query.text)
        plan = result.planning.plan
        assert result.planning.planner == "pathbank" and plan is not None, result.planning.reason
        if not result.planning.notes:  # every route from the bank: directed as the bank stored it
            assert plan.hops and all(hop.direction.value in ("out", "in") for hop in plan.hops)
        reached["pathbank"] += bool(set(result.ranking.node_ids[:20]) & set(query.answer_ids))
        reached["heuristic"] += bool(set(heuristic.run(query.text).ranking.node_ids[:20]) & set(query.answer_ids))
    # These held-back questions are compositional ones on a 24-question bank: hold the planner to the heuristic.
    assert reached["pathbank"] >= max(1, reached["heuristic"]), reached
    hidden = branch.plan(
        held_back[0].text,
        branch.link(branch.extract(held_back[0].text, [])),
        exclude_examples=[q.id for q in bank_queries],
    )
    assert hidden.notes == ("the Path-Bank returned no meta-path; schema routes",)
    assert hidden.plan is not None and all(hop.direction.value == "any" for hop in hidden.plan.hops)
    parts = assemble_parts(driver, pipeline_settings.model_copy(update={"planner": "pathbank"}), embedder)
    assert parts.default_planner == "pathbank" and parts.graph_branch(None).planner_name == "pathbank"
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")


def test_teacher_plans_and_plan_rewards_on_the_slice(
    hpo_slice: Any, grasp: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    """Planner training data on the real slice: teacher plans from each bank question's own meta-paths keep
    only plans that rank a gold answer first (checked again here by executing them), written as trl's
    prompt/completion records; the reward pipeline executes real plans and fuses them with the cached text
    ranking; a table estimated from them rewards a gold-first plan above a broken one."""
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.statements import AdaPathCypher
    from grasp_agent.training.plan_reward import LOWEST, RewardTable, first_gold_rank
    from grasp_agent.training.plan_scoring import PlanScorer, observations
    from grasp_agent.training.teacher_plans import TeacherPlans, read_teacher_set, write_teacher_set

    database, schema = test_settings.neo4j_database, hpo_slice.schema()
    queries = slice_queries(16)
    build_bank(
        driver,
        database,
        schema,
        "load-1",
        embedder,
        queries,
        BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2),
        rebuild=True,
        progress=False,
    )
    branch = grasp.parts.graph_branch("heuristic")
    examples = [e for e in TeacherPlans(branch, AdaPathCypher(driver, database)).build(queries) if e is not None]
    assert len(examples) >= len(queries) // 3, f"only {len(examples)} of {len(queries)} questions got a teacher plan"
    assert any(e.provenance.teacher == "bank-own" for e in examples)
    by_id = {q.id: q for q in queries}
    for example in examples:
        ranking = branch.runner.run(example.plan)
        assert first_gold_rank(ranking.node_ids, by_id[example.query_id].answer_ids) == 1
    path = tmp_path / "sft.jsonl"
    write_teacher_set(examples, path)
    records = read_teacher_set(path)
    assert records[0]["prompt"][0]["role"] == "system" and "Relations:" in records[0]["prompt"][0]["content"]

    scorer = PlanScorer(grasp.parts, branch)
    seen = observations(scorer, queries, [branch])
    assert seen and all(-1.0 <= o.gain <= 1.0 for o in seen)
    table = RewardTable.estimate(seen)
    good = examples[0]
    query = by_id[good.query_id]
    scored = scorer.score(query, good.plan)
    assert scored.graph is not None and scorer.reward(query, good.plan, table) == table.reward(1, len(scored.graph))
    assert scorer.reward(query, "no JSON here", table) == LOWEST
    assert scorer.reward(query, good.plan.to_json().replace(good.plan.target.type, "Nowhere"), table) == LOWEST
    driver.execute_query("MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n")
