package grasp.link;

/** Backtick-quotes a label, relationship type or variable that has already passed a schema whitelist. */
public final class CypherIdentifier {

    private CypherIdentifier() {}

    public static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }
}
