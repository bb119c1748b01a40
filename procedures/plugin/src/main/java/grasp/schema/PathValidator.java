package grasp.schema;

import grasp.cypher.CypherIdentifier;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Checks a typed path (labels interleaved with relationship types) against what the graph contains. Every name
 * must first match {@link CypherIdentifier#PATTERN}; one that does not is reported as such, even if it occurs.
 */
public final class PathValidator {

    /** Outcome of a check: every problem found, and the undirected edge count of each hop (0 if unknown). */
    public record Outcome(List<String> errors, List<Long> hopCounts) {
        public boolean valid() {
            return errors.isEmpty();
        }
    }

    private final GraphSchema schema;

    public PathValidator(GraphSchema schema) {
        this.schema = schema;
    }

    public Outcome validate(List<String> labels, List<String> relTypes) {
        List<String> errors = new ArrayList<>();
        List<Long> hopCounts = new ArrayList<>();
        if (labels == null || labels.isEmpty()) {
            errors.add("labels must name at least one node label; got none");
            return new Outcome(errors, hopCounts);
        }
        List<String> types = relTypes == null ? List.of() : relTypes;
        if (types.size() != labels.size() - 1) {
            errors.add("a path with " + labels.size() + " labels needs " + (labels.size() - 1)
                    + " relationship types; got " + types.size());
            return new Outcome(errors, hopCounts);
        }
        for (int i = 0; i < labels.size(); i++) {
            checkLabel(labels.get(i), i, errors);
        }
        for (int i = 0; i < types.size(); i++) {
            hopCounts.add(checkHop(labels.get(i), types.get(i), labels.get(i + 1), i, errors));
        }
        return new Outcome(errors, hopCounts);
    }

    private void checkLabel(String label, int position, List<String> errors) {
        String badName = CypherIdentifier.problem(label, "label at position " + position);
        if (badName != null) {
            errors.add(badName);
        } else if (!schema.hasLabel(label)) {
            errors.add("label " + quote(label) + " at position " + position + " does not occur in the graph; known labels: "
                    + new TreeSet<>(schema.labelCounts().keySet()));
        }
    }

    private long checkHop(String from, String type, String to, int hop, List<String> errors) {
        String badName = CypherIdentifier.problem(type, "hop " + hop + ": relationship type");
        if (badName != null) {
            errors.add(badName);
            return 0;
        }
        if (!schema.hasRelationshipType(type)) {
            errors.add("hop " + hop + ": relationship type " + quote(type) + " does not occur in the graph; known types: "
                    + new TreeSet<>(schema.relationshipTypeCounts().keySet()));
            return 0;
        }
        if (!schema.hasLabel(from) || !schema.hasLabel(to)) {
            return 0; // already reported as an unknown label
        }
        long count = schema.undirectedCount(from, type, to);
        if (count == 0) {
            errors.add("hop " + hop + ": (:" + from + ")-[:" + type + "]-(:" + to + ") does not occur in either direction; "
                    + type + " connects " + schema.describeConnections(type));
        }
        return count;
    }

    private static String quote(String value) {
        return value == null ? "null" : "'" + value + "'";
    }
}
