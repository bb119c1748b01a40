package grasp.cypher;

import java.util.regex.Pattern;

/**
 * The one rule for every name grasp writes into Cypher text or takes as a schema name: labels, relationship
 * types, property keys and variables must match {@link #PATTERN} (ASCII letters, digits and underscores, not
 * starting with a digit, at most 64 characters). A whitelist, not an escape: backtick-doubling alone is not
 * enough, because Neo4j 5 also reads the escape sequence {@code \u0060} inside a backticked name as a backtick,
 * so a label planted in the graph as {@code H\u0060) RETURN ...} would close the quotes. Names that exist in the
 * graph are not trusted either: anyone who can write to the database can create a label.
 */
public final class CypherIdentifier {

    /** The rule as text, a compile-time constant for procedure descriptions. */
    public static final String RULE = "^[A-Za-z_][A-Za-z0-9_]{0,63}$";

    public static final Pattern PATTERN = Pattern.compile(RULE);

    private CypherIdentifier() {}

    /** True when {@code value} is a string matching {@link #PATTERN}. */
    public static boolean isValid(Object value) {
        return value instanceof String name && PATTERN.matcher(name).matches();
    }

    /**
     * Null when {@code value} is valid, else the message for it, {@code "<what> '<value>' is not allowed; names must
     * be strings matching ..."}: {@code what} names the place, e.g. {@code "anchor 'a1' type"}. For validators that
     * collect errors instead of throwing.
     */
    public static String problem(Object value, String what) {
        if (isValid(value)) {
            return null;
        }
        return what + " " + (value instanceof String ? "'" + value + "'" : String.valueOf(value)) + " is not allowed; "
                + "names must be strings matching " + PATTERN.pattern() + " (ASCII letters, digits and underscores, not "
                + "starting with a digit, at most 64 characters)";
    }

    /** {@code value} itself when it is valid; else an {@link IllegalArgumentException} with {@link #problem}'s message. */
    public static String check(Object value, String what) {
        String problem = problem(value, what);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return (String) value;
    }

    /**
     * {@code identifier} backtick-quoted for Cypher text. Refuses anything that does not match {@link #PATTERN},
     * so no code path can quote an unchecked name; callers check (and word their own errors) first.
     */
    public static String quote(String identifier) {
        return "`" + check(identifier, "a Cypher identifier") + "`";
    }
}
