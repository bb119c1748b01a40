package grasp.adapath;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Node;

/**
 * One step of an externally driven search ({@code adapath.expand}): every frontier path's last node is expanded
 * once with {@link Expander} (the routine {@code adapath.bfs} uses), and the best neighbours over the whole
 * frontier are kept. The caller (an LLM scorer between depths) owns the beam; this class only proposes. The cut
 * happens while candidates come in ({@link TopK}: per path, then over the frontier), so the step holds O(limit)
 * candidates however large the frontier and its fan-out.
 */
final class FrontierStep {

    /** A neighbour of frontier path {@code path}'s last node; {@code nodeId} and {@code relationshipId} are their element ids. */
    record Candidate(int path, Node from, Expander.Neighbour neighbour, String nodeId, String relationshipId) {
        Candidate(int path, Node from, Expander.Neighbour neighbour) {
            this(path, from, neighbour, neighbour.node().getElementId(), neighbour.relationship().getElementId());
        }
    }

    record Outcome(List<Candidate> candidates, boolean truncated) {}

    // Ties broken by path, then node, then relationship, so equal scores come back in a stable order.
    private static final Comparator<Candidate> BEST_FIRST = Comparator
            .comparingDouble((Candidate c) -> c.neighbour().score()).reversed()
            .thenComparingInt(Candidate::path)
            .thenComparing(Candidate::nodeId)
            .thenComparing(Candidate::relationshipId);

    private final SkbNodes nodes;
    private final Expander expander;
    private final ExpandConfig config;
    private int peakHeld;

    FrontierStep(SkbNodes nodes, Expander expander, ExpandConfig config) {
        this.nodes = nodes;
        this.expander = expander;
        this.config = config;
    }

    /**
     * The {@code frontier} argument: a list of maps, each with a non-empty {@code nodeIds} list of SKB ids
     * (strings or numbers). Other keys in an entry are ignored, so a caller may carry its own bookkeeping.
     */
    static List<List<Object>> parseFrontier(List<Map<String, Object>> frontier) {
        if (frontier == null) {
            throw new IllegalArgumentException("frontier must be a list of maps {nodeIds: [SKB ids, topic first]}; got null");
        }
        List<List<Object>> paths = new ArrayList<>();
        for (int i = 0; i < frontier.size(); i++) {
            String where = "frontier[" + i + "].nodeIds";
            Object ids = frontier.get(i) == null ? null : frontier.get(i).get("nodeIds");
            if (!(ids instanceof List<?> list) || list.isEmpty()
                    || list.stream().anyMatch(id -> !(id instanceof String || id instanceof Number))) {
                throw new IllegalArgumentException(where + " must be a non-empty list of SKB ids (strings or numbers), "
                        + "the node to expand last; got " + ids);
            }
            paths.add(List.copyOf(list));
        }
        return paths;
    }

    Outcome expand(List<List<Object>> frontier, Step step) {
        TopK<Candidate> kept = new TopK<>(config.limit(), BEST_FIRST);
        boolean going = true;
        for (int path = 0; path < frontier.size() && going && !expander.truncated(); path++) {
            List<Object> ids = frontier.get(path);
            List<Node> lasts = nodes.byIds(ids.subList(ids.size() - 1, ids.size()), null);
            if (lasts.isEmpty()) {
                continue; // an unknown id, or the budget is spent (the loop ends below)
            }
            // Every node the path already visits, under any label, so no candidate revisits one of them.
            List<Node> onPath = new ArrayList<>(nodes.byIds(ids.subList(0, ids.size() - 1), null));
            if (expander.truncated()) {
                break; // the lookups spent the budget: onPath may be incomplete, so nothing from here is safe
            }
            onPath.addAll(lasts);
            PathBest best = new PathBest(config.perPath() > 0 ? Math.min(config.perPath(), config.limit()) : config.limit());
            for (Node from : lasts) {
                int index = path;
                going = expander.expand(from, onPath, step, neighbour -> best.offer(new Candidate(index, from, neighbour)));
                peakHeld = Math.max(peakHeld, kept.size() + best.size());
                if (!going) {
                    break;
                }
            }
            best.candidates().forEach(kept::offer);
        }
        return new Outcome(kept.best(), expander.truncated());
    }

    /** The most candidates the step held at once so far (at most limit + the per-path cap, whatever the fan-out). */
    int peakHeld() {
        return peakHeld;
    }

    /**
     * One frontier path's best candidates, one per neighbour (a second relationship to the same node is the same
     * extension; the first by BEST_FIRST stands for it), at most {@code cap}.
     */
    private static final class PathBest {
        private final TopK<Candidate> kept;
        private final Map<String, Candidate> byNode = new HashMap<>();

        PathBest(long cap) {
            kept = new TopK<>(cap, BEST_FIRST);
        }

        void offer(Candidate candidate) {
            Candidate twin = byNode.get(candidate.nodeId());
            if (twin != null) {
                if (BEST_FIRST.compare(candidate, twin) < 0) { // same node and score: the smaller relationship id
                    kept.remove(twin);
                    kept.offer(candidate);
                    byNode.put(candidate.nodeId(), candidate);
                }
                return;
            }
            Candidate out = kept.offer(candidate);
            if (out != candidate) {
                byNode.put(candidate.nodeId(), candidate);
            }
            if (out != null && out != candidate) {
                byNode.remove(out.nodeId());
            }
        }

        int size() {
            return kept.size();
        }

        List<Candidate> candidates() {
            return kept.best();
        }
    }
}
