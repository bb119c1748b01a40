package grasp.plan;

import static grasp.plan.PlanValidateTest.anchor;
import static grasp.plan.PlanValidateTest.hop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grasp.testkb.SmallKbTest;
import grasp.testkb.TestKb;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Record;

/** Plans that rank their targets by a quantity the targets hold ("the most common disease with a seizure"). */
class PlanOrderTest extends SmallKbTest {

    static final String DISEASE = "{\"var\": \"t\", \"type\": \"Disease\"}";
    static final Map<String, Object> SEIZURE = Map.of("a1", List.of(0.6, 0.8, 0.0, 0.0));

    /** Seizure (HP:3) is a phenotype of all three diseases; D:3 has no count, D:2's is a number, D:1's text. */
    @BeforeEach
    void giveDiseasesCounts() {
        kb.run("MATCH (d:Disease {id: 'D:1'}) SET d.cases = '1,200'");
        kb.run("MATCH (d:Disease {id: 'D:2'}) SET d.cases = 35");
        kb.run("MATCH (d:Disease {id: 'D:3'}) SET d.cases = 'unknown'");
    }

    static String ordered(String anchor, String order) {
        return "{\"anchors\": [" + anchor("a1", "Phenotype", anchor) + "], \"hops\": [" + hop("a1", "HAS_PHENOTYPE", "t")
                + "], \"target\": " + DISEASE + ", \"order\": " + order + "}";
    }

    private List<Record> execute(String plan, Map<String, Object> vectors) {
        Map<String, Object> params = new HashMap<>();
        params.put("plan", plan);
        params.put("vectors", vectors);
        return kb.run("CALL grasp.plan.execute($plan, $vectors, null, 100, {})", params);
    }

    private static List<Object> ids(List<Record> rows) {
        return rows.stream().map(r -> r.get("nodeId").asObject()).toList();
    }

    @Test
    void targetsRankByTheirQuantityLargestFirstThoseWithoutItLast() {
        List<Record> rows = execute(ordered("seizure", "{\"property\": \"cases\"}"), SEIZURE);
        assertThat(ids(rows)).containsExactly("D:1", "D:2", "D:3");
        assertThat(rows.stream().map(r -> r.get("denseScore").asDouble()).toList()).containsExactly(1.0, 0.5, 0.0);
    }

    @Test
    void ascendingPutsTheSmallestFirst() {
        List<Record> rows = execute(ordered("seizure", "{\"property\": \"cases\", \"descending\": false}"), SEIZURE);
        assertThat(ids(rows)).containsExactly("D:2", "D:1", "D:3");
    }

    @Test
    void aBetterLinkedAnchorStillDecidesBeforeTheQuantity() {
        // "epileptic spasm" links HP:1 (1.0, a phenotype of D:1) and HP:2 (0.96, of D:2): D:2 holds more cases
        kb.run("MATCH (d:Disease {id: 'D:2'}) SET d.cases = 5000");
        List<Record> rows = execute(ordered("epileptic spasm", "{\"property\": \"cases\"}"), Map.of("a1", TestKb.E1));
        assertThat(ids(rows)).containsExactly("D:1", "D:2");
    }

    @Test
    void aPlanWithOnlyATargetAndAnOrderRanksEveryNodeOfTheType() {
        String plan = "{\"target\": " + DISEASE + ", \"relevance_text\": \"x\", \"order\": {\"property\": \"cases\", "
                + "\"descending\": false}}";
        assertThat(ids(execute(plan, Map.of()))).containsExactly("D:2", "D:1", "D:3");
        // name words put their holders first there too, the order kept within each group
        String named = plan.substring(0, plan.length() - 1) + ", \"name_contains\": [\"angelman\"]}";
        assertThat(ids(execute(named, Map.of()))).containsExactly("D:3", "D:2", "D:1");
    }

    @Test
    void badOrdersAreRefusedWithTheirPlace() {
        String plan = ordered("seizure", "{\"property\": \"cases`) DETACH DELETE t //\"}");
        assertThatThrownBy(() -> execute(plan, SEIZURE)).hasMessageContaining("order property 'cases`) DETACH DELETE t //'");
        assertThat(kb.nodeCount()).isEqualTo(10);
        assertThatThrownBy(() -> execute(ordered("seizure", "{\"property\": \"name\"}"), SEIZURE))
                .hasMessageContaining("order property 'name' is not allowed");
        assertThatThrownBy(() -> execute(ordered("seizure", "{\"property\": \"cases\", \"descending\": \"yes\"}"), SEIZURE))
                .hasMessageContaining("order.descending must be true or false");
        assertThatThrownBy(() -> execute(ordered("seizure", "{\"property\": \"cases\", \"by\": 1}"), SEIZURE))
                .hasMessageContaining("unknown field 'by' in order");
        assertThatThrownBy(() -> execute(ordered("seizure", "{}"), SEIZURE))
                .hasMessageContaining("order.property is missing");
    }
}
