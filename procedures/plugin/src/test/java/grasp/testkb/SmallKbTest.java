package grasp.testkb;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * Base for tests that call grasp procedures on the {@link TestKb} knowledge base: one server per test class, the small
 * KB ({@link TestKb#createSmallKb()}) loaded before each test and the graph wiped after it, so a test may write freely.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SmallKbTest {

    protected TestKb kb;

    @BeforeAll
    protected void startServer() {
        kb = new TestKb();
    }

    @AfterAll
    protected void stopServer() {
        kb.close();
    }

    @BeforeEach
    protected void loadSmallKb() {
        kb.createSmallKb();
    }

    @AfterEach
    protected void wipeGraph() {
        kb.wipe();
    }
}
