package grasp.adapath;

import static grasp.config.ConfigValues.integer;
import static grasp.config.ConfigValues.known;

import grasp.cypher.CypherIdentifier;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code config} map of {@code adapath.bank.metaPaths}, range-checked; unknown keys are refused. The
 * filters are null when absent (no filtering).
 *
 * @param index       the vector index over the bank queries' embeddings
 * @param queries     nearest bank queries that vote
 * @param limit       meta-paths returned, best first
 * @param hops        keep only meta-paths of this many hops (1..3), or null
 * @param startLabel  keep only meta-paths starting at this label (the topic's), or null
 * @param answerLabel keep only meta-paths ending at this label (the answer's), or null
 * @param exclude     bank query ids that neither vote nor count among the nearest (as if the bank had been built
 *                    without them: a leave-template-out evaluation hides a whole template this way)
 */
public record BankConfig(String index, long queries, long limit, Long hops, String startLabel, String answerLabel,
                         Set<Object> exclude) {

    static final String DEFAULT_INDEX = "adapath_query_embedding";
    static final Set<String> KEYS = Set.of("index", "queries", "limit", "hops", "startLabel", "answerLabel", "exclude");
    static final int MAX_EXCLUDED = 100_000;

    public static BankConfig parse(Map<String, Object> config) {
        Map<String, Object> values = known(config, KEYS);
        Object index = values.getOrDefault("index", DEFAULT_INDEX);
        if (!(index instanceof String name) || name.isBlank()) {
            throw new IllegalArgumentException("config index must be a vector index name; got " + index);
        }
        return new BankConfig(
                name,
                integer(values, "queries", 20, 1, 1_000),
                integer(values, "limit", 5, 1, 1_000),
                values.get("hops") == null ? null : integer(values, "hops", 0, 1, BfsConfig.MAX_DEPTH),
                optionalName(values, "startLabel"),
                optionalName(values, "answerLabel"),
                ids(values.get("exclude")));
    }

    private static Set<Object> ids(Object value) {
        if (value == null) {
            return Set.of();
        }
        if (!(value instanceof List<?> list) || list.size() > MAX_EXCLUDED
                || list.stream().anyMatch(id -> !(id instanceof String || id instanceof Long))) {
            throw new IllegalArgumentException("config exclude must be a list of at most " + MAX_EXCLUDED
                    + " bank query ids (strings or integers); got " + value);
        }
        return new HashSet<>(list);
    }

    private static String optionalName(Map<String, Object> values, String key) {
        Object value = values.get(key);
        return value == null ? null : CypherIdentifier.check(value, "config " + key);
    }
}
