package grasp.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grasp.testkb.SmallKbTest;
import grasp.testkb.TestKb;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.neo4j.configuration.GraphDatabaseSettings;

/**
 * The time budget fires inside Cypher: the budget terminates the caller's transaction while a query runs (Neo4j's
 * transaction monitor, checking every 20 ms here instead of every 2 s, stands behind it), and the caller must read our
 * time-budget error, not Neo4j's TransactionTerminatedException.
 */
class PlanTimeoutTest extends SmallKbTest {

    /** A hub phenotype shared by 2,000 diseases with 30 phenotypes each: 60,000 paths from the hub. */
    static final String HUB_PLAN = """
        {"anchors": [{"var": "a", "type": "Phenotype", "text": "hub"}],
         "hops": [{"source": "a", "relation": "HAS_PHENOTYPE", "target": "d"},
                  {"source": "d", "relation": "HAS_PHENOTYPE", "target": "t", "target_type": "Phenotype"}],
         "target": {"var": "t", "type": "Phenotype"}}
        """;

    @Override
    @BeforeAll
    protected void startServer() {
        kb = new TestKb(builder -> builder.withConfig(GraphDatabaseSettings.transaction_monitor_check_interval,
                Duration.ofMillis(20)));
    }

    @BeforeEach
    void createHub() {
        kb.run("CREATE (p:Phenotype {id: 'HP:hub', name: 'Hub'}) WITH p UNWIND range(1, 2000) AS i "
                + "CREATE (d:Disease {id: 'HUB:' + i, name: 'd' + i})-[:HAS_PHENOTYPE]->(p) "
                + "WITH d, i UNWIND range(1, 30) AS j CREATE (d)-[:HAS_PHENOTYPE]->(:Phenotype {id: 'P' + i + '_' + j, name: 'x'})");
    }

    private void execute(long timeoutMs) {
        kb.run("CALL grasp.plan.execute($plan, {}, null, 100, $config)",
                Map.of("plan", HUB_PLAN, "config", Map.of("timeoutMs", timeoutMs)));
    }

    @Test
    void terminationInsideCypherIsReportedAsTheTimeBudget() {
        for (long timeoutMs : new long[] {1, 5, 20, 50}) {
            assertThatThrownBy(() -> execute(timeoutMs)).as("timeoutMs %d", timeoutMs)
                    .hasMessageContaining("plan exceeded the time budget of " + timeoutMs + " ms (config timeoutMs); "
                            + "narrow the anchors")
                    .hasMessageNotContaining("TransactionTerminatedException")
                    .hasMessageNotContaining("has been terminated");
        }
        long nodes = kb.nodeCount();
        assertThat(kb.run("CALL grasp.plan.execute($plan, {}, null, 100, {timeoutMs: 60000})", Map.of("plan", HUB_PLAN)))
                .hasSize(100); // the budget, and nothing else, stopped the calls above
        assertThat(kb.nodeCount()).isEqualTo(nodes);
    }

    @Test
    void anOverrunTerminatesTheCallersTransactionAndRollsItBack() {
        long nodes = kb.nodeCount();
        kb.inTransaction(tx -> {
            tx.run("CREATE (:Disease {id: 'D:written-before', name: 'w'})");
            assertThatThrownBy(() -> tx.run("CALL grasp.plan.execute($plan, {}, null, 100, {timeoutMs: 5})",
                    Map.of("plan", HUB_PLAN)).consume()).hasMessageContaining("plan exceeded the time budget of 5 ms");
        });
        assertThat(kb.nodeCount()).isEqualTo(nodes);
    }
}
