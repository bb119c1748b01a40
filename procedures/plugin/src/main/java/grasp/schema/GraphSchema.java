package grasp.schema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a graph contains: labels and relationship types with counts, and for every relationship type
 * the (source label, target label) pairs that actually occur. Only names matching
 * {@link grasp.cypher.CypherIdentifier#PATTERN} are usable; labels and types that occur but fail it are kept
 * apart, with their counts, in {@code unusableLabels} and {@code unusableRelationshipTypes}, so that no check
 * against the schema (and hence no Cypher text) can ever accept them. Immutable; safe to share through a cache.
 */
public record GraphSchema(
        Map<String, Long> labelCounts, Map<String, Long> relationshipTypeCounts, List<Pattern> patterns,
        Map<String, Long> unusableLabels, Map<String, Long> unusableRelationshipTypes) {

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
        unusableLabels = Map.copyOf(unusableLabels);
        unusableRelationshipTypes = Map.copyOf(unusableRelationshipTypes);
    }

    /** A schema without unusable names. */
    public GraphSchema(Map<String, Long> labelCounts, Map<String, Long> relationshipTypeCounts, List<Pattern> patterns) {
        this(labelCounts, relationshipTypeCounts, patterns, Map.of(), Map.of());
    }

    /** True for a usable label that occurs; false for null, an unusable name, or one that does not occur. */
    public boolean hasLabel(String label) {
        return label != null && labelCounts.containsKey(label);
    }

    /** True for a usable relationship type that occurs; false for null, an unusable name, or one that does not occur. */
    public boolean hasRelationshipType(String type) {
        return type != null && relationshipTypeCounts.containsKey(type);
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

    /** Unusable names, labels first, each {kind: 'label'|'relationshipType', name, count}, sorted by name. */
    public List<Map<String, Object>> unusableAsMaps() {
        List<Map<String, Object>> maps = new ArrayList<>();
        for (Map.Entry<String, Map<String, Long>> kind : List.of(Map.entry("label", unusableLabels),
                Map.entry("relationshipType", unusableRelationshipTypes))) {
            for (String name : new TreeSet<>(kind.getValue().keySet())) {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put("kind", kind.getKey());
                map.put("name", name);
                map.put("count", kind.getValue().get(name));
                maps.add(map);
            }
        }
        return maps;
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
