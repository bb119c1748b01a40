package grasp.schema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a graph contains: labels and relationship types with counts, and for every relationship type
 * the (source label, target label) pairs that actually occur. Immutable; safe to share through a cache.
 */
public record GraphSchema(
        Map<String, Long> labelCounts, Map<String, Long> relationshipTypeCounts, List<Pattern> patterns) {

    /** One occurring (source)-[type]->(target) combination, in stored direction. */
    public record Pattern(String source, String type, String target, long count) {
        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("source", source);
            map.put("type", type);
            map.put("target", target);
            map.put("count", count);
            return map;
        }
    }

    public GraphSchema {
        labelCounts = Map.copyOf(labelCounts);
        relationshipTypeCounts = Map.copyOf(relationshipTypeCounts);
        patterns = List.copyOf(patterns);
    }

    public boolean hasLabel(String label) {
        return labelCounts.containsKey(label);
    }

    public boolean hasRelationshipType(String type) {
        return relationshipTypeCounts.containsKey(type);
    }

    /** Edges of {@code type} between the two labels, counted in both stored directions. */
    public long undirectedCount(String labelA, String type, String labelB) {
        long total = 0;
        for (Pattern p : patterns) {
            if (!p.type().equals(type)) {
                continue;
            }
            boolean forward = p.source().equals(labelA) && p.target().equals(labelB);
            boolean backward = p.source().equals(labelB) && p.target().equals(labelA);
            if (forward || backward) {
                total += p.count();
            }
        }
        return total;
    }

    /** Edges of {@code type} stored from a {@code source} node to a {@code target} node. */
    public long directedCount(String source, String type, String target) {
        long total = 0;
        for (Pattern p : patterns) {
            if (p.type().equals(type) && p.source().equals(source) && p.target().equals(target)) {
                total += p.count();
            }
        }
        return total;
    }

    /** Label pairs that {@code type} connects, written for error messages, e.g. {@code (:A)-(:B)}. */
    public Set<String> describeConnections(String type) {
        Set<String> pairs = new TreeSet<>();
        for (Pattern p : patterns) {
            if (p.type().equals(type)) {
                pairs.add("(:" + p.source() + ")-(:" + p.target() + ")");
            }
        }
        return pairs;
    }

    public List<Map<String, Object>> labelsAsMaps() {
        return countsAsMaps(labelCounts, "label");
    }

    public List<Map<String, Object>> relationshipTypesAsMaps() {
        return countsAsMaps(relationshipTypeCounts, "type");
    }

    public List<Map<String, Object>> patternsAsMaps() {
        List<Map<String, Object>> maps = new ArrayList<>(patterns.size());
        for (Pattern p : patterns) {
            maps.add(p.toMap());
        }
        return maps;
    }

    private static List<Map<String, Object>> countsAsMaps(Map<String, Long> counts, String key) {
        List<Map<String, Object>> maps = new ArrayList<>();
        for (String name : new TreeSet<>(counts.keySet())) {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put(key, name);
            map.put("count", counts.get(name));
            maps.add(map);
        }
        return maps;
    }
}
