package grasp.plan;

import java.util.List;

/**
 * A retrieval plan as the planner wrote it (the JSON contract with the Python side), before any schema check.
 * Field names follow the JSON: {@code match_mode} is {@link Anchor#matchMode}, {@code n_cand} is {@link #nCand}.
 */
public record Plan(
        List<Anchor> anchors, List<Hop> hops, Target target, String relevanceText, long nCand, String risk) {

    /** A mention to link: {@code text} is matched against {@code type}'s nodes by {@code match_mode} (name|doc). */
    public record Anchor(String var, String type, String text, String matchMode) {}

    /**
     * An undirected step between two variables. {@code sourceType}/{@code targetType} are optional hints that
     * type an intermediate variable when the schema alone is ambiguous; null when absent.
     */
    public record Hop(String source, String relation, String target, String sourceType, String targetType) {}

    /** The variable whose nodes are ranked, with its label. */
    public record Target(String var, String type) {}

    public Plan {
        anchors = List.copyOf(anchors);
        hops = List.copyOf(hops);
    }

    public boolean hasHops() {
        return !hops.isEmpty();
    }
}
