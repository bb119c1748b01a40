package grasp.cypher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grasp.testkb.SmallKbTest;
import grasp.testkb.TestKb;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Record;
import org.neo4j.driver.Value;

/**
 * Issue #16: names stored in the graph are not trusted. Neo4j 5 reads the escape {@code \u0060} inside a backticked
 * name as a backtick, so backtick-doubling alone let a planted label close its quotes. The fixture plants the probe's
 * labels (the literal characters backslash, u, 0, 0, 6, 0) and a relationship type of the same kind with
 * parameter-free writes; every procedure must refuse them by the identifier rule, and nothing may be written.
 */
class StoredNameInjectionTest extends SmallKbTest {

    /** Quoted by doubling backticks only, this label turned grasp.link's query into "every Gene". */
    static final String LINK_LABEL = "H\\u0060) RETURN n LIMIT 0 UNION MATCH (n:Gene) RETURN n UNION MATCH (n:\\u0060Gene";
    /** Quoted by doubling backticks only, this label made grasp.plan.compile return a query that writes. */
    static final String PLAN_LABEL = "E\\u0060) SET a.pwned = 1 WITH * MATCH (a:\\u0060E";
    static final String REL_TYPE = "R\\u0060]-() SET a.pwned = 1 WITH * MATCH (a)-[:\\u0060R";
    static final String RULE = "is not allowed; names must be strings matching ^[A-Za-z_][A-Za-z0-9_]{0,63}$";
    static final long NODES = 12;

    /** A Cypher string literal: the backslashes doubled, so the label keeps the six characters of the escape. */
    private static String literal(String value) {
        return "'" + value.replace("\\", "\\\\") + "'";
    }

    /** A JSON string: likewise, or the JSON parser would read the escape as a backtick. */
    private static String json(String value) {
        return "\"" + value.replace("\\", "\\\\") + "\"";
    }

    @BeforeEach
    void plantHostileNames() {
        kb.run("CREATE (:$(" + literal(LINK_LABEL) + ") {id: 'H:1', name: 'ARX'})");
        kb.run("MATCH (p:Phenotype {id: 'HP:1'}) CREATE (:$(" + literal(PLAN_LABEL) + ") {id: 'E:1', name: 'evil'})"
                + "-[:HAS_PHENOTYPE]->(p)");
        kb.run("MATCH (p:Phenotype {id: 'HP:2'}), (d:Disease {id: 'D:3'}) CREATE (p)-[:$(" + literal(REL_TYPE) + ")]->(d)");
        List<String> labels = kb.run("CALL db.labels() YIELD label RETURN label").stream().map(r -> r.get("label").asString()).toList();
        assertThat(labels).contains(LINK_LABEL, PLAN_LABEL); // planted with the literal escape, not a backtick
        assertThat(kb.nodeCount()).isEqualTo(NODES);
    }

    private void assertGraphUnchanged() {
        assertThat(kb.nodeCount()).isEqualTo(NODES);
        assertThat(kb.run("MATCH (n) WHERE n.pwned IS NOT NULL RETURN count(n) AS c").get(0).get("c").asLong()).isZero();
        assertThat(kb.run("MATCH ()-[r]->() RETURN count(r) AS c").get(0).get("c").asLong()).isEqualTo(12L);
    }

    private static String plan(String anchorType, String relation, String targetType) {
        return "{\"anchors\": [{\"var\": \"a\", \"type\": " + json(anchorType) + ", \"text\": \"evil\"}], \"hops\": "
                + "[{\"source\": \"a\", \"relation\": " + json(relation) + ", \"target\": \"t\"}], \"target\": {\"var\": "
                + "\"t\", \"type\": " + json(targetType) + "}}";
    }

    @Test
    void linkRefusesAStoredHostileLabelAndReturnsNoGenes() {
        for (Object input : List.of("ARX", "x", TestKb.E1)) {
            List<Record> rows = List.of();
            try {
                rows = kb.run("CALL grasp.link($input, $label)", Map.of("input", input, "label", LINK_LABEL));
            } catch (RuntimeException e) {
                assertThat(e).hasMessageContaining("label '" + LINK_LABEL + "' " + RULE);
            }
            assertThat(rows).as("input %s", input).isEmpty();
        }
        assertThatThrownBy(() -> kb.run("CALL grasp.link('x', $label)", Map.of("label", LINK_LABEL)))
                .hasMessageContaining("label '" + LINK_LABEL + "' " + RULE);
        assertGraphUnchanged();
    }

    @Test
    void validateReportsStoredHostileLabelsAndTypesAsErrors() {
        Record row = kb.run("CALL grasp.plan.validate($plan)", Map.of("plan", plan(PLAN_LABEL, "HAS_PHENOTYPE", "Phenotype"))).get(0);
        assertThat(row.get("valid").asBoolean()).isFalse();
        assertThat(row.get("errors").asList(Value::asString)).containsExactly("anchor 'a' type '" + PLAN_LABEL + "' " + RULE
                + " (ASCII letters, digits and underscores, not starting with a digit, at most 64 characters)");
        row = kb.run("CALL grasp.plan.validate($plan)", Map.of("plan", plan("Phenotype", REL_TYPE, LINK_LABEL))).get(0);
        assertThat(row.get("valid").asBoolean()).isFalse();
        assertThat(row.get("errors").asList(Value::asString)).hasSize(2).anySatisfy(error -> assertThat(error)
                .startsWith("hops[0]: relation '" + REL_TYPE + "' " + RULE)).anySatisfy(error -> assertThat(error)
                .startsWith("target type '" + LINK_LABEL + "' " + RULE));
        assertGraphUnchanged();
    }

    @Test
    void compileAndExecuteRefuseAndTheGraphIsUnchanged() {
        String hostile = plan(PLAN_LABEL, "HAS_PHENOTYPE", "Phenotype");
        assertThatThrownBy(() -> kb.run("CALL grasp.plan.compile($plan, {a: [{id: 'E:1', score: 1.0}]})", Map.of("plan", hostile)))
                .hasMessageContaining("invalid plan: anchor 'a' type '" + PLAN_LABEL + "' " + RULE);
        assertThatThrownBy(() -> kb.run("CALL grasp.plan.execute($plan, {})", Map.of("plan", hostile)))
                .hasMessageContaining("invalid plan: anchor 'a' type '" + PLAN_LABEL + "' " + RULE);
        assertThatThrownBy(() -> kb.run("CALL grasp.plan.compile($plan)", Map.of("plan", plan("Phenotype", REL_TYPE, "Disease"))))
                .hasMessageContaining("invalid plan: hops[0]: relation '" + REL_TYPE + "' " + RULE);
        assertGraphUnchanged();
    }

    @Test
    void schemaListsHostileNamesAsUnusableOnly() {
        Record row = kb.run("CALL grasp.schema()").get(0);
        assertThat(row.get("labels").asList(v -> v.asMap().get("label"))).containsExactlyInAnyOrder("Disease", "Gene", "Phenotype");
        assertThat(row.get("relationshipTypes").asList(v -> v.asMap().get("type")))
                .containsExactlyInAnyOrder("ASSOCIATED_WITH", "HAS_PHENOTYPE");
        assertThat(row.get("patterns").asList(Value::asMap)).allSatisfy(pattern -> assertThat(List.of(pattern.get("source"),
                pattern.get("type"), pattern.get("target"))).allSatisfy(name -> assertThat(CypherIdentifier.isValid(name)).isTrue()));
        assertThat(row.get("unusable").asList(Value::asMap)).containsExactly(
                Map.of("kind", "label", "name", PLAN_LABEL, "count", 1L),
                Map.of("kind", "label", "name", LINK_LABEL, "count", 1L),
                Map.of("kind", "relationshipType", "name", REL_TYPE, "count", 1L));
        List<String> errors = kb.run("CALL grasp.schema.validatePath($labels, $types)", Map.of("labels",
                List.of(PLAN_LABEL, "Phenotype", "Disease"), "types", List.of("HAS_PHENOTYPE", REL_TYPE)))
                .get(0).get("errors").asList(Value::asString);
        assertThat(errors).hasSize(2);
        assertThat(errors.get(0)).startsWith("label at position 0 '" + PLAN_LABEL + "' " + RULE);
        assertThat(errors.get(1)).startsWith("hop 1: relationship type '" + REL_TYPE + "' " + RULE);
        assertGraphUnchanged();
    }
}
