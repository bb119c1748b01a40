package grasp.plan;

import java.util.List;

/**
 * A retrieval plan as the planner wrote it (the JSON contract with the Python side), before any schema check.
 * Field names follow the JSON: {@code match_mode} is {@link Anchor#matchMode}, {@code n_cand} is {@link #nCand},
 * {@code name_contains} is {@link #nameContains}: words a target's name should hold (a quoted keyword, 'diseases
 * named "spastic"'); the targets whose name holds every one rank first, each group in its own order
 * ({@link NameTerms}); empty, names play no part.
 */
public record Plan(
        List<Anchor> anchors, List<Hop> hops, Target target, String relevanceText, long nCand, String risk, Order order,
        List<String> nameContains) {

    /** A mention to link: {@code text} is matched against {@code type}'s nodes by {@code match_mode} (name|doc). */
    public record Anchor(String var, String type, String text, String matchMode) {}

    /**
     * A step between two variables. {@code sourceType}/{@code targetType} are optional hints that type an
     * intermediate variable when the schema alone is ambiguous; null when absent. {@code direction} says how
     * the stored relationship runs relative to source -> target: "out" (source to target), "in" (target to
     * source) or "any" (either, the default: most relations read the same both ways, IS_A does not).
     */
    public record Hop(String source, String relation, String target, String sourceType, String targetType,
                      String direction) {

        public static final String ANY = "any";
        public static final String OUT = "out";
        public static final String IN = "in";

        public Hop(String source, String relation, String target, String sourceType, String targetType) {
            this(source, relation, target, sourceType, targetType, ANY);
        }

        public boolean directed() {
            return !ANY.equals(direction);
        }

        /** Whether the stored relationship starts at {@code var} (one of this hop's ends); only for directed hops. */
        public boolean storedFrom(String var) {
            return var.equals(source) == OUT.equals(direction);
        }
    }

    /** The variable whose nodes are ranked, with its label. */
    public record Target(String var, String type) {}

    /**
     * Rank the targets by a number they hold ("the most populous city of X"): {@code property} is read as a number
     * ({@link Quantities#parse}), largest first when {@code descending}; targets without it come last. Ties and the
     * plan's own anchor scores decide first: a better-matched target stays ahead of a larger one.
     */
    public record Order(String property, boolean descending) {}

    public Plan {
        anchors = List.copyOf(anchors);
        hops = List.copyOf(hops);
        nameContains = nameContains == null ? List.of() : List.copyOf(nameContains);
    }

    /** A plan that ranks by relevance (no {@link Order}) and asks nothing of the targets' names. */
    public Plan(List<Anchor> anchors, List<Hop> hops, Target target, String relevanceText, long nCand, String risk) {
        this(anchors, hops, target, relevanceText, nCand, risk, null, List.of());
    }

    /** A plan that asks nothing of the targets' names. */
    public Plan(List<Anchor> anchors, List<Hop> hops, Target target, String relevanceText, long nCand, String risk,
            Order order) {
        this(anchors, hops, target, relevanceText, nCand, risk, order, List.of());
    }

    public boolean hasHops() {
        return !hops.isEmpty();
    }
}
