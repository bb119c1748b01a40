package grasp.adapath;

import java.util.regex.Pattern;

/**
 * Label and relationship-type names that callers hand to the adapath procedures. They never enter Cypher text
 * here (the graph API takes them as values), but a strict whitelist turns a caller's mistake or a hostile string
 * into a clear error up front instead of a silent empty result, and keeps them safe for any later use in Cypher.
 * The pattern is the loader's identifier rule, widened to a leading underscore.
 */
final class SchemaName {

    static final Pattern PATTERN = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]{0,63}$");

    private SchemaName() {}

    /** {@code value} itself when it is a string matching {@link #PATTERN}; else an error naming {@code what}. */
    static String check(Object value, String what) {
        if (!(value instanceof String name) || !PATTERN.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be a label or relationship type name matching "
                    + PATTERN.pattern() + "; got " + (value instanceof String ? "'" + value + "'" : value));
        }
        return name;
    }
}
