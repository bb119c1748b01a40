package grasp.adapath;

import static grasp.config.ConfigValues.integer;
import static grasp.config.ConfigValues.known;

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
 */
public record BankConfig(String index, long queries, long limit, Long hops, String startLabel, String answerLabel) {

    static final String DEFAULT_INDEX = "adapath_query_embedding";
    static final Set<String> KEYS = Set.of("index", "queries", "limit", "hops", "startLabel", "answerLabel");

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
                optionalName(values, "answerLabel"));
    }

    private static String optionalName(Map<String, Object> values, String key) {
        Object value = values.get(key);
        return value == null ? null : SchemaName.check(value, "config " + key);
    }
}
