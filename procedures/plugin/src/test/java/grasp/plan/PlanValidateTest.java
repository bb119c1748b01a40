package grasp.plan;

import static org.assertj.core.api.Assertions.assertThat;

import grasp.testkb.SmallKbTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Record;

class PlanValidateTest extends SmallKbTest {

    static final String TWO_HOP = """
        {"anchors": [{"var": "a1", "type": "Phenotype", "text": "epileptic spasm", "match_mode": "name"}],
         "hops": [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "d"},
                  {"source": "d", "relation": "ASSOCIATED_WITH", "target": "t"}],
         "target": {"var": "t", "type": "Gene"}, "relevance_text": "", "n_cand": 50, "risk": "low"}
        """;

    private Record validate(String plan) {
        return kb.run("CALL grasp.plan.validate($plan)", Map.of("plan", plan)).get(0);
    }

    private List<String> errors(String plan) {
        Record row = validate(plan);
        List<String> errors = row.get("errors").asList(v -> v.asString());
        assertThat(row.get("valid").asBoolean()).isEqualTo(errors.isEmpty());
        return errors;
    }

    static String plan(String anchors, String hops, String target) {
        return "{\"anchors\": [" + anchors + "], \"hops\": [" + hops + "], \"target\": " + target + "}";
    }

    static String anchor(String var, String type, String text) {
        return "{\"var\": \"" + var + "\", \"type\": \"" + type + "\", \"text\": \"" + text + "\", \"match_mode\": \"name\"}";
    }

    static String hop(String source, String relation, String target) {
        return "{\"source\": \"" + source + "\", \"relation\": \"" + relation + "\", \"target\": \"" + target + "\"}";
    }

    @Test
    void twoHopPlanWithAnIntermediateIsValid() {
        Record row = validate(TWO_HOP);
        assertThat(row.get("errors").asList()).isEmpty();
        assertThat(row.get("valid").asBoolean()).isTrue();
    }

    @Test
    void unknownTypesAndRelationsListTheKnownOnes() {
        List<String> errors = errors(plan(anchor("a1", "Drug", "x"), hop("a1", "TREATS", "t"), "{\"var\": \"t\", \"type\": \"Disease\"}"));
        assertThat(errors).contains(
                "anchor 'a1' type 'Drug' does not occur in the graph; known labels: [Disease, Gene, Phenotype]",
                "hops[0]: relation 'TREATS' does not occur in the graph; known relations: [ASSOCIATED_WITH, HAS_PHENOTYPE]");
    }

    @Test
    void relationThatDoesNotConnectTheTypesIsRejected() {
        List<String> errors = errors(plan(anchor("g", "Gene", "ARX"), hop("g", "HAS_PHENOTYPE", "t"),
                "{\"var\": \"t\", \"type\": \"Disease\"}"));
        assertThat(errors).containsExactly("hops[0]: (:Gene)-[:HAS_PHENOTYPE]-(:Disease) does not occur in either direction; "
                + "HAS_PHENOTYPE connects [(:Disease)-(:Phenotype)]");
    }

    @Test
    void hopsAreUndirected() {
        // stored (Disease)-[:HAS_PHENOTYPE]->(Phenotype); the plan walks it from the disease side and back
        assertThat(errors(plan(anchor("d", "Disease", "West syndrome"), hop("t", "HAS_PHENOTYPE", "d"),
                "{\"var\": \"t\", \"type\": \"Phenotype\"}"))).isEmpty();
    }

    @Test
    void disconnectedAnchorDanglingVariableAndCycleAreRejected() {
        String target = "{\"var\": \"t\", \"type\": \"Disease\"}";
        assertThat(errors(plan(anchor("a1", "Phenotype", "x") + "," + anchor("a2", "Gene", "y"),
                hop("a1", "HAS_PHENOTYPE", "t"), target)))
                .containsExactly("anchor 'a2' is not connected to the target 't' through the hops");
        assertThat(errors(plan(anchor("a1", "Phenotype", "x"),
                hop("a1", "HAS_PHENOTYPE", "t") + "," + hop("t", "ASSOCIATED_WITH", "g"), target)))
                .containsExactly("variable 'g' is dangling: it is neither an anchor nor the target and lies on no path "
                        + "from an anchor to the target");
        assertThat(errors(plan(anchor("a1", "Phenotype", "x"),
                hop("a1", "HAS_PHENOTYPE", "t") + "," + hop("t", "HAS_PHENOTYPE", "a1"), target)))
                .containsExactly("hops[1] closes a cycle; hops must form a tree with one path from each anchor to the target");
        assertThat(errors(plan(anchor("a1", "Phenotype", "x"), hop("a1", "HAS_PHENOTYPE", "a1"), target)))
                .contains("hops[0] joins 'a1' to itself; a hop joins two different variables");
    }

    @Test
    void ambiguousIntermediateNamesTheCandidatesAndAHintResolvesIt() {
        kb.run("MATCH (g:Gene {id: 1003}), (p:Phenotype {id: 'HP:4'}) CREATE (g)-[:ASSOCIATED_WITH]->(p)");
        String target = "{\"var\": \"t\", \"type\": \"Gene\"}";
        assertThat(errors(plan(anchor("g", "Gene", "ARX"), hop("g", "ASSOCIATED_WITH", "x") + ","
                + hop("x", "ASSOCIATED_WITH", "t"), target)))
                .containsExactly("intermediate variable 'x' is ambiguous: it could be any of [Disease, Phenotype]; "
                        + "give the hop a \"target_type\" or \"source_type\"");
        String hinted = "{\"source\": \"g\", \"relation\": \"ASSOCIATED_WITH\", \"target\": \"x\", \"target_type\": \"Disease\"}";
        assertThat(errors(plan(anchor("g", "Gene", "ARX"), hinted + "," + hop("x", "ASSOCIATED_WITH", "t"), target))).isEmpty();
    }

    @Test
    void malformedJsonSaysWhere() {
        List<String> errors = errors("{\"anchors\": [}");
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0)).startsWith("malformed plan JSON at line 1, column ");
        assertThat(errors("[1, 2]")).containsExactly("plan JSON must be an object with fields "
                + "[anchors, hops, n_cand, relevance_text, risk, target]; got array");
    }

    @Test
    void emptyPlanUnknownFieldsAndBadEnumsAreErrors() {
        assertThat(errors("{}")).containsExactly("target is missing; expected {\"var\": ..., \"type\": ...}");
        assertThat(errors("")).containsExactly("plan JSON is empty; expected an object with fields "
                + "[anchors, hops, n_cand, relevance_text, risk, target]");
        assertThat(errors("{\"target\": {\"var\": \"t\", \"type\": \"Disease\"}, \"limit\": 3, \"n_cand\": -1}"))
                .containsExactlyInAnyOrder("unknown field 'limit' in plan; allowed: "
                        + "[anchors, hops, n_cand, relevance_text, risk, target]", "n_cand must be a non-negative integer; got -1");
        String badEnums = "{\"anchors\": [{\"var\": \"t\", \"type\": \"Disease\", \"text\": \"x\", \"match_mode\": \"fuzzy\"}],"
                + " \"target\": {\"var\": \"t\", \"type\": \"Disease\"}, \"risk\": \"extreme\"}";
        assertThat(errors(badEnums)).containsExactlyInAnyOrder(
                "risk 'extreme' is not allowed; allowed: [high, low, medium]",
                "anchor 't': match_mode 'fuzzy' is not allowed; allowed: [doc, name]");
    }

    @Test
    void noHopPlansMayAnchorOnlyTheTarget() {
        assertThat(errors(plan("", "", "{\"var\": \"t\", \"type\": \"Disease\"}"))).isEmpty();
        assertThat(errors(plan(anchor("t", "Disease", "West syndrome"), "", "{\"var\": \"t\", \"type\": \"Disease\"}"))).isEmpty();
        assertThat(errors(plan(anchor("a", "Phenotype", "x"), "", "{\"var\": \"t\", \"type\": \"Disease\"}")))
                .containsExactly("anchor 'a' is not connected to the target 't'; a plan without hops may only anchor the target variable");
    }

    @Test
    void cypherInValuesIsDataAndInIdentifiersIsRejected() {
        String evil = "'}) DETACH DELETE n //";
        String dataOnly = "{\"anchors\": [{\"var\": \"a1\", \"type\": \"Phenotype\", \"text\": \"" + evil + "\"}],"
                + " \"hops\": [" + hop("a1", "HAS_PHENOTYPE", "t") + "], \"target\": {\"var\": \"t\", \"type\": \"Disease\"},"
                + " \"relevance_text\": \"" + evil + "\"}";
        assertThat(errors(dataOnly)).isEmpty();
        List<String> errors = errors(plan(anchor("a1`) DETACH DELETE n //", "Disease`) DETACH DELETE n //", "x"),
                hop("a1", "HAS_PHENOTYPE`]-() DETACH DELETE n //", "t"), "{\"var\": \"t\", \"type\": \"Disease\"}"));
        assertThat(errors).contains(
                "anchor variable 'a1`) DETACH DELETE n //' is not allowed; variables match [A-Za-z][A-Za-z0-9_]{0,63} "
                        + "and do not start with 'b_'",
                "anchor 'a1`) DETACH DELETE n //' type 'Disease`) DETACH DELETE n //' does not occur in the graph; "
                        + "known labels: [Disease, Gene, Phenotype]");
        assertThat(kb.nodeCount()).isEqualTo(10L);
    }
}
