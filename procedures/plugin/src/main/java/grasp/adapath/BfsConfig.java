package grasp.adapath;

import static grasp.config.ConfigValues.integer;
import static grasp.config.ConfigValues.known;

import grasp.config.ConfigValues;
import grasp.cypher.CypherIdentifier;
import java.util.Map;
import java.util.Set;

/**
 * The {@code config} map of {@code adapath.bfs}, range-checked; unknown keys are refused.
 *
 * @param beamWidth         partial paths kept per depth (best by path score)
 * @param maxExpansion      relationships read per node and step (bounds hubs)
 * @param maxDepth          depth of the unguided search (guided: the meta-path's own length, at most 3)
 * @param maxVisits         relationships read in the whole call; beyond it the search stops and says so (at most
 *                          {@link ConfigValues#MAX_VISITS})
 * @param timeoutMs         time budget of the whole call, id lookups included; beyond it the search stops and
 *                          says so (at most {@link ConfigValues#MAX_TIMEOUT_MS}, one hour)
 * @param limit             paths returned, best first
 * @param embeddingProperty the node property scored against the query vector (a name matching
 *                          {@link CypherIdentifier#PATTERN})
 */
public record BfsConfig(long beamWidth, long maxExpansion, long maxDepth, long maxVisits, long timeoutMs, long limit,
                        String embeddingProperty) {

    static final int MAX_DEPTH = 3;
    static final Set<String> KEYS = Set.of("beamWidth", "maxExpansion", "maxDepth", "maxVisits", "timeoutMs", "limit",
            "embeddingProperty");

    public static BfsConfig parse(Map<String, Object> config) {
        Map<String, Object> values = known(config, KEYS);
        return new BfsConfig(
                integer(values, "beamWidth", 20, 1, 10_000),
                integer(values, "maxExpansion", 2_000, 1, 1_000_000),
                integer(values, "maxDepth", 2, 1, MAX_DEPTH),
                integer(values, "maxVisits", 500_000, 1, ConfigValues.MAX_VISITS),
                integer(values, "timeoutMs", 2_000, 1, ConfigValues.MAX_TIMEOUT_MS),
                integer(values, "limit", 50, 1, 10_000),
                embeddingProperty(values));
    }

    /** config embeddingProperty (default 'doc_embedding'), shared with {@link ExpandConfig}. */
    static String embeddingProperty(Map<String, Object> values) {
        return CypherIdentifier.check(values.getOrDefault("embeddingProperty", "doc_embedding"), "config embeddingProperty");
    }
}
