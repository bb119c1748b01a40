package grasp.adapath;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;

/**
 * Beam search from topic nodes. Guided: step d keeps only neighbours reached over the meta-path's d-th relation
 * type, in its direction, carrying its d-th label; unguided: any relation, either way. Every partial path is
 * scored by the mean cosine between the query vector and its nodes' embeddings (the topic excluded: it is the
 * same for all), and only the {@code beamWidth} best survive a depth. The beam is cut while a depth is extended
 * ({@link TopK}), so a depth holds at most {@code beamWidth} extensions whatever the fan-out, and only those that
 * survive become paths. Paths are loopless. Each step is one {@link Expander} call (shared with
 * {@code adapath.expand}), bounded per node ({@code maxExpansion}) and by the call's {@link CallBudget}
 * ({@code maxVisits}, {@code timeoutMs}); a spent budget stops the search and marks the results truncated instead
 * of failing.
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

    /**
     * A partial path's one-hop extension, before the beam decides on it; {@code order} (the offer's rank) breaks
     * ties the way a stable sort of all extensions would.
     */
    private record Extension(Partial from, Expander.Neighbour neighbour, double score, String lastId, long order) {
        Partial path() {
            return from.extend(neighbour.node(), neighbour.relationship(), neighbour.score());
        }
    }

    private static final Comparator<Extension> BEST_FIRST = Comparator.comparingDouble(Extension::score).reversed()
            .thenComparing(Extension::lastId).thenComparingLong(Extension::order);

    private final BfsConfig config;
    private final Expander expander;
    private int peakHeld; // the most extensions one depth held at once: at most beamWidth

    GuidedBfs(double[] query, BfsConfig config, CallBudget budget) {
        this.config = config;
        this.expander = new Expander(query, config.embeddingProperty(), config.maxExpansion(), budget);
    }

    boolean truncated() {
        return expander.truncated();
    }

    /** The most extensions any depth held at once so far (bounded by beamWidth, whatever the fan-out). */
    int peakHeld() {
        return peakHeld;
    }

    List<Found> guided(List<Node> topics, MetaPathSpec spec) {
        List<Partial> frontier = starts(topics, Label.label(spec.labels().get(0)));
        for (int depth = 0; depth < spec.hops() && !frontier.isEmpty(); depth++) {
            frontier = extend(frontier, spec.step(depth));
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
            frontier = extend(frontier, Step.ANY);
            frontier.forEach(partial -> found.add(new Found(partial, "unguided")));
        }
        return found;
    }

    private List<Partial> starts(List<Node> topics, Label label) {
        return topics.stream().filter(node -> label == null || node.hasLabel(label))
                .map(node -> new Partial(List.of(node), List.of(), 0.0)).toList();
    }

    /** The next depth: the beamWidth best one-hop extensions of {@code frontier}, best first. */
    private List<Partial> extend(List<Partial> frontier, Step step) {
        TopK<Extension> beam = new TopK<>(config.beamWidth(), BEST_FIRST);
        long[] offered = {0};
        for (Partial partial : frontier) {
            int hops = partial.relationships().size() + 1;
            boolean going = expander.expand(partial.last(), partial.nodes(), step, neighbour -> beam.offer(new Extension(
                    partial, neighbour, (partial.scoreSum() + neighbour.score()) / hops,
                    neighbour.node().getElementId(), offered[0]++)));
            peakHeld = Math.max(peakHeld, beam.size());
            if (!going) {
                break;
            }
        }
        return beam.best().stream().map(Extension::path).toList();
    }
}
