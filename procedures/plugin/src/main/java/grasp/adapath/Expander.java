package grasp.adapath;

import grasp.link.VectorIndexes;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.ResourceIterable;

/**
 * The one expansion routine of {@code adapath.bfs} and {@code adapath.expand}: reads a node's relationships that
 * match a {@link Step}, skips neighbours already on the path (paths stay loopless) and scores each remaining
 * neighbour by the cosine of the query vector and its embedding (0.0 without one). Reads are bounded per node
 * ({@code maxExpansion}: caps hubs, silently, as a per-node sample) and by the call's {@link CallBudget}
 * ({@code maxVisits}, {@code timeoutMs}), which stops the caller's whole search; it then reports itself truncated.
 */
final class Expander {

    /** A neighbour reached over {@code relationship}, with its cosine to the query vector. */
    record Neighbour(Node node, Relationship relationship, double score) {}

    private final double[] query;
    private final String embeddingProperty;
    private final long maxExpansion;
    private final CallBudget budget;

    Expander(double[] query, String embeddingProperty, long maxExpansion, CallBudget budget) {
        this.query = query;
        this.embeddingProperty = embeddingProperty;
        this.maxExpansion = maxExpansion;
        this.budget = budget;
    }

    /** True once maxVisits or timeoutMs stopped the call (an expansion or an id lookup). */
    boolean truncated() {
        return budget.spent();
    }

    /**
     * Hands each neighbour of {@code from} over {@code step} that is not in {@code onPath} to {@code sink};
     * false once the call's budget is spent (the caller should stop expanding).
     */
    boolean expand(Node from, Collection<Node> onPath, Step step, Consumer<Neighbour> sink) {
        if (budget.spent()) {
            return false;
        }
        Set<String> visited = new HashSet<>();
        onPath.forEach(node -> visited.add(node.getElementId()));
        long read = 0;
        try (ResourceIterable<Relationship> relationships = step.type() == null
                ? from.getRelationships(step.direction()) : from.getRelationships(step.direction(), step.type())) {
            for (Relationship relationship : relationships) {
                if (++read > maxExpansion) {
                    break;
                }
                if (!budget.visit()) {
                    return false;
                }
                Node other = relationship.getOtherNode(from);
                if ((step.label() != null && !other.hasLabel(step.label())) || visited.contains(other.getElementId())) {
                    continue;
                }
                sink.accept(new Neighbour(other, relationship, score(other)));
            }
        }
        return true;
    }

    private double score(Node node) {
        double[] embedding = VectorIndexes.embedding(node, embeddingProperty);
        return embedding == null ? 0.0 : VectorIndexes.cosine(query, embedding);
    }
}
