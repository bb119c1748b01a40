package grasp.plan;

import grasp.schema.GraphSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Types the intermediate variables of a plan. A hop's {@code source_type}/{@code target_type} types its end
 * directly; otherwise a variable's candidates are the labels that the hop's relation connects (in either
 * direction) to the already typed other end, intersected over all such hops. Repeats until nothing changes,
 * so chains of intermediates are typed outward from the anchors and the target.
 */
final class TypeInference {

    private final List<Plan.Hop> hops;
    private final GraphSchema schema;
    private final Map<String, String> types;
    private final List<String> errors = new ArrayList<>();

    /** {@code types} holds the anchors' and the target's labels and receives the inferred ones. */
    TypeInference(List<Plan.Hop> hops, GraphSchema schema, Map<String, String> types) {
        this.hops = hops;
        this.schema = schema;
        this.types = types;
    }

    List<String> infer() {
        Map<String, String> hints = hints();
        boolean changed = true;
        while (changed) {
            changed = false;
            for (String var : untyped()) {
                Set<String> candidates = hints.containsKey(var) ? Set.of(hints.get(var)) : candidates(var);
                if (candidates != null && candidates.size() == 1) {
                    types.put(var, candidates.iterator().next());
                    changed = true;
                }
            }
        }
        for (String var : untyped()) {
            reportUntyped(var, candidates(var));
        }
        return errors;
    }

    private Map<String, String> hints() {
        Map<String, String> hints = new LinkedHashMap<>();
        for (int i = 0; i < hops.size(); i++) {
            Plan.Hop hop = hops.get(i);
            hint(hints, hop.source(), hop.sourceType(), "hops[" + i + "].source_type");
            hint(hints, hop.target(), hop.targetType(), "hops[" + i + "].target_type");
        }
        return hints;
    }

    private void hint(Map<String, String> hints, String var, String label, String where) {
        if (label == null) {
            return;
        }
        String known = types.containsKey(var) ? types.get(var) : hints.get(var);
        if (known != null && !known.equals(label)) {
            errors.add(where + " " + PlanValidator.quote(label) + " contradicts the type " + PlanValidator.quote(known)
                    + " already given to variable " + PlanValidator.quote(var));
        }
        hints.putIfAbsent(var, label);
    }

    private Set<String> untyped() {
        Set<String> vars = new LinkedHashSet<>();
        for (Plan.Hop hop : hops) {
            for (String var : List.of(hop.source(), hop.target())) {
                if (!types.containsKey(var)) {
                    vars.add(var);
                }
            }
        }
        return vars;
    }

    /** Labels allowed by every hop whose other end is typed; null when no such hop exists yet. */
    private Set<String> candidates(String var) {
        Set<String> candidates = null;
        for (Plan.Hop hop : hops) {
            String other = hop.source().equals(var) ? hop.target() : hop.target().equals(var) ? hop.source() : null;
            if (other == null || !types.containsKey(other)) {
                continue;
            }
            Set<String> connected = new TreeSet<>();
            for (String label : schema.labelCounts().keySet()) {
                boolean varIsSource = hop.source().equals(var);
                String sourceLabel = varIsSource ? label : types.get(other);
                String targetLabel = varIsSource ? types.get(other) : label;
                if (edgeCount(schema, hop, sourceLabel, targetLabel) > 0) {
                    connected.add(label);
                }
            }
            if (candidates == null) {
                candidates = connected;
            } else {
                candidates.retainAll(connected);
            }
        }
        return candidates;
    }

    /** Edges that can realise {@code hop} between a {@code sourceLabel} and a {@code targetLabel} node, in its direction. */
    static long edgeCount(GraphSchema schema, Plan.Hop hop, String sourceLabel, String targetLabel) {
        return switch (hop.direction()) {
            case Plan.Hop.OUT -> schema.directedCount(sourceLabel, hop.relation(), targetLabel);
            case Plan.Hop.IN -> schema.directedCount(targetLabel, hop.relation(), sourceLabel);
            default -> schema.undirectedCount(sourceLabel, hop.relation(), targetLabel);
        };
    }

    private void reportUntyped(String var, Set<String> candidates) {
        String name = PlanValidator.quote(var);
        if (candidates == null) {
            errors.add("intermediate variable " + name + " cannot be typed: none of its hops reaches a typed variable");
        } else if (candidates.isEmpty()) {
            errors.add("intermediate variable " + name + " cannot be typed: no label is connected by all of its hops");
        } else {
            errors.add("intermediate variable " + name + " is ambiguous: it could be any of " + candidates
                    + "; give the hop a \"target_type\" or \"source_type\"");
        }
    }
}
