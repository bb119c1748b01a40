package grasp.plan;

import static grasp.plan.PlanValidateTest.anchor;
import static grasp.plan.PlanValidateTest.hop;
import static grasp.plan.PlanValidateTest.plan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import grasp.testkb.SmallKbTest;
import grasp.testkb.TestKb;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Record;
import org.neo4j.driver.Value;

class PlanExecuteTest extends SmallKbTest {

    static final String DISEASE = "{\"var\": \"t\", \"type\": \"Disease\"}";
    static final String ONE_HOP = plan(anchor("a1", "Phenotype", "epileptic spasm"), hop("a1", "HAS_PHENOTYPE", "t"), DISEASE);
    static final String TWO_ANCHORS = plan(anchor("a1", "Phenotype", "epileptic spasm") + "," + anchor("a2", "Phenotype", "seizure"),
            hop("a1", "HAS_PHENOTYPE", "t") + "," + hop("t", "HAS_PHENOTYPE", "a2"), DISEASE);
    /** Anchors a1 and g meet at the intermediate d; the target is a phenotype of d. */
    static final String BRANCHED = plan(anchor("a1", "Phenotype", "epileptic spasm") + "," + anchor("g", "Gene", "scn1a"),
            hop("a1", "HAS_PHENOTYPE", "d") + "," + hop("g", "ASSOCIATED_WITH", "d") + "," + hop("d", "HAS_PHENOTYPE", "t"),
            "{\"var\": \"t\", \"type\": \"Phenotype\"}");
    static final Map<String, Object> SEIZURE = Map.of("a1", TestKb.E1, "a2", List.of(0.6, 0.8, 0.0, 0.0));
    static final List<Double> RELEVANCE = List.of(0.0, 0.0, 0.6, 0.8);

    private List<Record> execute(String plan, Map<String, Object> vectors, List<Double> relevance, Map<String, Object> config) {
        Map<String, Object> params = new HashMap<>();
        params.put("plan", plan);
        params.put("vectors", vectors);
        params.put("relevance", relevance);
        params.put("config", config);
        return kb.run("CALL grasp.plan.execute($plan, $vectors, $relevance, 100, $config)", params);
    }

    private static void assertClose(List<Double> actual, double... expected) {
        assertThat(actual).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            assertThat(actual.get(i)).isCloseTo(expected[i], within(1e-6));
        }
    }

    private static List<Object> ids(List<Record> rows) {
        return rows.stream().map(r -> r.get("nodeId").asObject()).toList();
    }

    private static List<Double> scores(List<Record> rows, String column) {
        return rows.stream().map(r -> r.get(column).asDouble()).toList();
    }

    @Test
    void oneHopPlanRanksByLinkedAnchorCosineWithAWitness() {
        List<Record> rows = execute(ONE_HOP, Map.of("a1", TestKb.E1), null, Map.of());
        // a1 links HP:1 (1.0) and HP:2 (0.96); D:1 has HP:1, D:2 has HP:2
        assertThat(ids(rows)).containsExactly("D:1", "D:2");
        assertThat(scores(rows, "anchorScore").get(1)).isCloseTo(0.96, within(1e-6));
        assertThat(rows.get(0).get("denseScore").asDouble()).isZero();
        assertThat(rows.get(0).get("witness").asList(Value::asMap)).containsExactly(
                Map.of("var", "a1", "id", "HP:1", "name", "Epileptic spasm", "label", "Phenotype"),
                Map.of("type", "HAS_PHENOTYPE", "direction", "<-"),
                Map.of("var", "t", "id", "D:1", "name", "West syndrome", "label", "Disease"));
    }

    @Test
    void twoHopPlanTypesTheIntermediateAndBreaksTiesById() {
        List<Record> rows = execute(PlanValidateTest.TWO_HOP, Map.of("a1", TestKb.E1), null, Map.of());
        // HP:1 -> D:1 -> {ARX 1001, SCN1A 1002} at 1.0; HP:2 -> D:2 -> SCN1A at 0.96 (max keeps 1.0)
        assertThat(ids(rows)).containsExactly(1001L, 1002L);
        assertThat(scores(rows, "score")).allSatisfy(s -> assertThat(s).isCloseTo(1.0, within(1e-6)));
        List<Map<String, Object>> witness = rows.get(1).get("witness").asList(Value::asMap);
        assertThat(witness).extracting(step -> step.getOrDefault("id", step.get("type")))
                .containsExactly("HP:1", "HAS_PHENOTYPE", "D:1", "ASSOCIATED_WITH", 1002L);
        assertThat(witness.get(3)).containsEntry("direction", "<-");
        assertThat(witness.get(2)).containsEntry("var", "d").containsEntry("label", "Disease");
    }

    @Test
    void multiAnchorPlanSumsTheAnchorScores() {
        List<Record> rows = execute(TWO_ANCHORS, SEIZURE, null, Map.of());
        // a2 links only HP:3 (1.0; HP:2 is 0.8 < 0.95); D:3 lacks an a1 phenotype
        assertThat(ids(rows)).containsExactly("D:1", "D:2");
        assertThat(scores(rows, "anchorScore").get(0)).isCloseTo(2.0, within(1e-6));
        assertThat(scores(rows, "anchorScore").get(1)).isCloseTo(1.96, within(1e-6));
        assertThat(rows.get(0).get("witness").asList(Value::asMap)).extracting(step -> step.getOrDefault("id", step.get("type")))
                .containsExactly("HP:1", "HAS_PHENOTYPE", "D:1", "HP:3", "HAS_PHENOTYPE", "D:1");
    }

    @Test
    void anchorsMeetingAtAnIntermediateAreJoinedThere() {
        // g links SCN1A by exact name (no vector given): D:1 scores 1.0 + 1.0, D:2 0.96 + 1.0
        List<Record> rows = execute(BRANCHED, Map.of("a1", TestKb.E1), null, Map.of());
        assertThat(ids(rows)).containsExactly("HP:1", "HP:3", "HP:2");
        assertClose(scores(rows, "anchorScore"), 2.0, 2.0, 1.96);
        assertThat(rows.get(1).get("witness").asList(Value::asMap)).extracting(step -> step.getOrDefault("id", step.get("direction")))
                .containsExactly("HP:1", "<-", "D:1", "->", "HP:3", 1002L, "->", "D:1", "->", "HP:3");
    }

    @Test
    void anchorOnTheChainIsJoinedByItsBindings() {
        String plan = plan(anchor("a1", "Phenotype", "x") + "," + anchor("d", "Disease", "dravet syndrome"),
                hop("a1", "HAS_PHENOTYPE", "d") + "," + hop("d", "ASSOCIATED_WITH", "t"), "{\"var\": \"t\", \"type\": \"Gene\"}");
        List<Record> rows = execute(plan, Map.of("a1", TestKb.E1), null, Map.of());
        assertThat(ids(rows)).containsExactly(1002L);
        assertThat(scores(rows, "anchorScore").get(0)).isCloseTo(1.96, within(1e-6));
    }

    @Test
    void anchorCandidatesGivenByTheCallerAreUsedAsGiven() {
        // linked by the caller: only HP:2, at its own score (the vector would bind HP:1 at 1.0 and HP:2 at 0.96)
        List<Record> rows = execute(ONE_HOP, Map.of("a1", List.of(Map.of("id", "HP:2", "score", 0.7))), null, Map.of());
        assertThat(ids(rows)).containsExactly("D:2");
        assertThat(scores(rows, "anchorScore").get(0)).isCloseTo(0.7, within(1e-6));
        // the same bindings through execute and compile run the same query
        Map<String, Object> bindings = Map.of("a1", List.of(Map.of("id", "HP:1", "score", 0.5), Map.of("id", "HP:2", "score", 0.9)));
        Record compiled = kb.run("CALL grasp.plan.compile($plan, $bindings)", Map.of("plan", ONE_HOP, "bindings", bindings)).get(0);
        List<Record> direct = kb.run(compiled.get("query").asString(), compiled.get("params").asMap());
        List<Record> executed = execute(ONE_HOP, bindings, null, Map.of());
        assertThat(ids(executed)).containsExactly("D:2", "D:1").isEqualTo(ids(direct));
        assertThatThrownBy(() -> execute(ONE_HOP, Map.of("a1", List.of(Map.of("id", "HP:2"))), null, Map.of()))
                .hasMessageContaining("anchorVectors.a1 items must be {id, score} with a finite numeric score");
        assertThatThrownBy(() -> execute(ONE_HOP, Map.of("a1", List.of(Map.of("id", "HP:2", "score", Double.NaN))), null, Map.of()))
                .hasMessageContaining("anchorVectors.a1 items must be {id, score} with a finite numeric score");
        assertThat(execute(ONE_HOP, Map.of("a1", List.of(Map.of("id", "no such node", "score", 1.0))), null, Map.of())).isEmpty();
    }

    @Test
    void compiledQueryRunsAsIsAndAgreesWithExecute() {
        for (String plan : List.of(ONE_HOP, PlanValidateTest.TWO_HOP, TWO_ANCHORS, BRANCHED)) {
            Map<String, Object> bindings = new HashMap<>();
            for (String var : List.of("a1", "a2")) {
                if (plan.contains("\"" + var + "\"")) {
                    bindings.put(var, kb.run("CALL grasp.link($v, 'Phenotype') YIELD nodeId, score RETURN collect({id: nodeId, score: score}) AS b",
                            Map.of("v", SEIZURE.get(var))).get(0).get("b").asObject());
                }
            }
            if (plan.contains("\"g\"")) {
                bindings.put("g", List.of(Map.of("id", 1002L, "score", 1.0)));
            }
            Record compiled = kb.run("CALL grasp.plan.compile($plan, $bindings)", Map.of("plan", plan, "bindings", bindings)).get(0);
            List<Record> direct = kb.run(compiled.get("query").asString(), compiled.get("params").asMap());
            List<Record> executed = execute(plan, SEIZURE.entrySet().stream().filter(e -> plan.contains("\"" + e.getKey() + "\""))
                    .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)), RELEVANCE,
                    Map.of("denseWeight", 0.0));
            assertThat(ids(direct)).as(plan).isNotEmpty().isEqualTo(ids(executed));
            assertThat(scores(direct, "anchorScore")).isEqualTo(scores(executed, "score"));
            assertThat(direct.get(0).get("witness").asList()).isEqualTo(executed.get(0).get("witness").asList());
        }
    }

    @Test
    void compiledTwoHopQueryIsParameterizedAndQuoted() {
        Record compiled = kb.run("CALL grasp.plan.compile($plan)", Map.of("plan", PlanValidateTest.TWO_HOP)).get(0);
        String query = compiled.get("query").asString();
        assertThat(query).startsWith("UNWIND $bindings_a1 AS b_a1\nMATCH (`a1`:`Phenotype` {id: b_a1.id})\n")
                .contains("MATCH (`a1`)-[:`HAS_PHENOTYPE`]-(`d`:`Disease`)", "LIMIT $limit", "CALL (`t`, _s) {");
        assertThat(compiled.get("params").asMap()).containsEntry("bindings_a1", List.of()).containsEntry("limit", 100L);
        assertThatThrownBy(() -> kb.run("CALL grasp.plan.compile('{}')"))
                .hasMessageContaining("invalid plan: target is missing");
        assertThatThrownBy(() -> kb.run("CALL grasp.plan.compile($plan, {zz: []})", Map.of("plan", PlanValidateTest.TWO_HOP)))
                .hasMessageContaining("bindings.zz is not an anchor variable; anchors: [a1]");
    }

    @Test
    void denseRescoringExactAndIndexPathsAgree() {
        List<Record> exact = execute(ONE_HOP, Map.of("a1", TestKb.E1), RELEVANCE, Map.of());
        List<Record> index = execute(ONE_HOP, Map.of("a1", TestKb.E1), RELEVANCE, Map.of("exactLimit", 0L));
        // D:2: 0.96 + cos(doc, r) = 0.96 + 1.0; D:1: 1.0 + 0.8
        assertThat(ids(exact)).containsExactly("D:2", "D:1").isEqualTo(ids(index));
        assertClose(scores(exact, "denseScore"), 1.0, 0.8);
        for (int i = 0; i < 2; i++) {
            assertThat(scores(index, "denseScore").get(i)).isCloseTo(scores(exact, "denseScore").get(i), within(0.05));
        }
        List<Record> weighted = execute(ONE_HOP, Map.of("a1", TestKb.E1), RELEVANCE, Map.of("denseWeight", 0.1));
        assertThat(ids(weighted)).containsExactly("D:1", "D:2");
        assertThat(scores(weighted, "score").get(0)).isCloseTo(1.08, within(1e-6));
    }

    @Test
    void noHopPlansRankByTheDocIndexAfterTheTargetsOwnBindings() {
        List<Record> rows = execute(plan("", "", DISEASE), Map.of(), RELEVANCE, Map.of());
        assertThat(ids(rows)).containsExactly("D:2", "D:1", "D:3");
        assertClose(scores(rows, "score"), 1.0, 0.8, 0.36);
        assertThatThrownBy(() -> execute(plan("", "", DISEASE), Map.of(), null, Map.of()))
                .hasMessageContaining("a plan without hops and anchors ranks Disease nodes by relevanceVector; got null");
        List<Record> anchored = execute(plan(anchor("t", "Disease", "DRAVET syndrome"), "", DISEASE), Map.of(), null, Map.of());
        assertThat(ids(anchored)).containsExactly("D:2");
        assertThat(anchored.get(0).get("witness").asList(Value::asMap)).extracting(s -> s.get("id")).containsExactly("D:2");
        // with a relevance text the rest of the target type follows the binding, by cosine alone
        List<Record> ranked = execute(plan(anchor("t", "Disease", "DRAVET syndrome"), "", DISEASE), Map.of(), RELEVANCE,
                Map.of());
        assertThat(ids(ranked)).containsExactly("D:2", "D:1", "D:3");
        assertClose(scores(ranked, "score"), 2.0, 0.8, 0.36);
        assertClose(scores(ranked, "anchorScore"), 1.0, 0.0, 0.0);
        assertThat(ranked.get(1).get("witness").asList()).isEmpty();
    }

    /** Ataxia (HP:4: D:3 only), Epileptic spasm (HP:1: D:1 only) and Seizure (HP:3: every disease), as given. */
    static final String NOBODY_HAS_ALL = plan(anchor("a1", "Phenotype", "ataxia") + "," + anchor("a2", "Phenotype", "spasm")
            + "," + anchor("a3", "Phenotype", "seizure"),
            hop("a1", "HAS_PHENOTYPE", "t") + "," + hop("a2", "HAS_PHENOTYPE", "t") + "," + hop("a3", "HAS_PHENOTYPE", "t"), DISEASE);
    static final Map<String, Object> GIVEN = Map.of("a1", List.of(Map.of("id", "HP:4", "score", 1.0)),
            "a2", List.of(Map.of("id", "HP:1", "score", 1.0)), "a3", List.of(Map.of("id", "HP:3", "score", 1.0)));

    @Test
    void aPlanNobodyMatchesWhollyRanksItsPartialMatchesByTheirSpecificity() {
        List<Record> rows = execute(NOBODY_HAS_ALL, GIVEN, null, Map.of());
        // weights: ln(3/1) for the rare anchors, 0.05 (the floor) for Seizure, which every disease has
        double rare = Math.log(3.0);
        double sum = 2 * rare + PartialMatcher.MIN_WEIGHT;
        assertThat(ids(rows)).containsExactly("D:1", "D:3", "D:2");
        assertClose(scores(rows, "anchorScore"), 3 * (rare + 0.05) / sum, 3 * (rare + 0.05) / sum, 3 * 0.05 / sum);
        assertThat(rows).allSatisfy(r -> assertThat(r.get("exact").asBoolean()).isFalse());
        // the witness lists each satisfied anchor's own path, in plan order
        assertThat(rows.get(0).get("witness").asList(Value::asMap)).extracting(step -> step.getOrDefault("id", step.get("type")))
                .containsExactly("HP:1", "HAS_PHENOTYPE", "D:1", "HP:3", "HAS_PHENOTYPE", "D:1");
        assertThat(execute(NOBODY_HAS_ALL, GIVEN, null, Map.of("relaxBelow", 0L))).isEmpty();
        // a whole match stays exact and alone: Ataxia and Seizure are both D:3's
        List<Record> whole = execute(plan(anchor("a1", "Phenotype", "ataxia") + "," + anchor("a3", "Phenotype", "seizure"),
                hop("a1", "HAS_PHENOTYPE", "t") + "," + hop("a3", "HAS_PHENOTYPE", "t"), DISEASE),
                Map.of("a1", GIVEN.get("a1"), "a3", GIVEN.get("a3")), null, Map.of());
        assertThat(ids(whole)).containsExactly("D:3");
        assertThat(whole.get(0).get("exact").asBoolean()).isTrue();
    }

    @Test
    void anAnnotationToAChildTermCountsInFullAndOneToAParentTermWithTheHierarchyDiscount() {
        kb.run("MATCH (c:Phenotype {id: 'HP:1'}) CREATE (c)-[:IS_A]->(:Phenotype {id: 'HP:5', name: 'Spasms'})");
        String plan = plan(anchor("a1", "Phenotype", "spasms"), hop("a1", "HAS_PHENOTYPE", "t"), DISEASE);
        Map<String, Object> given = Map.of("a1", List.of(Map.of("id", "HP:5", "score", 0.9)));
        List<Record> rows = execute(plan, given, null, Map.of());
        // nobody has HP:5 itself; D:1 has its child HP:1, which implies it (the true-path rule): credited 1.0 x 0.9
        assertThat(ids(rows)).containsExactly("D:1");
        assertClose(scores(rows, "anchorScore"), 0.9);
        assertThat(rows.get(0).get("exact").asBoolean()).isFalse();
        assertClose(scores(execute(plan, given, null, Map.of("descendantCredit", 0.5)), "anchorScore"), 0.45);
        assertThat(execute(plan, given, null, Map.of("descendantCredit", 0.0))).isEmpty();
        // asked for the child, D:1 has... the child itself; asked for a term whose parent D:1 has: the discount
        kb.run("MATCH (c:Phenotype {id: 'HP:1'}) CREATE (:Phenotype {id: 'HP:6', name: 'Infantile spasms'})-[:IS_A]->(c)");
        Map<String, Object> child = Map.of("a1", List.of(Map.of("id", "HP:6", "score", 0.9)));
        assertClose(scores(execute(plan, child, null, Map.of()), "anchorScore"), 0.72);
        assertClose(scores(execute(plan, child, null, Map.of("hierarchyDiscount", 0.5)), "anchorScore"), 0.45);
        assertThat(execute(plan, child, null, Map.of("hierarchyDiscount", 0.0))).isEmpty();
        assertThatThrownBy(() -> execute(plan, given, null, Map.of("hierarchyDiscount", 1.5)))
                .hasMessageContaining("config hierarchyDiscount must be a number in [0, 1]; got 1.5");
        assertThatThrownBy(() -> execute(plan, given, null, Map.of("descendantCredit", -0.1)))
                .hasMessageContaining("config descendantCredit must be a number in [0, 1]; got -0.1");
        assertThatThrownBy(() -> execute(plan, given, null, Map.of("relaxBelow", -1L)))
                .hasMessageContaining("config relaxBelow must be an integer in [0, 100000]; got -1");
    }

    @Test
    void aRelationWhoseNameSaysNoDirectionCountsEitherWayWithTheDiscount() {
        assertThat(HierarchyDirection.childToParent("IS_A")).isTrue();
        assertThat(HierarchyDirection.childToParent("PARENT_OF")).isFalse();
        assertThat(HierarchyDirection.childToParent("HAS_CHILD")).isFalse();
        assertThat(HierarchyDirection.childToParent("SIMILAR_TO")).isNull();
        assertThat(HierarchyDirection.isChild("IS_A", true)).isTrue(); // (child)-[:IS_A]->(bound)
        assertThat(HierarchyDirection.isChild("HAS_CHILD", false)).isTrue(); // (bound)-[:HAS_CHILD]->(child)
        assertThat(HierarchyDirection.isChild("SIMILAR_TO", true)).isFalse();
    }

    @Test
    void thePartialPassKeepsTheRowBudgetOnAHub() {
        kb.run("CREATE (p:Phenotype {id: 'HP:hub', name: 'Hub'}) WITH p UNWIND range(1, 5000) AS i "
                + "CREATE (:Disease {id: 'HUB:' + i, name: 'd' + i})-[:HAS_PHENOTYPE]->(p)");
        String plan = plan(anchor("a1", "Phenotype", "hub") + "," + anchor("a2", "Phenotype", "ataxia"),
                hop("a1", "HAS_PHENOTYPE", "t") + "," + hop("a2", "HAS_PHENOTYPE", "t"), DISEASE);
        Map<String, Object> given = Map.of("a1", List.of(Map.of("id", "HP:hub", "score", 1.0)), "a2", GIVEN.get("a1"));
        // no disease has both (the whole plan matches no row), so each anchor runs alone: the hub's 5000 rows
        assertThatThrownBy(() -> execute(plan, given, null, Map.of("maxRows", 1000L)))
                .hasMessageContaining("plan matched more than 1000 rows (config maxRows); narrow the anchors");
        List<Record> rows = execute(plan, given, null, Map.of());
        assertThat(rows).hasSize(100);
        assertThat(ids(rows).get(0)).isEqualTo("D:3"); // the rare anchor's disease first
    }

    @Test
    void hubAnchorStopsAtTheRowBudget() {
        kb.run("CREATE (p:Phenotype {id: 'HP:hub', name: 'Hub'}) WITH p UNWIND range(1, 5000) AS i "
                + "CREATE (:Disease {id: 'HUB:' + i, name: 'd' + i})-[:HAS_PHENOTYPE]->(p)");
        String plan = plan(anchor("a1", "Phenotype", "hub"), hop("a1", "HAS_PHENOTYPE", "t"), DISEASE);
        assertThatThrownBy(() -> execute(plan, Map.of(), null, Map.of("maxRows", 1000L)))
                .hasMessageContaining("plan matched more than 1000 rows (config maxRows); narrow the anchors");
        assertThat(execute(plan, Map.of(), null, Map.of())).hasSize(100);
    }

    @Test
    void hostileInputIsRejectedOrTreatedAsData() {
        String evil = "'}) DETACH DELETE n //";
        String textPlan = "{\"anchors\": [" + anchor("a1", "Phenotype", evil) + "], \"hops\": [" + hop("a1", "HAS_PHENOTYPE", "t")
                + "], \"target\": " + DISEASE + ", \"relevance_text\": \"" + evil + "\"}";
        assertThat(execute(textPlan, Map.of(), null, Map.of())).isEmpty();
        assertThatThrownBy(() -> execute(plan(anchor("a1", "Disease`) DETACH DELETE n //", "x"), hop("a1", "HAS_PHENOTYPE", "t"),
                DISEASE), Map.of(), null, Map.of())).hasMessageContaining("invalid plan: anchor 'a1' type 'Disease`) DETACH");
        assertThatThrownBy(() -> execute(ONE_HOP, Map.of("a1", List.of(1.0, 0.0)), null, Map.of()))
                .hasMessageContaining("vector has 2 dimensions but index 'grasp_phenotype_name' holds 4-dimensional");
        assertThatThrownBy(() -> execute(ONE_HOP, Map.of("a1", TestKb.E1), List.of(1.0), Map.of()))
                .hasMessageContaining("relevanceVector has 1 dimensions but doc_embedding of Disease node");
        assertThatThrownBy(() -> execute(ONE_HOP, Map.of("a1", TestKb.E1), null, Map.of("k", 1_000_000L)))
                .hasMessageContaining("config k must be an integer in [-inf, 1000]; got 1000000");
        assertThatThrownBy(() -> execute(ONE_HOP, Map.of("zz", TestKb.E1), null, Map.of()))
                .hasMessageContaining("anchorVectors has key 'zz', which is not an anchor variable; anchors: [a1]");
        assertThatThrownBy(() -> execute(ONE_HOP, Map.of(), null, Map.of("fast", true)))
                .hasMessageContaining("unknown config key 'fast'; allowed: [denseWeight, descendantCredit, exactLimit, hierarchyDiscount, indexTopN, k, maxRows, relaxBelow, tau, timeoutMs]");
        assertThat(kb.nodeCount()).isEqualTo(10L);
    }

    @Test
    void absurdBudgetsAreRefusedWithTheirRange() {
        Map<String, Object> v = Map.of("a1", TestKb.E1);
        for (long bad : new long[] {Long.MAX_VALUE, 100_000_001L, 0L, -1L, Long.MIN_VALUE}) {
            assertThatThrownBy(() -> execute(ONE_HOP, v, null, Map.of("maxRows", bad)))
                    .hasMessageContaining("config maxRows must be an integer in [1, 100000000]; got " + bad);
        }
        for (long bad : new long[] {Long.MAX_VALUE, 3_600_001L, 0L, -5L}) {
            assertThatThrownBy(() -> execute(ONE_HOP, v, null, Map.of("timeoutMs", bad)))
                    .hasMessageContaining("config timeoutMs must be an integer in [1, 3600000]; got " + bad);
        }
        assertThatThrownBy(() -> execute(ONE_HOP, v, null, Map.of("exactLimit", Long.MAX_VALUE)))
                .hasMessageContaining("config exactLimit must be an integer in [0, 100000000]; got " + Long.MAX_VALUE);
        assertThatThrownBy(() -> execute(ONE_HOP, v, null, Map.of("indexTopN", 0L)))
                .hasMessageContaining("config indexTopN must be an integer in [1, 100000]; got 0");
        for (long bad : new long[] {Long.MAX_VALUE, 100_001L, 0L, -1L}) {
            Map<String, Object> params = Map.of("plan", plan("", "", DISEASE), "limit", bad, "relevance", RELEVANCE);
            assertThatThrownBy(() -> kb.run("CALL grasp.plan.execute($plan, {}, $relevance, $limit)", params))
                    .hasMessageContaining("limit must be between 1 and 100000; got " + bad);
        }
        // the documented maxima themselves are accepted and change nothing on a small graph
        List<Record> rows = execute(ONE_HOP, v, null, Map.of("maxRows", 100_000_000L, "timeoutMs", 3_600_000L,
                "exactLimit", 100_000_000L));
        assertThat(ids(rows)).containsExactly("D:1", "D:2");
        assertThat(kb.run("CALL grasp.plan.execute($plan, {}, $relevance, 100000)",
                Map.of("plan", plan("", "", DISEASE), "relevance", RELEVANCE))).hasSize(3);
    }

    @Test
    void runsInTheCallersTransactionAndSeesItsUncommittedWrites() {
        String call = "CALL grasp.plan.execute($plan, $vectors, null, 100, $config) YIELD nodeId RETURN nodeId";
        Map<String, Object> params = Map.of("plan", ONE_HOP, "vectors", Map.of("a1", TestKb.E1), "config", Map.of("timeoutMs", 1000L));
        kb.run(call, params); // the first call plans its queries (slow on a cold server); the budget is for the second
        kb.inTransaction(tx -> {
            tx.run("MATCH (p:Phenotype {id: 'HP:1'}) CREATE (:Disease {id: 'D:9', name: 'Uncommitted'})-[:HAS_PHENOTYPE]->(p)");
            assertThat(tx.run(call, params).list(r -> r.get("nodeId").asObject())).containsExactly("D:1", "D:9", "D:2");
            // a plan that finished inside its budget never terminates the caller's transaction afterwards
            sleep(1500);
            assertThat(tx.run("MATCH (d:Disease {id: 'D:9'}) RETURN count(d) AS c").single().get("c").asLong()).isOne();
        }); // rolled back
        assertThat(ids(execute(ONE_HOP, Map.of("a1", TestKb.E1), null, Map.of()))).containsExactly("D:1", "D:2");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
