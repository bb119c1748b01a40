package grasp.testkb;

import grasp.link.LinkProcedures;
import grasp.meta.VersionFunction;
import grasp.plan.PlanProcedures;
import grasp.schema.SchemaProcedures;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;

/**
 * An in-process server with every grasp procedure and a tiny knowledge base shaped like a loaded SKB: labels
 * Phenotype, Disease, Gene; unique ids (genes have integer ids); name/doc; 4-dimensional unit float32
 * embeddings; cosine vector indexes grasp_<label>_name / grasp_<label>_doc.
 *
 * <pre>
 * Phenotype name/doc vectors: HP:1 Epileptic spasm e1, HP:2 Infantile spasms (0.96, 0.28, 0, 0),
 *                             HP:3 Seizure (0.6, 0.8, 0, 0), HP:4 Ataxia e3
 * Disease doc vectors:        D:1 West syndrome e4, D:2 Dravet syndrome (0, 0, 0.6, 0.8), D:3 Angelman (0, 0.8, 0.6, 0)
 * (D:1)-[:HAS_PHENOTYPE]->(HP:1), (HP:3);  (D:2)->(HP:2), (HP:3);  (D:3)->(HP:3), (HP:4)
 * (ARX 1001)-[:ASSOCIATED_WITH]->(D:1);  (SCN1A 1002)->(D:2), (D:1);  (UBE3A 1003)->(D:3)
 * </pre>
 *
 * <p>Test classes get one per class, with the KB loaded before each test and wiped after it, by extending
 * {@link SmallKbTest}.
 */
public final class TestKb implements AutoCloseable {

    public static final List<Double> E1 = List.of(1.0, 0.0, 0.0, 0.0);

    private final Neo4j neo4j;
    private final Driver driver;

    public TestKb() {
        this(builder -> builder);
    }

    /** A server that {@code configure} sets up further, e.g. with a shorter transaction monitor interval. */
    public TestKb(UnaryOperator<Neo4jBuilder> configure) {
        neo4j = configure.apply(Neo4jBuilders.newInProcessBuilder()
                .withDisabledServer()
                .withProcedure(SchemaProcedures.class)
                .withProcedure(LinkProcedures.class)
                .withProcedure(PlanProcedures.class)
                .withFunction(VersionFunction.class))
                .build();
        driver = GraphDatabase.driver(neo4j.boltURI(), AuthTokens.none());
        for (String label : List.of("Phenotype", "Disease", "Gene")) {
            run("CREATE CONSTRAINT IF NOT EXISTS FOR (n:" + label + ") REQUIRE n.id IS UNIQUE");
            for (String kind : List.of("name", "doc")) {
                run("CREATE VECTOR INDEX grasp_" + label.toLowerCase() + "_" + kind + " IF NOT EXISTS FOR (n:" + label
                        + ") ON n." + kind + "_embedding OPTIONS {indexConfig: {`vector.dimensions`: 4, "
                        + "`vector.similarity_function`: 'cosine'}}");
            }
        }
        run("CALL db.awaitIndexes(60)");
    }

    public List<Record> run(String cypher) {
        return run(cypher, Map.of());
    }

    public List<Record> run(String cypher, Map<String, Object> params) {
        try (Session session = driver.session()) {
            return session.run(cypher, params).list();
        }
    }

    /** Runs {@code work} in one explicit transaction, then rolls it back (unless {@code work} committed it). */
    public void inTransaction(java.util.function.Consumer<org.neo4j.driver.Transaction> work) {
        try (Session session = driver.session(); org.neo4j.driver.Transaction tx = session.beginTransaction()) {
            work.accept(tx);
        }
    }

    public long nodeCount() {
        return run("MATCH (n) RETURN count(n) AS c").get(0).get("c").asLong();
    }

    public void wipe() {
        run("MATCH (n) DETACH DELETE n");
    }

    /** Nodes with embeddings written like the loader does (db.create.setNodeVectorProperty, float32). */
    public void createSmallKb() {
        node("Phenotype", "HP:1", "Epileptic spasm", List.of(1.0, 0.0, 0.0, 0.0), List.of(1.0, 0.0, 0.0, 0.0));
        node("Phenotype", "HP:2", "Infantile spasms", List.of(0.96, 0.28, 0.0, 0.0), List.of(0.96, 0.28, 0.0, 0.0));
        node("Phenotype", "HP:3", "Seizure", List.of(0.6, 0.8, 0.0, 0.0), List.of(0.6, 0.8, 0.0, 0.0));
        node("Phenotype", "HP:4", "Ataxia", List.of(0.0, 0.0, 1.0, 0.0), List.of(0.0, 0.0, 1.0, 0.0));
        node("Disease", "D:1", "West syndrome", List.of(0.0, 1.0, 0.0, 0.0), List.of(0.0, 0.0, 0.0, 1.0));
        node("Disease", "D:2", "Dravet syndrome", List.of(0.0, 0.0, 1.0, 0.0), List.of(0.0, 0.0, 0.6, 0.8));
        node("Disease", "D:3", "Angelman syndrome", List.of(0.0, 0.0, 0.0, 1.0), List.of(0.0, 0.8, 0.6, 0.0));
        node("Gene", 1001L, "ARX", List.of(1.0, 0.0, 0.0, 0.0), List.of(1.0, 0.0, 0.0, 0.0));
        node("Gene", 1002L, "SCN1A", List.of(0.0, 1.0, 0.0, 0.0), List.of(0.0, 1.0, 0.0, 0.0));
        node("Gene", 1003L, "UBE3A", List.of(0.0, 0.0, 1.0, 0.0), List.of(0.0, 0.0, 1.0, 0.0));
        run("""
            MATCH (d1:Disease {id:'D:1'}), (d2:Disease {id:'D:2'}), (d3:Disease {id:'D:3'}),
                  (p1:Phenotype {id:'HP:1'}), (p2:Phenotype {id:'HP:2'}), (p3:Phenotype {id:'HP:3'}), (p4:Phenotype {id:'HP:4'}),
                  (g1:Gene {id:1001}), (g2:Gene {id:1002}), (g3:Gene {id:1003})
            CREATE (d1)-[:HAS_PHENOTYPE]->(p1), (d1)-[:HAS_PHENOTYPE]->(p3), (d2)-[:HAS_PHENOTYPE]->(p2),
                   (d2)-[:HAS_PHENOTYPE]->(p3), (d3)-[:HAS_PHENOTYPE]->(p3), (d3)-[:HAS_PHENOTYPE]->(p4),
                   (g1)-[:ASSOCIATED_WITH]->(d1), (g2)-[:ASSOCIATED_WITH]->(d2), (g2)-[:ASSOCIATED_WITH]->(d1),
                   (g3)-[:ASSOCIATED_WITH]->(d3)
            """);
    }

    public void node(String label, Object id, String name, List<Double> nameVector, List<Double> docVector) {
        run("CREATE (n:" + label + " {id: $id, name: $name, doc: $name + ' (doc)'}) "
                + "WITH n CALL db.create.setNodeVectorProperty(n, 'name_embedding', $nameVector) "
                + "CALL db.create.setNodeVectorProperty(n, 'doc_embedding', $docVector)",
                Map.of("id", id, "name", name, "nameVector", nameVector, "docVector", docVector));
    }

    @Override
    public void close() {
        driver.close();
        neo4j.close();
    }
}
