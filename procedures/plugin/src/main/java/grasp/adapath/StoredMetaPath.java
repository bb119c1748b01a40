package grasp.adapath;

import java.util.ArrayList;
import java.util.List;
import org.neo4j.graphdb.Node;

/**
 * An {@code AdaPathMetaPath} node as the bank's {@code write_query} statement stores it: signature, labels,
 * relations, outgoing (arrays), hops, start_label, answer_label, and support (set by {@code refresh_support};
 * 0 before). Fields the writer always sets fall back to what the lists imply, so an older node still reads.
 */
record StoredMetaPath(String signature, List<String> labels, List<String> relations, List<Boolean> outgoing,
                      long hops, String startLabel, String answerLabel, long support) {

    static StoredMetaPath read(Node node) {
        List<String> labels = strings(node.getProperty("labels", null));
        List<String> relations = strings(node.getProperty("relations", null));
        List<Boolean> outgoing = booleans(node.getProperty("outgoing", null));
        Object hops = node.getProperty("hops", null);
        Object support = node.getProperty("support", null);
        Object start = node.getProperty("start_label", null);
        Object answer = node.getProperty("answer_label", null);
        return new StoredMetaPath(
                String.valueOf(node.getProperty("signature", "")),
                labels, relations, outgoing,
                hops instanceof Number number ? number.longValue() : relations.size(),
                start != null ? start.toString() : labels.isEmpty() ? null : labels.get(0),
                answer != null ? answer.toString() : labels.isEmpty() ? null : labels.get(labels.size() - 1),
                support instanceof Number number ? number.longValue() : 0L);
    }

    private static List<String> strings(Object value) {
        List<String> out = new ArrayList<>();
        if (value instanceof String[] array) {
            out.addAll(List.of(array));
        } else if (value instanceof List<?> list) {
            list.forEach(item -> out.add(String.valueOf(item)));
        }
        return out;
    }

    private static List<Boolean> booleans(Object value) {
        List<Boolean> out = new ArrayList<>();
        if (value instanceof boolean[] array) {
            for (boolean item : array) {
                out.add(item);
            }
        } else if (value instanceof List<?> list) {
            list.forEach(item -> out.add(Boolean.TRUE.equals(item)));
        }
        return out;
    }
}
