package grasp.schema;

import static org.assertj.core.api.Assertions.assertThat;

import grasp.meta.VersionFunction;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
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
class SchemaProceduresTest {

    private Neo4j neo4j;
    private Driver driver;

    @BeforeAll
    void startServer() {
        neo4j = Neo4jBuilders.newInProcessBuilder()
                .withDisabledServer()
                .withProcedure(SchemaProcedures.class)
                .withProcedure(grasp.link.LinkProcedures.class)
                .withProcedure(grasp.plan.PlanProcedures.class)
                .withFunction(VersionFunction.class)
                .build();
        driver = GraphDatabase.driver(neo4j.boltURI(), AuthTokens.none());
    }

    @AfterAll
    void stopServer() {
        driver.close();
        neo4j.close();
    }

    @AfterEach
    void wipe() {
        run("MATCH (n) DETACH DELETE n");
    }

    private List<Record> run(String cypher) {
        return run(cypher, Map.of());
    }

    private List<Record> run(String cypher, Map<String, Object> params) {
        try (Session session = driver.session()) {
            return session.run(cypher, params).list();
        }
    }

    private void createSmallKb() {
        run("""
            CREATE (d1:Disease {id:'OMIM:1'}), (d2:Disease {id:'OMIM:2'}),
                   (p1:Phenotype {id:'HP:1'}), (p2:Phenotype {id:'HP:2'}), (p3:Phenotype {id:'HP:3'}),
                   (g:Gene {id:'NCBIGene:1'}),
                   (d1)-[:HAS_PHENOTYPE]->(p1), (d1)-[:HAS_PHENOTYPE]->(p2), (d2)-[:HAS_PHENOTYPE]->(p2),
                   (p2)-[:IS_A]->(p1), (p3)-[:IS_A]->(p1),
                   (g)-[:ASSOCIATED_WITH]->(d1), (g)-[:ASSOCIATED_WITH]->(p3)
            """);
    }

    @Test
    void versionFunctionReportsTheBuildVersion() {
        String version = run("RETURN grasp.version() AS v").get(0).get("v").asString();
        assertThat(version).matches("\\d+\\.\\d+\\.\\d+.*");
    }

    @Test
    void schemaListsLabelsTypesAndOccurringPairsWithCounts() {
        createSmallKb();
        Record row = run("CALL grasp.schema()").get(0);

        assertThat(row.get("labels").asList(v -> v.asMap()))
                .contains(Map.of("label", "Disease", "count", 2L), Map.of("label", "Phenotype", "count", 3L),
                        Map.of("label", "Gene", "count", 1L));
        assertThat(row.get("relationshipTypes").asList(v -> v.asMap()))
                .containsExactlyInAnyOrder(Map.of("type", "HAS_PHENOTYPE", "count", 3L), Map.of("type", "IS_A", "count", 2L),
                        Map.of("type", "ASSOCIATED_WITH", "count", 2L));
        assertThat(row.get("patterns").asList(v -> v.asMap()))
                .containsExactlyInAnyOrder(
                        Map.of("source", "Disease", "type", "HAS_PHENOTYPE", "target", "Phenotype", "count", 3L),
                        Map.of("source", "Phenotype", "type", "IS_A", "target", "Phenotype", "count", 2L),
                        // ambiguous targets: answered by scanning this type's relationships
                        Map.of("source", "Gene", "type", "ASSOCIATED_WITH", "target", "Disease", "count", 1L),
                        Map.of("source", "Gene", "type", "ASSOCIATED_WITH", "target", "Phenotype", "count", 1L));
    }

    @Test
    void bookkeepingNodesAndRelationshipsStayOutOfTheSchema() {
        createSmallKb();
        run("""
            CREATE (:GraspMeta {key:'state:kb'}),
                   (q:AdaPathQuery {id:'q1'})-[:ADAPATH_USES]->(:AdaPathMetaPath {signature:'(:Disease)'}),
                   (:AdaPathBank {skb:'kb'})
            """);
        Record row = run("CALL grasp.schema()").get(0);
        assertThat(row.get("labels").asList(v -> v.asMap().get("label")))
                .containsExactlyInAnyOrder("Disease", "Phenotype", "Gene");
        assertThat(row.get("relationshipTypes").asList(v -> v.asMap().get("type")))
                .containsExactlyInAnyOrder("HAS_PHENOTYPE", "IS_A", "ASSOCIATED_WITH");
        assertThat(run("CALL grasp.schema.validatePath(['AdaPathQuery', 'AdaPathMetaPath'], ['ADAPATH_USES'])")
                .get(0).get("valid").asBoolean()).isFalse();
    }

    @Test
    void schemaReflectsWritesMadeAfterItWasCached() {
        createSmallKb();
        run("CALL grasp.schema()");
        run("MATCH (g:Gene), (p:Phenotype {id:'HP:1'}) CREATE (g)-[:ASSOCIATED_WITH]->(p)");
        List<Map<String, Object>> patterns = run("CALL grasp.schema()").get(0).get("patterns").asList(v -> v.asMap());
        assertThat(patterns).contains(Map.of("source", "Gene", "type", "ASSOCIATED_WITH", "target", "Phenotype", "count", 2L));
    }

    @Test
    void emptyGraphHasAnEmptySchema() {
        Record row = run("CALL grasp.schema()").get(0);
        assertThat(row.get("labels").asList()).isEmpty();
        assertThat(row.get("patterns").asList()).isEmpty();
    }

    @Test
    void validPathInEitherDirectionIsAccepted() {
        createSmallKb();
        Record row = run("CALL grasp.schema.validatePath($labels, $types)",
                        Map.of("labels", List.of("Phenotype", "Disease", "Gene"), "types", List.of("HAS_PHENOTYPE", "ASSOCIATED_WITH")))
                .get(0);
        assertThat(row.get("errors").asList()).isEmpty();
        assertThat(row.get("valid").asBoolean()).isTrue();
        assertThat(row.get("hopCounts").asList(v -> v.asLong())).containsExactly(3L, 1L);
    }

    @Test
    void hopThatDoesNotConnectTheLabelsIsRejectedWithTheAllowedPairs() {
        createSmallKb();
        Record row = run("CALL grasp.schema.validatePath(['Gene', 'Phenotype'], ['IS_A'])").get(0);
        assertThat(row.get("valid").asBoolean()).isFalse();
        assertThat(row.get("errors").asList(v -> v.asString()))
                .containsExactly("hop 0: (:Gene)-[:IS_A]-(:Phenotype) does not occur in either direction; "
                        + "IS_A connects [(:Phenotype)-(:Phenotype)]");
    }

    @Test
    void unknownLabelsAndTypesAreNamedWithTheKnownOnes() {
        createSmallKb();
        List<String> errors = run("CALL grasp.schema.validatePath(['Disease', 'Drug'], ['TREATS'])")
                .get(0).get("errors").asList(v -> v.asString());
        assertThat(errors).hasSize(2);
        assertThat(errors.get(0)).startsWith("label 'Drug' at position 1 does not occur in the graph; known labels: [Disease, Gene, Phenotype]");
        assertThat(errors.get(1)).startsWith("hop 0: relationship type 'TREATS' does not occur in the graph; known types: [");
    }

    @Test
    void lengthMismatchAndEmptyInputAreErrorsNotExceptions() {
        createSmallKb();
        assertThat(run("CALL grasp.schema.validatePath(['Disease'], ['IS_A'])").get(0).get("errors").asList(v -> v.asString()))
                .containsExactly("a path with 1 labels needs 0 relationship types; got 1");
        assertThat(run("CALL grasp.schema.validatePath([], [])").get(0).get("errors").asList(v -> v.asString()))
                .containsExactly("labels must name at least one node label; got none");
    }

    @Test
    void cypherInLabelValuesIsTreatedAsPlainData() {
        createSmallKb();
        List<String> errors = run("CALL grasp.schema.validatePath([$evil], [])", Map.of("evil", "Disease`) DETACH DELETE n //"))
                .get(0).get("errors").asList(v -> v.asString());
        assertThat(errors).hasSize(1);
        assertThat(run("MATCH (n) RETURN count(n) AS c").get(0).get("c").asLong()).isEqualTo(6L);
    }

    @Test
    void everyProcedureAndFunctionIsDescribed() {
        List<Record> rows = new java.util.ArrayList<>(run(
                "SHOW PROCEDURES YIELD name, description WHERE name STARTS WITH 'grasp.' RETURN name, description"));
        rows.addAll(run("SHOW FUNCTIONS YIELD name, description WHERE name STARTS WITH 'grasp.' RETURN name, description"));
        assertThat(rows).extracting(r -> r.get("name").asString())
                .contains("grasp.schema", "grasp.schema.validatePath", "grasp.version", "grasp.link", "grasp.plan.validate",
                        "grasp.plan.compile", "grasp.plan.execute");
        assertThat(rows).allSatisfy(r -> assertThat(r.get("description").asString()).isNotBlank());
    }
}
