package grasp.plan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The hops of a plan seen as an undirected graph over variables, walked breadth-first from the target.
 * Plans must be trees rooted at the target: then every anchor has exactly one path to the target, best scores
 * decompose over branches, and the witness of an anchor is that path.
 */
final class PlanTree {

    private final List<Plan.Hop> hops;
    private final String root;
    private final Map<String, List<Integer>> hopsByVar = new LinkedHashMap<>();
    private final Map<String, Integer> parentHop = new LinkedHashMap<>();
    private final Map<String, Integer> depth = new LinkedHashMap<>();
    private final Set<Integer> cycleHops = new LinkedHashSet<>();

    PlanTree(List<Plan.Hop> hops, String root) {
        this.hops = hops;
        this.root = root;
        for (int i = 0; i < hops.size(); i++) {
            hopsByVar.computeIfAbsent(hops.get(i).source(), v -> new ArrayList<>()).add(i);
            hopsByVar.computeIfAbsent(hops.get(i).target(), v -> new ArrayList<>()).add(i);
        }
        walk();
    }

    private void walk() {
        Deque<String> queue = new ArrayDeque<>();
        depth.put(root, 0);
        queue.add(root);
        Set<Integer> used = new LinkedHashSet<>();
        while (!queue.isEmpty()) {
            String var = queue.poll();
            for (int hop : hopsByVar.getOrDefault(var, List.of())) {
                if (!used.add(hop)) {
                    continue;
                }
                String other = other(hop, var);
                if (depth.containsKey(other)) {
                    cycleHops.add(hop);
                    continue;
                }
                depth.put(other, depth.get(var) + 1);
                parentHop.put(other, hop);
                queue.add(other);
            }
        }
    }

    /** The variable at the other end of hop {@code index} from {@code var}. */
    String other(int index, String var) {
        Plan.Hop hop = hops.get(index);
        return hop.source().equals(var) ? hop.target() : hop.source();
    }

    Set<String> vars() {
        return hopsByVar.keySet();
    }

    boolean reachable(String var) {
        return depth.containsKey(var);
    }

    int depth(String var) {
        return depth.getOrDefault(var, -1);
    }

    Set<Integer> cycleHops() {
        return cycleHops;
    }

    int degree(String var) {
        return hopsByVar.getOrDefault(var, List.of()).size();
    }

    /** Index of the hop from {@code var} towards the root; -1 for the root itself. */
    int parentHop(String var) {
        return parentHop.getOrDefault(var, -1);
    }

    String parent(String var) {
        int hop = parentHop(var);
        return hop < 0 ? null : other(hop, var);
    }

    /** Variables one hop further from the root than {@code var}, in hop order. */
    List<String> children(String var) {
        List<String> children = new ArrayList<>();
        for (int hop : hopsByVar.getOrDefault(var, List.of())) {
            String other = other(hop, var);
            if (parentHop(other) == hop) {
                children.add(other);
            }
        }
        return children;
    }

    /** {@code var}, its parent, ..., the root. */
    List<String> pathToRoot(String var) {
        List<String> path = new ArrayList<>();
        for (String v = var; v != null; v = parent(v)) {
            path.add(v);
        }
        return path;
    }

    /** {@code var} and every variable below it. */
    List<String> subtree(String var) {
        List<String> all = new ArrayList<>();
        all.add(var);
        for (int i = 0; i < all.size(); i++) {
            all.addAll(children(all.get(i)));
        }
        return all;
    }
}
