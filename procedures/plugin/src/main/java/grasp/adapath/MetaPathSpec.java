package grasp.adapath;

import grasp.cypher.CypherIdentifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;

/**
 * One meta-path as {@code adapath.bfs} takes it, in the shape the Path-Bank stores and returns: {@code labels}
 * (hops + 1 node labels, the first the topic's), {@code relations} and {@code outgoing} (one per hop: walk the
 * stored direction or against it). Every label and relation type must be a plain name ({@link CypherIdentifier}).
 */
record MetaPathSpec(List<String> labels, List<String> relations, List<Boolean> outgoing) {

    static MetaPathSpec parse(Map<String, Object> map, int position) {
        String where = "metaPaths[" + position + "]";
        List<String> labels = strings(map.get("labels"), where + ".labels");
        List<String> relations = strings(map.get("relations"), where + ".relations");
        Object rawOutgoing = map.get("outgoing");
        if (!(rawOutgoing instanceof List<?> directions) || directions.stream().anyMatch(d -> !(d instanceof Boolean))) {
            throw new IllegalArgumentException(where + ".outgoing must be a list of booleans; got " + rawOutgoing);
        }
        List<Boolean> outgoing = new ArrayList<>();
        directions.forEach(d -> outgoing.add((Boolean) d));
        if (relations.isEmpty() || relations.size() > BfsConfig.MAX_DEPTH || labels.size() != relations.size() + 1
                || outgoing.size() != relations.size()) {
            throw new IllegalArgumentException(where + " needs 1-" + BfsConfig.MAX_DEPTH + " relations, one label more "
                    + "and one direction per relation; got labels " + labels + ", relations " + relations + ", outgoing " + outgoing);
        }
        return new MetaPathSpec(labels, relations, outgoing);
    }

    private static List<String> strings(Object value, String what) {
        if (!(value instanceof List<?> list) || list.stream().anyMatch(item -> !(item instanceof String s) || s.isBlank())) {
            throw new IllegalArgumentException(what + " must be a list of non-empty strings; got " + value);
        }
        for (int i = 0; i < list.size(); i++) {
            CypherIdentifier.check(list.get(i), what + "[" + i + "]");
        }
        return list.stream().map(String.class::cast).toList();
    }

    /** Hop {@code depth} (0-based) as an expansion step. */
    Step step(int depth) {
        return new Step(outgoing.get(depth) ? Direction.OUTGOING : Direction.INCOMING,
                RelationshipType.withName(relations.get(depth)), Label.label(labels.get(depth + 1)));
    }

    int hops() {
        return relations.size();
    }

    String signature() {
        StringBuilder text = new StringBuilder("(:").append(labels.get(0)).append(")");
        for (int i = 0; i < relations.size(); i++) {
            text.append(outgoing.get(i) ? "-[:" + relations.get(i) + "]->" : "<-[:" + relations.get(i) + "]-");
            text.append("(:").append(labels.get(i + 1)).append(")");
        }
        return text.toString();
    }
}
