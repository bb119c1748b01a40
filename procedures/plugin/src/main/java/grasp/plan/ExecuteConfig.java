package grasp.plan;

import static grasp.config.ConfigValues.integer;
import static grasp.config.ConfigValues.known;
import static grasp.config.ConfigValues.number;

import grasp.config.ConfigValues;
import java.util.Map;
import java.util.Set;

/**
 * The {@code config} map of {@code grasp.plan.execute}, range-checked: a value outside its range (zero or
 * negative budgets, or budgets above the documented maxima) is refused with an error naming the range, never
 * clamped.
 *
 * @param k           candidates per anchor; negative: the match mode's default (name 5, doc 10)
 * @param tau         keep bindings with cosine >= tau x best; negative: the mode's default (name 0.95, doc 0.90)
 * @param maxRows     row budget: most plan paths the graph pattern may match (default 200,000; 1 to
 *                    {@link ConfigValues#MAX_ROWS}, 100 million)
 * @param timeoutMs   time budget of the whole call in milliseconds (default 5,000; 1 to
 *                    {@link ConfigValues#MAX_TIMEOUT_MS}, one hour)
 * @param denseWeight weight of the dense score in {@code score = anchorScore + denseWeight x denseScore}
 * @param exactLimit  dense scores are exact (computed in Java) up to this many candidates, else read from the
 *                    target label's doc vector index (default 20,000; 0 to {@link ConfigValues#MAX_ROWS})
 * @param indexTopN   how many hits the index path asks the doc vector index for (default 10,000; 1 to 100,000)
 * @param relaxBelow  soft constraints: with fewer targets than this matching the whole plan, rank the targets by how
 *                    much of it they match instead ({@link PartialMatcher}); default 1 (only when none matches), 0 never,
 *                    at most {@link PlanExecutor#MAX_LIMIT}
 * @param hierarchyDiscount in the soft pass, a bound node's parent terms along its type's self-relations (and any
 *                    neighbour along one whose name does not say which way it runs) count this much of its score;
 *                    default 0.8, in [0, 1], 0: none
 * @param descendantCredit in the soft pass, a bound node's child terms count this much of its score: an annotation
 *                    to a more specific term implies the asked one (the true-path rule); default 1.0, in [0, 1]
 */
public record ExecuteConfig(
        long k, double tau, long maxRows, long timeoutMs, double denseWeight, long exactLimit, long indexTopN,
        long relaxBelow, double hierarchyDiscount, double descendantCredit) {

    static final Set<String> KEYS = Set.of("k", "tau", "maxRows", "timeoutMs", "denseWeight", "exactLimit", "indexTopN",
            "relaxBelow", "hierarchyDiscount", "descendantCredit");

    public static ExecuteConfig parse(Map<String, Object> config) {
        Map<String, Object> values = known(config, KEYS);
        return new ExecuteConfig(
                integer(values, "k", -1, Long.MIN_VALUE, 1000),
                number(values, "tau", -1.0),
                integer(values, "maxRows", 200_000, 1, ConfigValues.MAX_ROWS),
                integer(values, "timeoutMs", 5_000, 1, ConfigValues.MAX_TIMEOUT_MS),
                number(values, "denseWeight", 1.0),
                integer(values, "exactLimit", 20_000, 0, ConfigValues.MAX_ROWS),
                integer(values, "indexTopN", 10_000, 1, 100_000),
                integer(values, "relaxBelow", 1, 0, PlanExecutor.MAX_LIMIT),
                fraction(values, "hierarchyDiscount", 0.8),
                fraction(values, "descendantCredit", 1.0));
    }

    private static double fraction(Map<String, Object> values, String key, double fallback) {
        double value = number(values, key, fallback);
        if (value < 0 || value > 1) {
            throw new IllegalArgumentException("config " + key + " must be a number in [0, 1]; got " + value);
        }
        return value;
    }
}
