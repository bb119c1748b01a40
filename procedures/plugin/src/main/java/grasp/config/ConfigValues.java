package grasp.config;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Reading a procedure's {@code config} map: known keys only, integers and numbers range-checked. */
public final class ConfigValues {

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
