package grasp.config;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reading a procedure's {@code config} map: known keys only, integers and numbers range-checked. A value outside
 * its range is refused with an error naming the range, never clamped: an absurd budget is a caller's mistake, and
 * the documented maxima below keep every budget clear of overflow (nanosecond deadlines, LIMIT $n + 1).
 */
public final class ConfigValues {

    /** Largest time budget (config timeoutMs) any procedure accepts: one hour. */
    public static final long MAX_TIMEOUT_MS = 3_600_000L;

    /** Largest row budget (grasp.plan.execute's config maxRows and exactLimit): 100 million rows. */
    public static final long MAX_ROWS = 100_000_000L;

    /** Largest visit budget (adapath config maxVisits): one billion relationships. */
    public static final long MAX_VISITS = 1_000_000_000L;

    private ConfigValues() {}

    /** The map itself ({@code null} reads as empty) after checking every key is one of {@code allowed}. */
    public static Map<String, Object> known(Map<String, Object> config, Set<String> allowed) {
        Map<String, Object> values = config == null ? Map.of() : config;
        for (String key : values.keySet()) {
            if (!allowed.contains(key)) {
                throw new IllegalArgumentException("unknown config key '" + key + "'; allowed: " + new TreeSet<>(allowed));
            }
        }
        return values;
    }

    public static long integer(Map<String, Object> values, String key, long fallback, long min, long max) {
        Object value = values.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof Long || value instanceof Integer) || ((Number) value).longValue() < min
                || ((Number) value).longValue() > max) {
            throw new IllegalArgumentException("config " + key + " must be an integer in [" + (min == Long.MIN_VALUE ? "-inf" : min)
                    + ", " + max + "]; got " + value);
        }
        return ((Number) value).longValue();
    }

    public static double number(Map<String, Object> values, String key, double fallback) {
        Object value = values.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof Number number) || !Double.isFinite(number.doubleValue())) {
            throw new IllegalArgumentException("config " + key + " must be a finite number; got " + value);
        }
        return number.doubleValue();
    }
}
