package grasp.adapath;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.neo4j.graphdb.Node;

/**
 * One step of an externally driven search ({@code adapath.expand}): every frontier path's last node is expanded
 * once with {@link Expander} (the routine {@code adapath.bfs} uses), and the best neighbours over the whole
 * frontier are kept. The caller (an LLM scorer between depths) owns the beam; this class only proposes.
 */
final class FrontierStep {

    /** A neighbour of frontier path {@code path}'s last node. */
    record Candidate(int path, Node from, Expander.Neighbour neighbour) {}

    record Outcome(List<Candidate> candidates, boolean truncated) {}

    // Ties broken by path, then node, then relationship, so equal scores come back in a stable order.
    private static final Comparator<Candidate> BEST_FIRST = Comparator
            .comparingDouble((Candidate c) -> c.neighbour().score()).reversed()
            .thenComparingInt(Candidate::path)
            .thenComparing(c -> c.neighbour().node().getElementId())
            .thenComparing(c -> c.neighbour().relationship().getElementId());

    private final SkbNodes nodes;
    private final Expander expander;
    private final ExpandConfig config;

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
        List<Candidate> found = new ArrayList<>();
        boolean going = true;
        for (int path = 0; path < frontier.size() && going; path++) {
            List<Object> ids = frontier.get(path);
            List<Node> lasts = nodes.byIds(ids.subList(ids.size() - 1, ids.size()), null);
            if (lasts.isEmpty()) {
                continue; // an unknown id: nothing to expand
            }
            // Every node the path already visits, under any label, so no candidate revisits one of them.
            List<Node> onPath = new ArrayList<>(nodes.byIds(ids.subList(0, ids.size() - 1), null));
            onPath.addAll(lasts);
            for (Node from : lasts) {
                int index = path;
                going = expander.expand(from, onPath, step, neighbour -> found.add(new Candidate(index, from, neighbour)));
                if (!going) {
                    break;
                }
            }
        }
        return new Outcome(best(found), expander.truncated());
    }

    /** The best {@code limit} candidates, one per (path, node), at most {@code perPath} per path (0: no cap). */
    private List<Candidate> best(List<Candidate> found) {
        found.sort(BEST_FIRST);
        List<Candidate> kept = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Map<Integer, Long> perPath = new HashMap<>();
        for (Candidate candidate : found) {
            if (kept.size() >= config.limit()) {
                break;
            }
            if (!seen.add(candidate.path() + "/" + candidate.neighbour().node().getElementId())) {
                continue; // the same extension over a second relationship: one row per extended path
            }
            if (config.perPath() > 0 && perPath.getOrDefault(candidate.path(), 0L) >= config.perPath()) {
                continue;
            }
            perPath.merge(candidate.path(), 1L, Long::sum);
            kept.add(candidate);
        }
        return kept;
    }
}
