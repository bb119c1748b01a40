package grasp.adapath;

import grasp.cypher.CypherIdentifier;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.RelationshipType;

/**
 * One expansion step: which relationships of a node to walk and which neighbours to keep. A null type walks
 * every type; a null label keeps every neighbour. {@link #ANY} is the unguided step.
 */
record Step(Direction direction, RelationshipType type, Label label) {

    static final Step ANY = new Step(Direction.BOTH, null, null);

    private static final Set<String> KEYS = Set.of("relation", "outgoing", "label");

    /**
     * The {@code step} argument of {@code adapath.expand}: {relation, outgoing, label}, all three required (a
     * guided step is exactly one meta-path hop), or null for {@link #ANY}.
     */
    static Step parse(Map<String, Object> map) {
        if (map == null) {
            return ANY;
        }
        for (String key : map.keySet()) {
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException("unknown step key '" + key + "'; a step is {relation: 'TYPE', "
                        + "outgoing: true|false, label: 'Label'} (all three), or null for an unguided step; allowed: "
                        + new TreeSet<>(KEYS));
            }
        }
        if (!map.keySet().containsAll(KEYS)) {
            TreeSet<String> missing = new TreeSet<>(KEYS);
            missing.removeAll(map.keySet());
            throw new IllegalArgumentException("step lacks " + missing + "; a step is {relation: 'TYPE', outgoing: "
                    + "true|false, label: 'Label'} (all three), or null for an unguided step");
        }
        if (!(map.get("outgoing") instanceof Boolean outgoing)) {
            throw new IllegalArgumentException("step.outgoing must be a boolean; got " + map.get("outgoing"));
        }
        return new Step(outgoing ? Direction.OUTGOING : Direction.INCOMING,
                RelationshipType.withName(CypherIdentifier.check(map.get("relation"), "step.relation")),
                Label.label(CypherIdentifier.check(map.get("label"), "step.label")));
    }
}
