package grasp.plan;

import static grasp.plan.PlanValidateTest.anchor;
import static grasp.plan.PlanValidateTest.plan;
import static org.assertj.core.api.Assertions.assertThat;

import grasp.testkb.SmallKbTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Record;

/** Hops with a direction: IS_A read downwards (subtypes) or upwards (parents), where "any" mixes both. */
class DirectedHopTest extends SmallKbTest {

    static final String DISEASE = "{\"var\": \"t\", \"type\": \"Disease\"}";

    @BeforeEach
    void addHierarchy() {
        // West (D:1) and Dravet (D:2) are kinds of Angelman (D:3) in this toy hierarchy: child -[:IS_A]-> parent
        kb.run("MATCH (c:Disease) WHERE c.id IN ['D:1', 'D:2'] MATCH (p:Disease {id: 'D:3'}) CREATE (c)-[:IS_A]->(p)");
    }

    static String directedHop(String source, String relation, String target, String direction) {
        return "{\"source\": \"" + source + "\", \"relation\": \"" + relation + "\", \"target\": \"" + target
                + "\", \"direction\": \"" + direction + "\"}";
    }

    private List<Object> run(String plan, String anchorId) {
        Map<String, Object> bindings = Map.of("a1", List.of(Map.of("id", anchorId, "score", 1.0)));
        Record compiled = kb.run("CALL grasp.plan.compile($plan, $bindings)", Map.of("plan", plan, "bindings", bindings)).get(0);
        return kb.run(compiled.get("query").asString(), compiled.get("params").asMap()).stream()
                .map(r -> r.get("nodeId").asObject()).toList();
    }

    private List<String> errors(String plan) {
        return kb.run("CALL grasp.plan.validate($plan)", Map.of("plan", plan)).get(0).get("errors").asList(v -> v.asString());
    }

    @Test
    void directionSelectsChildrenOrParents() {
        String a1 = anchor("a1", "Disease", "x");
        // t -[:IS_A]-> a1: the subtypes of a1, written both ways round
        assertThat(run(plan(a1, directedHop("t", "IS_A", "a1", "out"), DISEASE), "D:3")).containsExactly("D:1", "D:2");
        assertThat(run(plan(a1, directedHop("a1", "IS_A", "t", "in"), DISEASE), "D:3")).containsExactly("D:1", "D:2");
        assertThat(run(plan(a1, directedHop("a1", "IS_A", "t", "out"), DISEASE), "D:3")).isEmpty();
        // a1 -[:IS_A]-> t: the parents
        assertThat(run(plan(a1, directedHop("a1", "IS_A", "t", "out"), DISEASE), "D:1")).containsExactly("D:3");
        assertThat(run(plan(a1, directedHop("t", "IS_A", "a1", "out"), DISEASE), "D:1")).isEmpty();
        // "any" (and no direction at all) reads both ways: Angelman's neighbours are its two subtypes
        assertThat(run(plan(a1, directedHop("a1", "IS_A", "t", "any"), DISEASE), "D:1")).containsExactly("D:3");
        assertThat(run(plan(a1, PlanValidateTest.hop("a1", "IS_A", "t"), DISEASE), "D:3")).containsExactly("D:1", "D:2");
    }

    @Test
    void compiledQueryCarriesTheArrowOnEveryPattern() {
        Record compiled = kb.run("CALL grasp.plan.compile($plan)",
                Map.of("plan", plan(anchor("a1", "Disease", "x"), directedHop("t", "IS_A", "a1", "out"), DISEASE))).get(0);
        String query = compiled.get("query").asString();
        assertThat(query).contains("MATCH (`a1`)<-[:`IS_A`]-(`t`:`Disease`)", "MATCH (`a1`:`Disease`)<-[_r0:`IS_A`]-(`t`:`Disease`)");
    }

    @Test
    void aDirectionTheSchemaNeverHasIsRejected() {
        String gene = anchor("a1", "Gene", "ARX");
        // stored (Gene)-[:ASSOCIATED_WITH]->(Disease)
        assertThat(errors(plan(gene, directedHop("a1", "ASSOCIATED_WITH", "t", "out"), DISEASE))).isEmpty();
        assertThat(errors(plan(gene, directedHop("t", "ASSOCIATED_WITH", "a1", "in"), DISEASE))).isEmpty();
        assertThat(errors(plan(gene, directedHop("a1", "ASSOCIATED_WITH", "t", "in"), DISEASE))).containsExactly(
                "hops[0]: (:Gene)<-[:ASSOCIATED_WITH]-(:Disease) (direction 'in') does not occur; ASSOCIATED_WITH "
                        + "connects [(:Gene)-(:Disease)] (stored source first)");
        assertThat(errors(plan(gene, directedHop("a1", "ASSOCIATED_WITH", "t", "down"), DISEASE))).containsExactly(
                "hops[0].direction must be one of [any, in, out]; got 'down'");
    }

    @Test
    void directionNarrowsTheTypeOfAnIntermediate() {
        // a phenotype's diseases' genes: d is typed Disease through HAS_PHENOTYPE stored Disease -> Phenotype
        String plan = plan(anchor("a1", "Phenotype", "x"),
                directedHop("d", "HAS_PHENOTYPE", "a1", "out") + "," + directedHop("t", "ASSOCIATED_WITH", "d", "out"),
                "{\"var\": \"t\", \"type\": \"Gene\"}");
        assertThat(errors(plan)).isEmpty();
        Map<String, Object> bindings = Map.of("a1", List.of(Map.of("id", "HP:2", "score", 1.0)));
        Record compiled = kb.run("CALL grasp.plan.compile($plan, $bindings)", Map.of("plan", plan, "bindings", bindings)).get(0);
        assertThat(kb.run(compiled.get("query").asString(), compiled.get("params").asMap()).stream()
                .map(r -> r.get("nodeId").asObject()).toList()).containsExactly(1002L);
    }
}
