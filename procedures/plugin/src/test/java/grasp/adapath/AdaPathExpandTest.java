package grasp.adapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * AdaPathBfsTest's graph plus a gene with an integer id and no embedding, and a Path-Bank query whose id no
 * frontier may resolve to. Cosines to the query e1: HP:2 1.0, HP:1 0.707, OMIM:1 0.196, G1 0.0995, G2 0.994,
 * G3 0.0, 1001 none (0.0).
 * <pre>
 * (OMIM:1)-[:HAS_PHENOTYPE]->(HP:1), (HP:2);  (G1)-[:ASSOCIATED_WITH]->(OMIM:1), (HP:1);  (G2)->(HP:1);  (G3)->(HP:2);
 * (1001)-[:ASSOCIATED_WITH]->(OMIM:1)
 * </pre>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdaPathExpandTest {

    private static final List<Double> QUERY = List.of(1.0, 0.0, 0.0, 0.0);
    private static final Map<String, Object> GENES_IN = Map.of("relation", "ASSOCIATED_WITH", "outgoing", false, "label", "Gene");

    private Neo4j neo4j;
    private Driver driver;

    @BeforeAll
    void start() {
        neo4j = Neo4jBuilders.newInProcessBuilder().withDisabledServer().withProcedure(ExpandProcedures.class)
                .withFixture("""
                    CREATE (d:Disease {id:'OMIM:1', name:'Disease one', doc_embedding:[0.2, 1.0, 0.0, 0.0]}),
                           (p1:Phenotype {id:'HP:1', name:'Seizure', doc_embedding:[0.5, 0.5, 0.0, 0.0]}),
                           (p2:Phenotype {id:'HP:2', name:'Tempting', doc_embedding:[1.0, 0.0, 0.0, 0.0]}),
                           (g1:Gene {id:'G1', name:'Gene one', doc_embedding:[0.1, 1.0, 0.0, 0.0]}),
                           (g2:Gene {id:'G2', name:'Gene two', doc_embedding:[0.9, 0.1, 0.0, 0.0]}),
                           (g3:Gene {id:'G3', name:'Gene three', doc_embedding:[0.0, 0.0, 1.0, 0.0]}),
                           (g4:Gene {id:1001, name:'Gene int'}),
                           (d)-[:HAS_PHENOTYPE]->(p1), (d)-[:HAS_PHENOTYPE]->(p2),
                           (g1)-[:ASSOCIATED_WITH]->(d), (g2)-[:ASSOCIATED_WITH]->(p1), (g3)-[:ASSOCIATED_WITH]->(p2),
                           (g1)-[:ASSOCIATED_WITH]->(p1), (g4)-[:ASSOCIATED_WITH]->(d),
                           (:AdaPathQuery {id:'Q1', embedding:[1.0, 0.0, 0.0, 0.0]})-[:ADAPATH_USES]->(:AdaPathMetaPath {signature:'s'})
                    """)
                .build();
        driver = GraphDatabase.driver(neo4j.boltURI(), AuthTokens.none());
    }

    @AfterAll
    void stop() {
        driver.close();
        neo4j.close();
    }

    private List<Record> expand(List<List<Object>> paths, Map<String, Object> step, Map<String, Object> config) {
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("frontier", paths.stream().map(ids -> Map.of("nodeIds", ids)).toList());
        parameters.put("step", step); // null: an unguided step
        parameters.put("query", QUERY);
        parameters.put("config", config);
        try (Session session = driver.session()) {
            return session.run("CALL adapath.expand($frontier, $step, $query, $config)", parameters).list();
        }
    }

    private static Object nodeId(Record row) {
        return row.get("nodeId").asObject();
    }

    @Test
    void aGuidedStepFollowsRelationDirectionAndLabelAndIgnoresATemptingOffStepNeighbour() {
        List<Record> rows = expand(List.of(List.of("OMIM:1")), GENES_IN, Map.of());
        // HP:2 is the best neighbour of all but reached over HAS_PHENOTYPE; 1001 has no embedding: score 0
        assertThat(rows).extracting(AdaPathExpandTest::nodeId).containsExactly("G1", 1001L);
        Record g1 = rows.get(0);
        assertThat(g1.get("path").asLong()).isZero();
        assertThat(g1.get("fromId").asString()).isEqualTo("OMIM:1");
        assertThat(g1.get("name").asString()).isEqualTo("Gene one");
        assertThat(g1.get("label").asString()).isEqualTo("Gene");
        assertThat(g1.get("relation").asString()).isEqualTo("ASSOCIATED_WITH");
        assertThat(g1.get("outgoing").asBoolean()).isFalse();
        assertThat(g1.get("score").asDouble()).isCloseTo(0.0995, Offset.offset(0.001));
        assertThat(g1.get("truncated").asBoolean()).isFalse();
        assertThat(rows.get(1).get("score").asDouble()).isZero();
        // the stored direction is part of the step, and so is the label
        assertThat(expand(List.of(List.of("OMIM:1")), Map.of("relation", "ASSOCIATED_WITH", "outgoing", true,
                "label", "Gene"), Map.of())).isEmpty();
        assertThat(expand(List.of(List.of("OMIM:1")), Map.of("relation", "HAS_PHENOTYPE", "outgoing", true,
                "label", "Gene"), Map.of())).isEmpty();
        assertThat(expand(List.of(List.of("OMIM:1")), Map.of("relation", "HAS_PHENOTYPE", "outgoing", true,
                "label", "Phenotype"), Map.of())).extracting(AdaPathExpandTest::nodeId).containsExactly("HP:2", "HP:1");
    }

    @Test
    void nodesAlreadyOnThePathAreSkipped() {
        assertThat(expand(List.of(List.of("OMIM:1", "HP:1")), GENES_IN, Map.of()))
                .extracting(AdaPathExpandTest::nodeId).containsExactly("G2", "G1");
        assertThat(expand(List.of(List.of("G1", "OMIM:1", "HP:1")), GENES_IN, Map.of()))
                .extracting(AdaPathExpandTest::nodeId).containsExactly("G2");
        // unguided back from OMIM:1 along a path that came from HP:1: HP:1 is not offered again
        assertThat(expand(List.of(List.of("HP:1", "OMIM:1")), null, Map.of()))
                .extracting(AdaPathExpandTest::nodeId).containsExactly("HP:2", "G1", 1001L);
    }

    @Test
    void anUnguidedStepWalksAnyRelationBothWays() {
        List<Record> rows = expand(List.of(List.of("OMIM:1")), null, Map.of());
        assertThat(rows).extracting(AdaPathExpandTest::nodeId).containsExactly("HP:2", "HP:1", "G1", 1001L);
        assertThat(rows).extracting(row -> row.get("outgoing").asBoolean()).containsExactly(true, true, false, false);
        assertThat(rows).extracting(row -> row.get("relation").asString())
                .containsExactly("HAS_PHENOTYPE", "HAS_PHENOTYPE", "ASSOCIATED_WITH", "ASSOCIATED_WITH");
        // integer ids resolve as the loader stores them
        assertThat(expand(List.of(List.of(1001L)), null, Map.of())).extracting(AdaPathExpandTest::nodeId)
                .containsExactly("OMIM:1");
    }

    @Test
    void candidatesAreRankedOverTheWholeFrontierWithOptionalCaps() {
        List<List<Object>> frontier = List.of(List.of("OMIM:1"), List.of("HP:2"));
        List<Record> rows = expand(frontier, null, Map.of());
        // path 0: HP:2 1.0, HP:1 0.707, G1 0.0995, 1001 0;  path 1: OMIM:1 0.196, G3 0
        assertThat(rows).extracting(row -> row.get("path").asLong() + ":" + nodeId(row))
                .containsExactly("0:HP:2", "0:HP:1", "1:OMIM:1", "0:G1", "0:1001", "1:G3");
        assertThat(rows.get(2).get("fromId").asString()).isEqualTo("HP:2");
        assertThat(expand(frontier, null, Map.of("limit", 2L))).extracting(row -> row.get("path").asLong())
                .containsExactly(0L, 0L);
        assertThat(expand(frontier, null, Map.of("perPath", 1L))).extracting(row -> row.get("path").asLong() + ":" + nodeId(row))
                .containsExactly("0:HP:2", "1:OMIM:1");
        assertThat(expand(frontier, null, Map.of("perPath", 2L, "limit", 3L)))
                .extracting(row -> row.get("path").asLong() + ":" + nodeId(row)).containsExactly("0:HP:2", "0:HP:1", "1:OMIM:1");
    }

    @Test
    void unknownIdsAndBankNodesYieldNothingForTheirPath() {
        List<Record> rows = expand(List.of(List.of("NOPE"), List.of("Q1"), List.of("G3")), null, Map.of());
        assertThat(rows).extracting(row -> row.get("path").asLong() + ":" + nodeId(row)).containsExactly("2:HP:2");
        assertThat(expand(List.of(), null, Map.of())).isEmpty();
    }

    @Test
    void budgetsStopTheStepAndSaySo() {
        List<List<Object>> frontier = List.of(List.of("OMIM:1"), List.of("HP:2"));
        List<Record> visits = expand(frontier, null, Map.of("maxVisits", 2L));
        // two of OMIM:1's four relationships are read, then the call stops: HP:2's path is never expanded
        assertThat(visits).hasSize(2).allSatisfy(row -> {
            assertThat(row.get("path").asLong()).isZero();
            assertThat(row.get("truncated").asBoolean()).isTrue();
        });
        // maxExpansion samples each node (a hub cap, as in adapath.bfs), not a stop
        List<Record> sampled = expand(frontier, null, Map.of("maxExpansion", 1L));
        assertThat(sampled).extracting(row -> row.get("path").asLong()).containsExactlyInAnyOrder(0L, 1L);
        assertThat(sampled).allSatisfy(row -> assertThat(row.get("truncated").asBoolean()).isFalse());
    }

    @Test
    void badInputIsRefusedWithTheReason() {
        List<List<Object>> frontier = List.of(List.of("OMIM:1"));
        assertThatThrownBy(() -> expand(frontier, null, Map.of("beam", 3L))).hasMessageContaining("unknown config key 'beam'");
        assertThatThrownBy(() -> expand(frontier, null, Map.of("perPath", -1L))).hasMessageContaining("config perPath");
        assertThatThrownBy(() -> expand(frontier, null, Map.of("limit", 0L))).hasMessageContaining("config limit");
        assertThatThrownBy(() -> expand(frontier, null, Map.of("timeoutMs", Long.MAX_VALUE)))
                .hasMessageContaining("config timeoutMs must be an integer in [1, 3600000]; got " + Long.MAX_VALUE);
        assertThatThrownBy(() -> expand(frontier, Map.of("relation", "ASSOCIATED_WITH", "outgoing", false), Map.of()))
                .hasMessageContaining("step lacks [label]");
        assertThatThrownBy(() -> expand(frontier, Map.of("relation", "R", "direction", "in", "label", "Gene"), Map.of()))
                .hasMessageContaining("unknown step key 'direction'");
        assertThatThrownBy(() -> expand(frontier, Map.of("relation", "R", "outgoing", "yes", "label", "Gene"), Map.of()))
                .hasMessageContaining("step.outgoing must be a boolean");
        assertThatThrownBy(() -> expand(frontier, Map.of("relation", "R` DELETE n", "outgoing", true, "label", "Gene"),
                Map.of())).hasMessageContaining("step.relation");
        assertThatThrownBy(() -> expand(frontier, Map.of("relation", "R", "outgoing", true, "label", ""), Map.of()))
                .hasMessageContaining("step.label");
        try (Session session = driver.session()) {
            assertThatThrownBy(() -> session.run("CALL adapath.expand([{ids: ['OMIM:1']}], null, [1.0, 0.0, 0.0, 0.0])")
                    .list()).hasMessageContaining("frontier[0].nodeIds");
            assertThatThrownBy(() -> session.run("CALL adapath.expand([{nodeIds: []}], null, [1.0, 0.0, 0.0, 0.0])")
                    .list()).hasMessageContaining("frontier[0].nodeIds");
            assertThatThrownBy(() -> session.run("CALL adapath.expand([{nodeIds: ['OMIM:1']}], null, [])").list())
                    .hasMessageContaining("queryVector");
        }
    }
}
