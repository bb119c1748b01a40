package grasp.adapath;

import static grasp.config.ConfigValues.integer;
import static grasp.config.ConfigValues.known;

import grasp.config.ConfigValues;
import java.util.Map;
import java.util.Set;

/**
 * The {@code config} map of {@code adapath.expand}, range-checked; unknown keys are refused. The budgets mean
 * what they mean in {@link BfsConfig}, for one step instead of a whole search.
 *
 * @param maxExpansion      relationships read per frontier node (bounds hubs)
 * @param maxVisits         relationships read in the whole call; beyond it the step stops and says so (at most
 *                          {@link ConfigValues#MAX_VISITS})
 * @param timeoutMs         time budget of the whole call, id lookups included; beyond it the step stops and
 *                          says so (at most {@link ConfigValues#MAX_TIMEOUT_MS}, one hour)
 * @param limit             candidates returned over the whole call, best first
 * @param perPath           most candidates per frontier path; 0: no cap
 * @param embeddingProperty the node property scored against the query vector
 */
public record ExpandConfig(long maxExpansion, long maxVisits, long timeoutMs, long limit, long perPath,
                           String embeddingProperty) {

    static final Set<String> KEYS = Set.of("maxExpansion", "maxVisits", "timeoutMs", "limit", "perPath",
            "embeddingProperty");

    public static ExpandConfig parse(Map<String, Object> config) {
        Map<String, Object> values = known(config, KEYS);
        return new ExpandConfig(
                integer(values, "maxExpansion", 2_000, 1, 1_000_000),
                integer(values, "maxVisits", 500_000, 1, ConfigValues.MAX_VISITS),
                integer(values, "timeoutMs", 2_000, 1, ConfigValues.MAX_TIMEOUT_MS),
                integer(values, "limit", 50, 1, 10_000),
                integer(values, "perPath", 0, 0, 10_000),
                BfsConfig.embeddingProperty(values));
    }
}
