package dev.grasp.gds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Runs Open GDS from the SHADED jar inside an in-process Neo4j, the way a server uses a plugin: the jar is
 * on the JVM classpath (failsafe puts it there instead of the GDS module jars, so the kernel extension is
 * found by the service loader) and in the plugin directory (so its procedures are registered).
 */
class OpenGdsPluginIT {

    @TempDir
    static Path tmp;

    private static Path jar;
    private static Neo4j neo4j;
    private static Driver driver;

    @BeforeAll
    static void start() throws Exception {
        jar = Path.of(System.getProperty("grasp.gds.jar"));
        Path plugins = Files.createDirectories(tmp.resolve("plugins"));
        Files.copy(jar, plugins.resolve(jar.getFileName()));
        neo4j = Neo4jBuilders.newInProcessBuilder(tmp.resolve("neo4j"))
                .withDisabledServer()
                .withConfig(GraphDatabaseSettings.plugin_dir, plugins)
                .withConfig(GraphDatabaseSettings.procedure_unrestricted, List.of("gds.*"))
                .build();
        driver = GraphDatabase.driver(neo4j.boltURI(), AuthTokens.none());
        driver.verifyConnectivity();
    }

    @AfterAll
    static void stop() throws Exception {
        if (driver != null) driver.close();
        if (neo4j != null) {
            String log = System.getProperty("grasp.gds.neo4jLog");
            if (log != null) {
                try (var out = new java.io.PrintStream(Files.newOutputStream(Path.of(log)), true, "UTF-8")) {
                    neo4j.printLogs(out);
                }
            }
            neo4j.close();
        }
    }

    private static List<Record> run(String cypher, Map<String, Object> params) {
        try (Session s = driver.session()) {
            return s.run(cypher, params).list();
        }
    }

    private static List<Record> run(String cypher) {
        return run(cypher, Map.of());
    }

    @Test
    void gdsComesFromTheShadedJarOnly() throws Exception {
        Class<?> gdsClass = Class.forName("org.neo4j.gds.BuildInfoProperties");
        assertThat(Path.of(gdsClass.getProtectionDomain().getCodeSource().getLocation().toURI()))
                .isEqualTo(jar.toAbsolutePath());
        String prefix = System.getProperty("grasp.gds.shadePrefix");
        assertThat(Class.forName(prefix + ".com.carrotsearch.hppc.LongArrayList").getProtectionDomain()
                        .getCodeSource().getLocation().toURI())
                .isEqualTo(jar.toUri());
        // hppc is bundled only relocated, and nothing else on the test classpath has it
        assertThatThrownBy(() -> Class.forName("com.carrotsearch.hppc.LongArrayList"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void version() {
        assertThat(run("RETURN gds.version() AS v").get(0).get("v").asString())
                .isEqualTo(System.getProperty("grasp.gds.version"));
    }

    @Test
    void personalizedPageRank() {
        run("""
            CREATE (a:Page {name:'a'}), (b:Page {name:'b'}), (c:Page {name:'c'}), (d:Page {name:'d'}),
                   (e:Page {name:'e'}), (f:Page {name:'f'}),
                   (a)-[:LINKS]->(b), (b)-[:LINKS]->(c), (c)-[:LINKS]->(a), (c)-[:LINKS]->(d),
                   (e)-[:LINKS]->(f), (f)-[:LINKS]->(e), (f)-[:LINKS]->(d)
            """);
        Record projected = run("CALL gds.graph.project('ppr', 'Page', 'LINKS') "
                + "YIELD nodeCount, relationshipCount RETURN nodeCount, relationshipCount").get(0);
        assertThat(projected.get("nodeCount").asLong()).isEqualTo(6);
        assertThat(projected.get("relationshipCount").asLong()).isEqualTo(7);

        Map<String, Double> scores = new LinkedHashMap<>();
        run("""
            MATCH (s:Page {name: 'a'})
            CALL gds.pageRank.stream('ppr', {sourceNodes: [s], maxIterations: 100, tolerance: 1e-9, dampingFactor: 0.85})
            YIELD nodeId, score
            RETURN gds.util.asNode(nodeId).name AS name, score ORDER BY score DESC, name
            """).forEach(r -> scores.put(r.get("name").asString(), r.get("score").asDouble()));
        run("CALL gds.graph.drop('ppr') YIELD graphName RETURN graphName");

        assertThat(scores).hasSize(6);
        assertThat(scores.keySet().iterator().next()).isEqualTo("a");
        assertThat(scores.values()).allMatch(v -> v >= 0.0 && Double.isFinite(v));
        // a -> b -> c -> {a, d}: mass flows away from the source along the cycle
        assertThat(scores.get("a")).isGreaterThan(scores.get("b"));
        assertThat(scores.get("b")).isGreaterThan(scores.get("c"));
        assertThat(scores.get("c")).isGreaterThan(scores.get("d"));
        assertThat(scores.get("d")).isGreaterThan(0.0);
        // e and f are not reachable from the source
        assertThat(scores.get("e")).isCloseTo(0.0, within(1e-9));
        assertThat(scores.get("f")).isCloseTo(0.0, within(1e-9));
        // closed form: a = 0.15 / (1 - 0.85^3 / 2)
        assertThat(scores.get("a")).isCloseTo(0.15 / (1 - Math.pow(0.85, 3) / 2), within(1e-3));
    }

    @Test
    void yensTwoShortestPaths() {
        run("""
            CREATE (a:Loc {name:'A'}), (b:Loc {name:'B'}), (c:Loc {name:'C'}), (d:Loc {name:'D'}),
                   (a)-[:ROAD {cost: 1.0}]->(b), (b)-[:ROAD {cost: 1.0}]->(d),
                   (a)-[:ROAD {cost: 1.0}]->(c), (c)-[:ROAD {cost: 2.0}]->(d),
                   (a)-[:ROAD {cost: 5.0}]->(d)
            """);
        run("CALL gds.graph.project('roads', 'Loc', {ROAD: {properties: 'cost'}}) YIELD graphName RETURN graphName");
        List<Record> paths = run("""
            MATCH (s:Loc {name: 'A'}), (t:Loc {name: 'D'})
            CALL gds.shortestPath.yens.stream('roads', {
                sourceNode: s, targetNode: t, k: 2, relationshipWeightProperty: 'cost'})
            YIELD index, totalCost, nodeIds, costs
            RETURN index, totalCost, [n IN gds.util.asNodes(nodeIds) | n.name] AS names, costs
            ORDER BY index
            """);
        run("CALL gds.graph.drop('roads') YIELD graphName RETURN graphName");

        assertThat(paths).hasSize(2);
        assertThat(paths.get(0).get("names").asList(v -> v.asString())).containsExactly("A", "B", "D");
        assertThat(paths.get(0).get("totalCost").asDouble()).isCloseTo(2.0, within(1e-9));
        assertThat(paths.get(1).get("names").asList(v -> v.asString())).containsExactly("A", "C", "D");
        assertThat(paths.get(1).get("totalCost").asDouble()).isCloseTo(3.0, within(1e-9));
    }
}
