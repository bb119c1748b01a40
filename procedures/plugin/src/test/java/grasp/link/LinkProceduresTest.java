package grasp.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import grasp.testkb.SmallKbTest;
import grasp.testkb.TestKb;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Record;

class LinkProceduresTest extends SmallKbTest {

    private List<Record> link(String cypher, Map<String, Object> params) {
        return kb.run(cypher, params);
    }

    @Test
    void vectorInputReturnsNearestFirstWithCosineAndDefaultTau() {
        List<Record> rows = link("CALL grasp.link($v, 'Phenotype')", Map.of("v", TestKb.E1));
        // name mode defaults: k = 5, tau = 0.95 -> cosine >= 0.95: HP:1 (1.0), HP:2 (0.96); HP:3 (0.6) is cut
        assertThat(rows).extracting(r -> r.get("nodeId").asString()).containsExactly("HP:1", "HP:2");
        assertThat(rows.get(0).get("score").asDouble()).isCloseTo(1.0, within(1e-6));
        assertThat(rows.get(1).get("score").asDouble()).isCloseTo(0.96, within(1e-6)); // not (1 + 0.96) / 2
        assertThat(rows.get(0).get("name").asString()).isEqualTo("Epileptic spasm");
        assertThat(rows.get(0).get("degree").asLong()).isEqualTo(1L);
    }

    @Test
    void kAndTauAreApplied() {
        List<Record> all = link("CALL grasp.link($v, 'Phenotype', 'doc', 10, 0.0)", Map.of("v", TestKb.E1));
        assertThat(all).extracting(r -> r.get("nodeId").asString()).containsExactly("HP:1", "HP:2", "HP:3", "HP:4");
        assertThat(all.get(2).get("score").asDouble()).isCloseTo(0.6, within(1e-6));
        List<Record> two = link("CALL grasp.link($v, 'Phenotype', 'doc', 2, 0.0)", Map.of("v", TestKb.E1));
        assertThat(two).hasSize(2);
        List<Record> strict = link("CALL grasp.link($v, 'Phenotype', 'name', 5, 0.5)", Map.of("v", TestKb.E1));
        assertThat(strict).extracting(r -> r.get("nodeId").asString()).containsExactly("HP:1", "HP:2", "HP:3");
    }

    @Test
    void aCallerMaySearchFewerIndexCandidatesButNeverFewerThanK() {
        List<Record> fewer = link("CALL grasp.link($v, 'Phenotype', 'doc', 2, 0.0, 1)", Map.of("v", TestKb.E1));
        assertThat(fewer).extracting(r -> r.get("nodeId").asString()).containsExactly("HP:1", "HP:2");
        List<Record> more = link("CALL grasp.link($v, 'Phenotype', 'doc', 10, 0.0, 500)", Map.of("v", TestKb.E1));
        assertThat(more).hasSize(4);
        Map<String, Object> v = Map.of("v", TestKb.E1);
        assertThatThrownBy(() -> link("CALL grasp.link($v, 'Phenotype', 'doc', 2, 0.0, 0)", v))
                .hasMessageContaining("candidates must be between 1 and 10000");
        assertThatThrownBy(() -> link("CALL grasp.link($v, 'Phenotype', 'doc', 2, 0.0, 10001)", v))
                .hasMessageContaining("candidates must be between 1 and 10000");
    }

    @Test
    void integerIdsAreReturnedAsIntegers() {
        Record row = link("CALL grasp.link($v, 'Gene')", Map.of("v", TestKb.E1)).get(0);
        assertThat(row.get("nodeId").asLong()).isEqualTo(1001L);
    }

    @Test
    void stringInputIsAnExactCaseInsensitiveNameMatch() {
        List<Record> rows = link("CALL grasp.link('dravet SYNDROME', 'Disease')", Map.of());
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).get("nodeId").asString()).isEqualTo("D:2");
        assertThat(rows.get(0).get("score").asDouble()).isEqualTo(1.0);
        assertThat(link("CALL grasp.link('dravet', 'Disease')", Map.of())).isEmpty();
    }

    @Test
    void hostileTextIsData() {
        assertThat(link("CALL grasp.link($t, 'Disease')", Map.of("t", "'}) DETACH DELETE n //"))).isEmpty();
        assertThatThrownBy(() -> link("CALL grasp.link('x', $l)", Map.of("l", "Disease) DETACH DELETE n //")))
                .hasMessageContaining("label 'Disease) DETACH DELETE n //' is not allowed; names must be strings matching "
                        + "^[A-Za-z_][A-Za-z0-9_]{0,63}$");
        assertThat(kb.nodeCount()).isEqualTo(10L);
    }

    @Test
    void badArgumentsAreRejectedWithWhatIsAllowed() {
        Map<String, Object> v = Map.of("v", TestKb.E1);
        assertThatThrownBy(() -> link("CALL grasp.link($v, 'Drug')", v)).hasMessageContaining("label 'Drug' does not occur");
        assertThatThrownBy(() -> link("CALL grasp.link($v, 'Phenotype', 'name', 1001)", v))
                .hasMessageContaining("k must be between 1 and 1000");
        assertThatThrownBy(() -> link("CALL grasp.link($v, 'Phenotype', 'name', 5, 1.5)", v))
                .hasMessageContaining("tau must be in [0, 1]");
        assertThatThrownBy(() -> link("CALL grasp.link($v, 'Phenotype', 'fuzzy')", v))
                .hasMessageContaining("mode 'fuzzy' is not allowed; allowed: [name, doc]");
        assertThatThrownBy(() -> link("CALL grasp.link([1.0, 0.0, 0.0], 'Phenotype')", Map.of()))
                .hasMessageContaining("vector has 3 dimensions but index 'grasp_phenotype_name' holds 4-dimensional");
        assertThatThrownBy(() -> link("CALL grasp.link(42, 'Phenotype')", Map.of()))
                .hasMessageContaining("input must be a LIST<FLOAT> (an embedding) or a STRING");
    }

    @Test
    void missingIndexIsNamed() {
        kb.run("CREATE (:Drug {id: 'X', name: 'aspirin'})");
        assertThatThrownBy(() -> link("CALL grasp.link($v, 'Drug')", Map.of("v", TestKb.E1)))
                .hasMessageContaining("vector index 'grasp_drug_name' does not exist; existing vector indexes: [grasp_disease_doc");
    }
}
