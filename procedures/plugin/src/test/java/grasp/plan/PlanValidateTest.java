package grasp.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
                + "[anchors, hops, n_cand, name_contains, order, relevance_text, risk, target]; got array");
    }

    @Test
    void emptyPlanUnknownFieldsAndBadEnumsAreErrors() {
        assertThat(errors("{}")).containsExactly("target is missing; expected {\"var\": ..., \"type\": ...}");
        assertThat(errors("")).containsExactly("plan JSON is empty; expected an object with fields "
                + "[anchors, hops, n_cand, name_contains, order, relevance_text, risk, target]");
        assertThat(errors("{\"target\": {\"var\": \"t\", \"type\": \"Disease\"}, \"limit\": 3, \"n_cand\": -1}"))
                .containsExactlyInAnyOrder("unknown field 'limit' in plan; allowed: "
                        + "[anchors, hops, n_cand, name_contains, order, relevance_text, risk, target]", "n_cand must be a non-negative integer; got -1");
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
                "anchor 'a1`) DETACH DELETE n //' type 'Disease`) DETACH DELETE n //' is not allowed; names must be "
                        + "strings matching ^[A-Za-z_][A-Za-z0-9_]{0,63}$ (ASCII letters, digits and underscores, not "
                        + "starting with a digit, at most 64 characters)",
                "hops[0]: relation 'HAS_PHENOTYPE`]-() DETACH DELETE n //' is not allowed; names must be strings matching "
                        + "^[A-Za-z_][A-Za-z0-9_]{0,63}$ (ASCII letters, digits and underscores, not starting with a digit, "
                        + "at most 64 characters)");
        assertThat(kb.nodeCount()).isEqualTo(10L);
    }

    /** Structurally wrong plans: wrong JSON types anywhere, nulls, nested garbage, missing fields. */
    static final List<String> MALFORMED = List.of(
            "{\"anchors\": [\"a\"], \"hops\": [], \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"anchors\": [], \"hops\": [1], \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"anchors\": [null], \"hops\": [null, true, 2.5, \"x\", [], {}], \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"anchors\": [[{\"var\": \"a\"}]], \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"anchors\": {\"var\": \"a\"}, \"hops\": \"a-t\", \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"anchors\": 3, \"hops\": false, \"target\": \"t\"}",
            "{\"target\": [\"t\", \"Disease\"]}",
            "{\"target\": null}",
            "{\"target\": {}}",
            "{\"target\": {\"var\": 1, \"type\": null}}",
            "{\"target\": {\"var\": {\"x\": [1, {\"y\": null}]}, \"type\": [\"Disease\"]}}",
            "{\"anchors\": [{}], \"hops\": [{}], \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"anchors\": [{\"var\": null, \"type\": \"Phenotype\", \"text\": 5, \"match_mode\": [\"name\"]}],"
                    + " \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"anchors\": [{\"var\": \"a\", \"type\": \"Phenotype\"}], \"hops\": [{\"source\": \"a\", \"relation\": "
                    + "[\"HAS_PHENOTYPE\"], \"target\": null, \"direction\": 3, \"source_type\": {}}],"
                    + " \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"target\": {\"var\": \"t\", \"type\": \"Disease\"}, \"risk\": 5, \"relevance_text\": {}, \"n_cand\": \"5\"}",
            "{\"target\": {\"var\": \"t\", \"type\": \"Disease\"}, \"n_cand\": 1.5}",
            "{\"target\": {\"var\": \"t\", \"type\": \"Disease\"}, \"n_cand\": 1e400}",
            "{\"target\": {\"var\": \"t\", \"type\": \"Disease\"}, \"n_cand\": 99999999999999999999999}",
            "{\"target\": {\"var\": \"\", \"type\": \"\"}}",
            "{\"anchors\": " + "[".repeat(5000) + "]".repeat(5000) + ", \"target\": {\"var\": \"t\", \"type\": \"Disease\"}}",
            "{\"target\": {\"var\": \"t\", \"type\": \"Disease\"}, \"target\": {\"var\": \"u\", \"type\": \"Gene\"}}",
            "{\"target\": {\"var\": \"t\", \"type\": \"Disease\"}} trailing",
            "null", "true", "42", "\"plan\"", "[]", "{", "   ");

    @Test
    void malformedPlansAreErrorsNeverExceptions() {
        for (String plan : MALFORMED) {
            Record row = validate(plan);
            List<String> errors = row.get("errors").asList(v -> v.asString());
            assertThat(row.get("valid").asBoolean()).as(plan).isFalse();
            assertThat(errors).as(plan).isNotEmpty().noneMatch(error -> error.startsWith("plan could not be validated"));
            assertThatThrownBy(() -> kb.run("CALL grasp.plan.compile($plan)", Map.of("plan", plan))).as(plan)
                    .hasMessageContaining("invalid plan: ").hasMessageNotContaining("NullPointerException");
        }
        assertThat(errors(MALFORMED.get(0))).containsExactly("anchors[0] must be an object; got string");
        assertThat(errors(MALFORMED.get(1))).containsExactly("hops[0] must be an object; got number");
        assertThat(errors(MALFORMED.get(2))).contains("anchors[0] must be an object; got null", "hops[1] must be an object; "
                + "got boolean", "hops[4] must be an object; got array", "hops[5].source is missing; expected a string");
        assertThat(errors(MALFORMED.get(9))).containsExactlyInAnyOrder("target.var must be a string; got 1",
                "target.type is missing; expected a string");
    }
}
