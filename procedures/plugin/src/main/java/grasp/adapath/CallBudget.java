package grasp.adapath;

import org.neo4j.procedure.TerminationGuard;

/**
 * The budgets of one {@code adapath.bfs} or {@code adapath.expand} call, shared by its id lookups and its
 * expansions: relationships read ({@code maxVisits}) and wall time ({@code timeoutMs}, counted from the call's
 * start), with the transaction's termination checked along the way. Once spent it stays spent: the caller stops
 * and reports its results truncated.
 */
final class CallBudget {

    private static final int GUARD_EVERY = 1024; // TerminationGuard.check is cheap, but not free

    private final long maxVisits;
    private final long deadline;
    private final TerminationGuard guard;
    private long visits;
    private long steps;
    private boolean spent;

    CallBudget(long maxVisits, long timeoutMs, TerminationGuard guard) {
        this.maxVisits = maxVisits;
        this.deadline = System.nanoTime() + timeoutMs * 1_000_000L; // timeoutMs <= one hour: no overflow
        this.guard = guard;
    }

    /** True once maxVisits or timeoutMs stopped the call. */
    boolean spent() {
        return spent;
    }

    /** Before one unit of work that reads no relationship (an id lookup, a scanned node); false once spent. */
    boolean step() {
        if (spent) {
            return false;
        }
        if (++steps % GUARD_EVERY == 0) {
            guard.check();
        }
        spent = System.nanoTime() > deadline;
        return !spent;
    }

    /** Before reading one relationship; false once spent. */
    boolean visit() {
        if (!spent && ++visits > maxVisits) {
            spent = true;
        }
        return step();
    }
}
