package grasp.adapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
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

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdaPathBfsTest {

    private static final List<Double> QUERY = List.of(1.0, 0.0, 0.0, 0.0);
    private static final Map<String, Object> GENES_OF_DISEASE = Map.of(
            "labels", List.of("Disease", "Gene"), "relations", List.of("ASSOCIATED_WITH"), "outgoing", List.of(false));
    private static final Map<String, Object> GENES_OF_PHENOTYPES = Map.of(
            "labels", List.of("Disease", "Phenotype", "Gene"), "relations", List.of("HAS_PHENOTYPE", "ASSOCIATED_WITH"),
            "outgoing", List.of(true, false));

    private Neo4j neo4j;
    private Driver driver;

    @BeforeAll
    void start() {
        neo4j = Neo4jBuilders.newInProcessBuilder().withDisabledServer().withProcedure(AdaPathProcedures.class)
                .withFixture("""
                    CREATE (d:Disease {id:'OMIM:1', name:'Disease one', doc_embedding:[0.2, 1.0, 0.0, 0.0]}),
                           (p1:Phenotype {id:'HP:1', name:'Seizure', doc_embedding:[0.5, 0.5, 0.0, 0.0]}),
                           (p2:Phenotype {id:'HP:2', name:'Tempting', doc_embedding:[1.0, 0.0, 0.0, 0.0]}),
                           (g1:Gene {id:'G1', name:'Gene one', doc_embedding:[0.1, 1.0, 0.0, 0.0]}),
                           (g2:Gene {id:'G2', name:'Gene two', doc_embedding:[0.9, 0.1, 0.0, 0.0]}),
                           (g3:Gene {id:'G3', name:'Gene three', doc_embedding:[0.0, 0.0, 1.0, 0.0]}),
                           (d)-[:HAS_PHENOTYPE]->(p1), (d)-[:HAS_PHENOTYPE]->(p2),
                           (g1)-[:ASSOCIATED_WITH]->(d), (g2)-[:ASSOCIATED_WITH]->(p1), (g3)-[:ASSOCIATED_WITH]->(p2),
                           (g1)-[:ASSOCIATED_WITH]->(p1)
                    """)
                .build();
        driver = GraphDatabase.driver(neo4j.boltURI(), AuthTokens.none());
    }

    @AfterAll
    void stop() {
        driver.close();
        neo4j.close();
    }

    private List<Record> bfs(List<?> metaPaths, Map<String, Object> config) {
        try (Session session = driver.session()) {
            return session.run("CALL adapath.bfs(['OMIM:1'], $metaPaths, $query, $config)",
                    Map.of("metaPaths", metaPaths, "query", QUERY, "config", config)).list();
        }
    }

    private static List<Object> ids(Record row) {
        return row.get("nodeIds").asList();
    }

    @Test
    void aGuidedStepFollowsTheMetaPathAndIgnoresATemptingOffPathNeighbour() {
        List<Record> rows = bfs(List.of(GENES_OF_DISEASE), Map.of());
        assertThat(rows).hasSize(1); // HP:2 scores best of all neighbours but is a Phenotype over HAS_PHENOTYPE
        assertThat(ids(rows.get(0))).containsExactly("OMIM:1", "G1");
        assertThat(rows.get(0).get("relations").asList()).containsExactly("ASSOCIATED_WITH");
        assertThat(rows.get(0).get("outgoing").asList()).containsExactly(false);
        assertThat(rows.get(0).get("metaPath").asString()).isEqualTo("(:Disease)<-[:ASSOCIATED_WITH]-(:Gene)");
        assertThat(rows.get(0).get("truncated").asBoolean()).isFalse();
    }

    @Test
    void directionIsPartOfTheMetaPath() {
        Map<String, Object> wrongWay = Map.of("labels", List.of("Disease", "Gene"), "relations", List.of("ASSOCIATED_WITH"),
                "outgoing", List.of(true));
        assertThat(bfs(List.of(wrongWay), Map.of())).isEmpty();
    }

    @Test
    void twoHopsRankByMeanCosineAndTheBeamKeepsTheBest() {
        List<Record> rows = bfs(List.of(GENES_OF_PHENOTYPES), Map.of());
        // cosines to (1,0,0,0): HP:1 0.707 and G2 0.994 -> 0.85; HP:2 1.0 and G3 0.0 -> 0.5; G1 0.0995 -> 0.403
        assertThat(rows).extracting(AdaPathBfsTest::ids).containsExactly(
                List.of("OMIM:1", "HP:1", "G2"), List.of("OMIM:1", "HP:2", "G3"), List.of("OMIM:1", "HP:1", "G1"));
        assertThat(rows.get(0).get("score").asDouble()).isCloseTo(0.85, org.assertj.core.data.Offset.offset(0.01));
        List<Record> narrow = bfs(List.of(GENES_OF_PHENOTYPES), Map.of("beamWidth", 1L));
        // beam 1 keeps only HP:2 after the first hop (cosine 1.0), so the globally best path is pruned
        assertThat(narrow).extracting(AdaPathBfsTest::ids).containsExactly(List.of("OMIM:1", "HP:2", "G3"));
    }

    @Test
    void unguidedSearchWalksAnyRelationBothWaysUpToMaxDepth() {
        List<Record> rows = bfs(List.of(), Map.of("maxDepth", 1L));
        assertThat(rows).extracting(AdaPathBfsTest::ids).containsExactlyInAnyOrder(
                List.of("OMIM:1", "HP:1"), List.of("OMIM:1", "HP:2"), List.of("OMIM:1", "G1"));
        assertThat(ids(rows.get(0))).containsExactly("OMIM:1", "HP:2");
        assertThat(rows).allSatisfy(row -> assertThat(row.get("metaPath").asString()).isEqualTo("unguided"));
        assertThat(bfs(List.of(), Map.of("maxDepth", 2L))).anySatisfy(row -> assertThat(ids(row)).hasSize(3));
    }

    @Test
    void budgetsStopTheSearchAndSaySo() {
        List<Record> rows = bfs(List.of(), Map.of("maxVisits", 1L));
        assertThat(rows).allSatisfy(row -> assertThat(row.get("truncated").asBoolean()).isTrue());
        assertThat(bfs(List.of(GENES_OF_PHENOTYPES), Map.of("maxVisits", 2L))).isEmpty(); // stopped before the last hop
    }

    @Test
    void labelsAndRelationTypesMustBePlainNames() {
        Map<String, Object> hostileLabel = Map.of("labels", List.of("Disease", "Gene` DETACH DELETE n //"),
                "relations", List.of("ASSOCIATED_WITH"), "outgoing", List.of(false));
        assertThatThrownBy(() -> bfs(List.of(GENES_OF_DISEASE, hostileLabel), Map.of()))
                .hasMessageContaining("metaPaths[1].labels[1]").hasMessageContaining("^[A-Za-z_][A-Za-z0-9_]{0,63}$");
        Map<String, Object> spacedType = Map.of("labels", List.of("Disease", "Gene"), "relations", List.of("ASSOCIATED WITH"),
                "outgoing", List.of(false));
        assertThatThrownBy(() -> bfs(List.of(spacedType), Map.of())).hasMessageContaining("metaPaths[0].relations[0]");
        Map<String, Object> tooLong = Map.of("labels", List.of("D".repeat(65), "Gene"), "relations", List.of("R"),
                "outgoing", List.of(false));
        assertThatThrownBy(() -> bfs(List.of(tooLong), Map.of())).hasMessageContaining("metaPaths[0].labels[0]");
        Map<String, Object> underscored = Map.of("labels", List.of("_Disease", "Gene"), "relations", List.of("_R"),
                "outgoing", List.of(false));
        assertThat(bfs(List.of(underscored), Map.of())).isEmpty(); // a plain name, just not in this graph
    }

    @Test
    void badInputIsRefusedWithTheReason() {
        assertThatThrownBy(() -> bfs(List.of(), Map.of("beam", 3L))).hasMessageContaining("unknown config key 'beam'");
        assertThatThrownBy(() -> bfs(List.of(Map.of("labels", List.of("Disease"), "relations", List.of("R"),
                "outgoing", List.of(true))), Map.of())).hasMessageContaining("one label more");
        assertThatThrownBy(() -> bfs(List.of(), Map.of("maxDepth", 4L))).hasMessageContaining("maxDepth");
        assertThatThrownBy(() -> bfs(List.of(), Map.of("embeddingProperty", "x` DELETE n"))).hasMessageContaining("embeddingProperty");
        assertThatThrownBy(() -> bfs(List.of(), Map.of("timeoutMs", Long.MAX_VALUE)))
                .hasMessageContaining("config timeoutMs must be an integer in [1, 3600000]; got " + Long.MAX_VALUE);
        assertThatThrownBy(() -> bfs(List.of(), Map.of("timeoutMs", 0L))).hasMessageContaining("config timeoutMs");
        assertThatThrownBy(() -> bfs(List.of(), Map.of("maxVisits", Long.MAX_VALUE)))
                .hasMessageContaining("config maxVisits must be an integer in [1, 1000000000]");
        try (Session session = driver.session()) {
            assertThatThrownBy(() -> session.run("CALL adapath.bfs([], [], [1.0], {})").list())
                    .hasMessageContaining("topicIds");
            assertThatThrownBy(() -> session.run("CALL adapath.bfs(['OMIM:1', {id: 'OMIM:1'}], [], [1.0], {})").list())
                    .hasMessageContaining("topicIds[1] must be an SKB id (a string or a number); got {id=OMIM:1}");
        }
    }
}
