package grasp.plan;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * The time budget of one plan execution inside the caller's transaction. A transaction's timeout is fixed when it
 * begins, so the budget cannot be set on the caller's; instead an alarm terminates that transaction (with the status
 * Neo4j's own timeout uses) if the plan is still running when the budget ends. Cypher checks for termination while a
 * query runs, so even a query that has not produced a row yet stops. Closing the budget before the alarm fires
 * disarms it; exactly one of the two wins, so a finished plan never terminates the caller's transaction later.
 */
final class TimeBudget implements AutoCloseable {

    private static final int RUNNING = 0;
    private static final int FINISHED = 1;
    private static final int FIRED = 2;

    /**
     * One daemon thread for every budget in the JVM: a budget costs a scheduled task, not a thread. Cancelled tasks
     * leave the queue at once, so finished plans do not pile up until their (up to one hour) budgets end.
     */
    private static final class Alarms {
        static final ScheduledThreadPoolExecutor EXECUTOR = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "grasp-plan-time-budget");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            return executor;
        }
    }

    private final AtomicInteger state = new AtomicInteger(RUNNING);
    private final long deadlineNanos;
    private final ScheduledFuture<?> alarm;

    private TimeBudget(InternalTransaction tx, long timeoutMs) {
        this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.alarm = Alarms.EXECUTOR.schedule(() -> {
            if (state.compareAndSet(RUNNING, FIRED)) {
                tx.terminate(Status.Transaction.TransactionTimedOut);
            }
        }, timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** Starts the budget of {@code timeoutMs} milliseconds on the caller's transaction. */
    static TimeBudget start(InternalTransaction tx, long timeoutMs) {
        return new TimeBudget(tx, timeoutMs);
    }

    /** True once the budget has run out, whether or not the alarm has terminated the transaction yet. */
    boolean expired() {
        return state.get() == FIRED || System.nanoTime() >= deadlineNanos;
    }

    /**
     * Disarms the alarm. Returns false when the alarm won the race: the caller's transaction is terminated, so the
     * plan must fail even if its rows are ready.
     */
    boolean finish() {
        if (state.compareAndSet(RUNNING, FINISHED)) {
            alarm.cancel(false);
            return true;
        }
        return state.get() == FINISHED;
    }

    @Override
    public void close() {
        finish();
    }
}
