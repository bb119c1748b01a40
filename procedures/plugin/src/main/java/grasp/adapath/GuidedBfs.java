package grasp.adapath;

import grasp.link.VectorIndexes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterable;
import org.neo4j.procedure.TerminationGuard;

/**
 * Beam search from topic nodes. Guided: step d keeps only neighbours reached over the meta-path's d-th relation
 * type, in its direction, carrying its d-th label; unguided: any relation, either way. Every partial path is
 * scored by the mean cosine between the query vector and its nodes' embeddings (the topic excluded: it is the
 * same for all), and only the {@code beamWidth} best survive a depth. Paths are loopless. Reads are bounded per
 * node ({@code maxExpansion}), per call ({@code maxVisits}) and in time ({@code timeoutMs}); hitting a bound
 * stops the search and marks the results truncated instead of failing.
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

    private final double[] query;
    private final BfsConfig config;
    private final TerminationGuard guard;
    private final long deadline;
    private long visits;
    private boolean truncated;

    GuidedBfs(double[] query, BfsConfig config, TerminationGuard guard) {
        this.query = query;
        this.config = config;
        this.guard = guard;
        this.deadline = System.nanoTime() + config.timeoutMs() * 1_000_000L;
    }

    boolean truncated() {
        return truncated;
    }

    List<Found> guided(List<Node> topics, MetaPathSpec spec) {
        List<Partial> frontier = starts(topics, Label.label(spec.labels().get(0)));
        for (int depth = 0; depth < spec.hops() && !frontier.isEmpty(); depth++) {
            RelationshipType type = RelationshipType.withName(spec.relations().get(depth));
            Direction direction = spec.outgoing().get(depth) ? Direction.OUTGOING : Direction.INCOMING;
            Label label = Label.label(spec.labels().get(depth + 1));
            List<Partial> next = new ArrayList<>();
            for (Partial partial : frontier) {
                if (!expand(partial, direction, type, label, next)) {
                    break;
                }
            }
            frontier = best(next);
            if (truncated && depth < spec.hops() - 1) {
                return List.of(); // stopped short of the meta-path's end: no complete path to offer
            }
        }
        String signature = spec.signature();
        return frontier.stream().map(partial -> new Found(partial, signature)).toList();
    }

    List<Found> unguided(List<Node> topics) {
        List<Found> found = new ArrayList<>();
        List<Partial> frontier = starts(topics, null);
        for (int depth = 0; depth < config.maxDepth() && !frontier.isEmpty() && !truncated; depth++) {
            List<Partial> next = new ArrayList<>();
            for (Partial partial : frontier) {
                if (!expand(partial, Direction.BOTH, null, null, next)) {
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
    private boolean expand(Partial partial, Direction direction, RelationshipType type, Label label, List<Partial> next) {
        Node last = partial.last();
        Set<String> onPath = new HashSet<>();
        partial.nodes().forEach(node -> onPath.add(node.getElementId()));
        long read = 0;
        try (ResourceIterable<Relationship> relationships =
                     type == null ? last.getRelationships(direction) : last.getRelationships(direction, type)) {
            for (Relationship relationship : relationships) {
                if (++read > config.maxExpansion()) {
                    break;
                }
                if (++visits > config.maxVisits() || System.nanoTime() > deadline) {
                    truncated = true;
                    return false;
                }
                if ((visits & 1023) == 0) {
                    guard.check();
                }
                Node other = relationship.getOtherNode(last);
                if ((label != null && !other.hasLabel(label)) || onPath.contains(other.getElementId())) {
                    continue;
                }
                next.add(partial.extend(other, relationship, score(other)));
            }
        }
        return true;
    }

    private double score(Node node) {
        double[] embedding = VectorIndexes.embedding(node, config.embeddingProperty());
        return embedding == null ? 0.0 : VectorIndexes.cosine(query, embedding);
    }

    private List<Partial> best(List<Partial> candidates) {
        return candidates.stream().sorted(BEST_FIRST).limit(config.beamWidth()).toList();
    }
}
