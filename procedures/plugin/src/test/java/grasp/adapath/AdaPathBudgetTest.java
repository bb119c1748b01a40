package grasp.adapath;

import static org.assertj.core.api.Assertions.assertThat;

import grasp.config.ConfigValues;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * The budgets of adapath.bfs and adapath.expand hold for their id lookups and their memory. Lookups: an id without
 * a label is looked up under every SKB label (one index seek each), so a long id list on a graph with many labels
 * is a lot of work before the first expansion. Memory: a hub's fan-out is cut to the beam while it is read, not
 * after. The graph: {@value #LABELS} labels {@code L<i>} with an id constraint and one node each, {@code L0:0}
 * linked to the others; a {@code Hub} with {@value #FAN_OUT} {@code Leaf} neighbours whose cosine to the query
 * grows with their number.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdaPathBudgetTest {

    private static final int LABELS = 40;
    /** Ids per call: LABELS x IDS index seeks (2.4 million), several seconds when all are done. */
    private static final int IDS = 60_000;
    private static final int FAN_OUT = 10_000;
    private static final List<Double> QUERY = List.of(1.0, 0.0, 0.0, 0.0);

    private Neo4j neo4j;
    private Driver driver;

    @BeforeAll
    void start() {
        neo4j = Neo4jBuilders.newInProcessBuilder().withDisabledServer().withProcedure(AdaPathProcedures.class)
                .withProcedure(ExpandProcedures.class).build();
        driver = GraphDatabase.driver(neo4j.boltURI(), AuthTokens.none());
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        List<Label> labels = new ArrayList<>();
        for (int i = 0; i < LABELS; i++) {
            labels.add(Label.label("L" + i));
        }
        labels.add(Label.label("Leaf"));
        try (Transaction tx = db.beginTx()) { // one schema transaction: much faster than a statement each
            labels.forEach(label -> tx.schema().constraintFor(label).assertPropertyIsUnique("id").create());
            tx.commit();
        }
        try (Transaction tx = db.beginTx()) {
            tx.schema().awaitIndexesOnline(60, TimeUnit.SECONDS);
        }
        try (Transaction tx = db.beginTx()) {
            Node l0 = null;
            for (int i = 0; i < LABELS; i++) {
                Node node = tx.createNode(labels.get(i));
                node.setProperty("id", "L" + i + ":0");
                node.setProperty("doc_embedding", new double[] {1.0, 0.0, 0.0, 0.0});
                if (l0 == null) {
                    l0 = node;
                } else {
                    l0.createRelationshipTo(node, RelationshipType.withName("R"));
                }
            }
            Node hub = tx.createNode(Label.label("Hub"));
            hub.setProperty("id", "HUB");
            for (int i = 0; i < FAN_OUT; i++) {
                Node leaf = tx.createNode(Label.label("Leaf"));
                leaf.setProperty("id", (long) i);
                leaf.setProperty("doc_embedding", new double[] {i, FAN_OUT - i, 0.0, 0.0});
                hub.createRelationshipTo(leaf, RelationshipType.withName("R"));
            }
            tx.commit();
        }
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

    /** The topic first, then {@code IDS} ids no node has. */
    private static List<Object> manyIds() {
        List<Object> ids = new ArrayList<>(IDS + 1);
        ids.add("L0:0");
        for (int i = 0; i < IDS; i++) {
            ids.add("NOPE:" + i);
        }
        return ids;
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000L;
    }

    @Test
    void theIdLookupsOfBfsStopAtTheTimeBudget() {
        Map<String, Object> parameters = Map.of("ids", manyIds(), "query", QUERY, "config", Map.of("timeoutMs", 1L));
        run("CALL adapath.bfs(['L0:0'], [], $query, {})", parameters); // warm-up: plans and code paths
        long start = System.nanoTime();
        List<Record> rows = run("CALL adapath.bfs($ids, [], $query, $config)", parameters);
        long elapsed = millisSince(start);
        // 2.4 million index seeks: 2.4 s and more when the lookups ran outside the budget; now about a millisecond
        // of them, plus shipping the ids
        assertThat(elapsed).as("adapath.bfs with timeoutMs 1, ms").isLessThan(1_000);
        assertThat(rows).allSatisfy(row -> assertThat(row.get("truncated").asBoolean()).isTrue());
        List<Record> ample = run("CALL adapath.bfs(['L0:0'], [], $query, {maxDepth: 1, beamWidth: 100})", parameters);
        assertThat(ample).hasSize(LABELS - 1).allSatisfy(row -> assertThat(row.get("truncated").asBoolean()).isFalse());
    }

    @Test
    void theIdLookupsOfExpandStopAtTheTimeBudget() {
        List<Object> path = new ArrayList<>(manyIds().subList(1, IDS + 1)); // on-path ids, looked up to stay loopless
        path.add("L0:0");
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("frontier", List.of(Map.of("nodeIds", path)));
        parameters.put("query", QUERY);
        parameters.put("config", Map.of("timeoutMs", 1L));
        run("CALL adapath.expand([{nodeIds: ['L0:0']}], null, $query, {})", parameters);
        long start = System.nanoTime();
        List<Record> rows = run("CALL adapath.expand($frontier, null, $query, $config)", parameters);
        long elapsed = millisSince(start);
        assertThat(elapsed).as("adapath.expand with timeoutMs 1, ms").isLessThan(1_000);
        assertThat(rows).isEmpty(); // the on-path lookups ran out: expanding would risk a loop, so nothing is offered
    }

    /** The {@code beam} best leaves of the hub, best first: the highest numbers. */
    private static List<Object> bestLeaves(int beam) {
        List<Object> ids = new ArrayList<>();
        for (int i = 0; i < beam; i++) {
            ids.add((long) (FAN_OUT - 1 - i));
        }
        return ids;
    }

    @Test
    void aHubIsCutToTheBeamWhileItIsRead() {
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        try (Transaction tx = db.beginTx()) {
            CallBudget budget = new CallBudget(ConfigValues.MAX_VISITS, 60_000, () -> { });
            GuidedBfs search = new GuidedBfs(new double[] {1.0, 0.0, 0.0, 0.0},
                    BfsConfig.parse(Map.of("beamWidth", 5L, "maxDepth", 1L, "maxExpansion", 1_000_000L)), budget);
            List<GuidedBfs.Found> found = search.unguided(new SkbNodes(tx, budget).byIds(List.of("HUB"), null));
            // all 10,000 extensions were read and scored, but never more than the beam was held
            assertThat(search.peakHeld()).isEqualTo(5);
            assertThat(found).extracting(f -> SkbNodes.id(f.path().last())).containsExactlyElementsOf(bestLeaves(5));
            assertThat(search.truncated()).isFalse();
        }
        List<Record> rows = run("CALL adapath.bfs(['HUB'], [], $query, {beamWidth: 3, maxDepth: 1, maxExpansion: 1000000})",
                Map.of("query", QUERY));
        assertThat(rows).extracting(row -> row.get("nodeIds").asList().get(1)).containsExactlyElementsOf(bestLeaves(3));
    }

    @Test
    void aHubIsCutToTheLimitWhileItIsReadByExpand() {
        GraphDatabaseService db = neo4j.defaultDatabaseService();
        try (Transaction tx = db.beginTx()) {
            CallBudget budget = new CallBudget(ConfigValues.MAX_VISITS, 60_000, () -> { });
            ExpandConfig config = ExpandConfig.parse(Map.of("limit", 5L, "maxExpansion", 1_000_000L));
            FrontierStep step = new FrontierStep(new SkbNodes(tx, budget),
                    new Expander(new double[] {1.0, 0.0, 0.0, 0.0}, config.embeddingProperty(), config.maxExpansion(),
                            budget), config);
            FrontierStep.Outcome outcome = step.expand(List.of(List.of("HUB")), Step.ANY);
            assertThat(step.peakHeld()).isLessThanOrEqualTo(2 * 5); // the path's best and the frontier's best
            assertThat(outcome.candidates()).extracting(c -> SkbNodes.id(c.neighbour().node()))
                    .containsExactlyElementsOf(bestLeaves(5));
        }
    }
}
