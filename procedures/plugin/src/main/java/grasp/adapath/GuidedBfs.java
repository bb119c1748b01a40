package grasp.adapath;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.procedure.TerminationGuard;

/**
 * Beam search from topic nodes. Guided: step d keeps only neighbours reached over the meta-path's d-th relation
 * type, in its direction, carrying its d-th label; unguided: any relation, either way. Every partial path is
 * scored by the mean cosine between the query vector and its nodes' embeddings (the topic excluded: it is the
 * same for all), and only the {@code beamWidth} best survive a depth. Paths are loopless. Each step is one
 * {@link Expander} call (shared with {@code adapath.expand}), bounded per node ({@code maxExpansion}), per call
 * ({@code maxVisits}) and in time ({@code timeoutMs}); hitting a call bound stops the search and marks the
 * results truncated instead of failing.
 */
final class GuidedBfs {

    record Partial(List<Node> nodes, List<Relationship> relationships, double scoreSum) {
        double score() {
            return relationships.isEmpty() ? 0.0 : scoreSum / relationships.size();
        }

        Node last() {
            return nodes.get(nodes.size() - 1);
        }

        Partial extend(Node node, Relationship relationship, double score) {
            List<Node> nextNodes = new ArrayList<>(nodes);
            nextNodes.add(node);
            List<Relationship> nextRelationships = new ArrayList<>(relationships);
            nextRelationships.add(relationship);
            return new Partial(nextNodes, nextRelationships, scoreSum + score);
        }
    }

    record Found(Partial path, String metaPath) {}

    private static final Comparator<Partial> BEST_FIRST =
            Comparator.comparingDouble(Partial::score).reversed().thenComparing(p -> p.last().getElementId());

    private final BfsConfig config;
    private final Expander expander;

    GuidedBfs(double[] query, BfsConfig config, TerminationGuard guard) {
        this.config = config;
        this.expander = new Expander(query, config.embeddingProperty(), config.maxExpansion(), config.maxVisits(),
                config.timeoutMs(), guard);
    }

    boolean truncated() {
        return expander.truncated();
    }

    List<Found> guided(List<Node> topics, MetaPathSpec spec) {
        List<Partial> frontier = starts(topics, Label.label(spec.labels().get(0)));
        for (int depth = 0; depth < spec.hops() && !frontier.isEmpty(); depth++) {
            Step step = spec.step(depth);
            List<Partial> next = new ArrayList<>();
            for (Partial partial : frontier) {
                if (!expand(partial, step, next)) {
                    break;
                }
            }
            frontier = best(next);
            if (truncated() && depth < spec.hops() - 1) {
                return List.of(); // stopped short of the meta-path's end: no complete path to offer
            }
        }
        String signature = spec.signature();
        return frontier.stream().map(partial -> new Found(partial, signature)).toList();
    }

    List<Found> unguided(List<Node> topics) {
        List<Found> found = new ArrayList<>();
        List<Partial> frontier = starts(topics, null);
        for (int depth = 0; depth < config.maxDepth() && !frontier.isEmpty() && !truncated(); depth++) {
            List<Partial> next = new ArrayList<>();
            for (Partial partial : frontier) {
                if (!expand(partial, Step.ANY, next)) {
                    break;
                }
            }
            frontier = best(next);
            frontier.forEach(partial -> found.add(new Found(partial, "unguided")));
        }
        return found;
    }

    private List<Partial> starts(List<Node> topics, Label label) {
        return topics.stream().filter(node -> label == null || node.hasLabel(label))
                .map(node -> new Partial(List.of(node), List.of(), 0.0)).toList();
    }

    /** Adds the partial's extensions to {@code next}; false once a budget is spent. */
    private boolean expand(Partial partial, Step step, List<Partial> next) {
        return expander.expand(partial.last(), partial.nodes(), step,
                neighbour -> next.add(partial.extend(neighbour.node(), neighbour.relationship(), neighbour.score())));
    }

    private List<Partial> best(List<Partial> candidates) {
        return candidates.stream().sorted(BEST_FIRST).limit(config.beamWidth()).toList();
    }
}
