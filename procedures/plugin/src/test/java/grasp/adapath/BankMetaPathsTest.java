package grasp.adapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * A tiny Path-Bank, stored as cypher/adapath.cypher's write_query stores one. Question vector e1; bank query
 * cosines to it (index score (1 + cos) / 2): q1 1.0 (1.0), q2 0.8 (0.9), q3 0.6 (0.8), q4 0.0 (0.5).
 * <pre>
 * A (:Disease)<-[:ASSOCIATED_WITH]-(:Gene)                               q3, q1, q2  support 3   vote 2.7
 * C (:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)                            q2          support 2   vote 0.9
 * B (:Disease)-[:HAS_PHENOTYPE]->(:Phenotype)<-[:ASSOCIATED_WITH]-(:Gene) q3         support 1   vote 0.8
 *   (q3's paths of B cost 2.5, of A 1.0: A is q3's first choice, so B's first-choice vote is 0; every other use
 *   costs 1.0, a tie, so each is its query's first choice)
 * D (:Gene)-[:ASSOCIATED_WITH]->(:Disease)                               q4          support 50  vote 0.5
 * F (:Gene)-[:EXPRESSED_IN]->(:Anatomy)                                  q4          (no support) vote 0.5
 * E (:Gene)-[:INTERACTS_WITH]->(:Gene)                                   q4          (no support) vote 0.5
 * </pre>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BankMetaPathsTest {

    private static final List<Double> QUERY = List.of(1.0, 0.0, 0.0, 0.0);
    private static final String A = "(:Disease)<-[:ASSOCIATED_WITH]-(:Gene)";
    private static final String B = "(:Disease)-[:HAS_PHENOTYPE]->(:Phenotype)<-[:ASSOCIATED_WITH]-(:Gene)";
    private static final String C = "(:Phenotype)<-[:HAS_PHENOTYPE]-(:Disease)";
    private static final String D = "(:Gene)-[:ASSOCIATED_WITH]->(:Disease)";
    private static final String E = "(:Gene)-[:INTERACTS_WITH]->(:Gene)";
    private static final String F = "(:Gene)-[:EXPRESSED_IN]->(:Anatomy)";

    private Neo4j neo4j;
    private Driver driver;

    @BeforeAll
    void start() {
        neo4j = Neo4jBuilders.newInProcessBuilder().withDisabledServer().withProcedure(BankProcedures.class).build();
        driver = GraphDatabase.driver(neo4j.boltURI(), AuthTokens.none());
        run("CREATE VECTOR INDEX adapath_query_embedding FOR (q:AdaPathQuery) ON q.embedding OPTIONS {indexConfig: "
                + "{`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}", Map.of());
        run("CALL db.awaitIndexes()", Map.of());
        // q3 is written first so that the examples' order (by similarity) differs from the order of writing.
        run("""
            CREATE (a:AdaPathMetaPath {signature: $a, hops: 1, start_label: 'Disease', answer_label: 'Gene',
                                       labels: ['Disease', 'Gene'], relations: ['ASSOCIATED_WITH'], outgoing: [false], support: 3}),
                   (b:AdaPathMetaPath {signature: $b, hops: 2, start_label: 'Disease', answer_label: 'Gene',
                                       labels: ['Disease', 'Phenotype', 'Gene'], relations: ['HAS_PHENOTYPE', 'ASSOCIATED_WITH'],
                                       outgoing: [true, false], support: 1}),
                   (c:AdaPathMetaPath {signature: $c, hops: 1, start_label: 'Phenotype', answer_label: 'Disease',
                                       labels: ['Phenotype', 'Disease'], relations: ['HAS_PHENOTYPE'], outgoing: [false], support: 2}),
                   (d:AdaPathMetaPath {signature: $d, hops: 1, start_label: 'Gene', answer_label: 'Disease',
                                       labels: ['Gene', 'Disease'], relations: ['ASSOCIATED_WITH'], outgoing: [true], support: 50}),
                   (e:AdaPathMetaPath {signature: $e, hops: 1, start_label: 'Gene', answer_label: 'Gene',
                                       labels: ['Gene', 'Gene'], relations: ['INTERACTS_WITH'], outgoing: [true]}),
                   (f:AdaPathMetaPath {signature: $f, hops: 1, start_label: 'Gene', answer_label: 'Anatomy',
                                       labels: ['Gene', 'Anatomy'], relations: ['EXPRESSED_IN'], outgoing: [true]}),
                   (q3:AdaPathQuery {id: 'q3', text: 'third', embedding: [0.6, 0.8, 0.0, 0.0]}),
                   (q1:AdaPathQuery {id: 'q1', text: 'first', embedding: [1.0, 0.0, 0.0, 0.0]}),
                   (q2:AdaPathQuery {id: 'q2', text: 'second', embedding: [0.8, 0.6, 0.0, 0.0]}),
                   (q4:AdaPathQuery {id: 'q4', text: 'far', embedding: [0.0, 0.0, 1.0, 0.0]}),
                   (q3)-[:ADAPATH_USES {cost: 1.0, paths: 1}]->(a), (q3)-[:ADAPATH_USES {cost: 2.5, paths: 1}]->(b),
                   (q1)-[:ADAPATH_USES {cost: 1.0, paths: 2}]->(a),
                   (q2)-[:ADAPATH_USES {cost: 1.0, paths: 1}]->(a), (q2)-[:ADAPATH_USES {cost: 1.0, paths: 1}]->(c),
                   (q4)-[:ADAPATH_USES {cost: 1.0, paths: 1}]->(d), (q4)-[:ADAPATH_USES {cost: 1.0, paths: 1}]->(e),
                   (q4)-[:ADAPATH_USES {cost: 1.0, paths: 1}]->(f)
            """, Map.of("a", A, "b", B, "c", C, "d", D, "e", E, "f", F));
        run("CALL db.awaitIndexes()", Map.of());
    }

    @AfterAll
    void stop() {
        driver.close();
        neo4j.close();
    }

    private List<Record> run(String cypher, Map<String, Object> parameters) {
        try (Session session = driver.session()) {
            return session.run(cypher, parameters).list();
        }
    }

    private List<Record> metaPaths(List<Double> vector, Map<String, Object> config) {
        return run("CALL adapath.bank.metaPaths($vector, $config)", Map.of("vector", vector, "config", config));
    }

    private static List<String> signatures(List<Record> rows) {
        return rows.stream().map(row -> row.get("signature").asString()).toList();
    }

    @Test
    void aMetaPathSharedBySeveralSimilarQueriesOutranksOnesUsedOnce() {
        List<Record> rows = metaPaths(QUERY, Map.of("limit", 10L));
        // D, F, E tie on q4's vote: support 50 first, then F before E by signature (unset support reads as 0)
        assertThat(signatures(rows)).containsExactly(A, C, B, D, F, E);
        Record best = rows.get(0);
        assertThat(best.get("vote").asDouble()).isCloseTo(2.7, Offset.offset(0.1));
        assertThat(best.get("voters").asLong()).isEqualTo(3);
        assertThat(best.get("support").asLong()).isEqualTo(3);
        assertThat(best.get("hops").asLong()).isEqualTo(1);
        assertThat(best.get("startLabel").asString()).isEqualTo("Disease");
        assertThat(best.get("answerLabel").asString()).isEqualTo("Gene");
        assertThat(best.get("labels").asList()).containsExactly("Disease", "Gene");
        assertThat(best.get("relations").asList()).containsExactly("ASSOCIATED_WITH");
        assertThat(best.get("outgoing").asList()).containsExactly(false);
        assertThat(rows.get(3).get("vote").asDouble()).isCloseTo(0.5, Offset.offset(0.05));
        assertThat(rows.get(5).get("support").asLong()).isZero();
        assertThat(rows.get(5).get("voters").asLong()).isEqualTo(1);
    }

    @Test
    void eachQueryGivesItsFirstChoiceVoteToItsCheapestMetaPath() {
        Map<String, Double> firstVotes = new java.util.HashMap<>();
        for (Record row : metaPaths(QUERY, Map.of("limit", 10L))) {
            firstVotes.put(row.get("signature").asString(), row.get("firstVote").asDouble());
        }
        assertThat(firstVotes.get(A)).isCloseTo(2.7, Offset.offset(0.1));
        assertThat(firstVotes.get(B)).isZero();
        assertThat(firstVotes.get(C)).isCloseTo(0.9, Offset.offset(0.05));  // q2's A and C cost the same: both first
        assertThat(firstVotes.get(D)).isCloseTo(0.5, Offset.offset(0.05));
        // filtered to Gene answers from a Disease, q3 still prefers A
        List<Record> filtered = metaPaths(QUERY, Map.of("startLabel", "Disease", "answerLabel", "Gene"));
        assertThat(signatures(filtered)).containsExactly(A, B);
        assertThat(filtered.get(1).get("firstVote").asDouble()).isZero();
    }

    @Test
    void examplesListTheMostSimilarVotersFirst() {
        assertThat(metaPaths(QUERY, Map.of()).get(0).get("examples").asList()).containsExactly("q1", "q2", "q3");
        // a question nearest q3 lists q3 first
        assertThat(metaPaths(List.of(0.28, 0.96, 0.0, 0.0), Map.of()).get(0).get("examples").asList())
                .containsExactly("q3", "q2", "q1");
    }

    @Test
    void limitAndQueriesBoundTheAnswer() {
        assertThat(signatures(metaPaths(QUERY, Map.of()))).containsExactly(A, C, B, D, F); // default limit 5
        assertThat(signatures(metaPaths(QUERY, Map.of("limit", 2L)))).containsExactly(A, C);
        List<Record> nearestOnly = metaPaths(QUERY, Map.of("queries", 1L));
        assertThat(signatures(nearestOnly)).containsExactly(A);
        assertThat(nearestOnly.get(0).get("voters").asLong()).isEqualTo(1);
        assertThat(nearestOnly.get(0).get("examples").asList()).containsExactly("q1");
    }

    @Test
    void excludedQueriesNeitherVoteNorTakeAPlaceAmongTheNearest() {
        // without q1 (A's and C's strongest voter), the next nearest query takes its place among the two voters
        assertThat(signatures(metaPaths(QUERY, Map.of("queries", 2L, "limit", 10L)))).containsExactly(A, C);
        // q2 and q3 vote now: q3 brings B (0.8), below C (q2's 0.9)
        assertThat(signatures(metaPaths(QUERY, Map.of("queries", 2L, "limit", 10L, "exclude", List.of("q1")))))
                .containsExactly(A, C, B);
        List<Record> rows = metaPaths(QUERY, Map.of("limit", 10L, "exclude", List.of("q1", "q2")));
        assertThat(rows).allSatisfy(row -> assertThat(row.get("examples").asList()).doesNotContain("q1", "q2"));
        assertThatThrownBy(() -> metaPaths(QUERY, Map.of("exclude", "q1"))).hasMessageContaining("config exclude");
    }

    @Test
    void filtersOnHopsStartLabelAndAnswerLabel() {
        assertThat(signatures(metaPaths(QUERY, Map.of("hops", 2L)))).containsExactly(B);
        assertThat(signatures(metaPaths(QUERY, Map.of("startLabel", "Gene")))).containsExactly(D, F, E);
        assertThat(signatures(metaPaths(QUERY, Map.of("answerLabel", "Disease")))).containsExactly(C, D);
        assertThat(signatures(metaPaths(QUERY, Map.of("hops", 1L, "answerLabel", "Gene", "startLabel", "Disease"))))
                .containsExactly(A);
        assertThat(metaPaths(QUERY, Map.of("startLabel", "Anatomy"))).isEmpty();
    }

    @Test
    void aMissingBankOrAWrongVectorIsACleanError() {
        assertThatThrownBy(() -> metaPaths(QUERY, Map.of("index", "no_such_index")))
                .hasMessageContaining("the Path-Bank has not been built").hasMessageContaining("grasp adapath build-bank")
                .hasMessageContaining("adapath_query_embedding"); // listed among the existing vector indexes
        assertThatThrownBy(() -> metaPaths(List.of(1.0, 0.0, 0.0), Map.of()))
                .hasMessageContaining("3 dimensions").hasMessageContaining("4-dimensional");
        assertThatThrownBy(() -> metaPaths(List.of(), Map.of())).hasMessageContaining("queryVector");
    }

    @Test
    void badConfigIsRefusedWithTheReason() {
        assertThatThrownBy(() -> metaPaths(QUERY, Map.of("k", 3L))).hasMessageContaining("unknown config key 'k'");
        assertThatThrownBy(() -> metaPaths(QUERY, Map.of("hops", 4L))).hasMessageContaining("config hops");
        assertThatThrownBy(() -> metaPaths(QUERY, Map.of("queries", 0L))).hasMessageContaining("config queries");
        assertThatThrownBy(() -> metaPaths(QUERY, Map.of("limit", 1001L))).hasMessageContaining("config limit");
        assertThatThrownBy(() -> metaPaths(QUERY, Map.of("startLabel", "Gene` OR true //")))
                .hasMessageContaining("config startLabel");
        assertThatThrownBy(() -> metaPaths(QUERY, Map.of("answerLabel", 3L))).hasMessageContaining("config answerLabel");
    }
}
