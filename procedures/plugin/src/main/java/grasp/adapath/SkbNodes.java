package grasp.adapath;

import grasp.cypher.CypherIdentifier;
import grasp.schema.Bookkeeping;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.IndexDefinition;
import org.neo4j.graphdb.schema.IndexType;
import org.neo4j.graphdb.schema.Schema;
import org.neo4j.values.storable.Value;
import org.neo4j.values.storable.Values;

/**
 * SKB nodes by their SKB id (the {@code id} property), and how the adapath procedures report a node. Ids are
 * unique per label, not across labels, so an id without a label is looked up under every label in use, except
 * grasp's own bookkeeping labels ({@code GraspMeta}, {@code AdaPath*}) and labels whose names fail
 * {@link CypherIdentifier#PATTERN} (no SKB has them): a Path-Bank query's id must never pass for an SKB node.
 *
 * <p>Lookups run under the call's {@link CallBudget}: a long id list times many labels is a lot of work, and it
 * comes before the first expansion. A label with an online range index on {@code id} (a loaded SKB's id
 * constraint) is read by one index seek per id, each remembered for the rest of the call; a label without one by
 * a single scan of its nodes for all the ids at once, never one scan per id. A spent budget stops the lookups with
 * the nodes found so far.
 */
final class SkbNodes {

    private record Seek(String label, Object id) {}

    private final Transaction tx;
    private final CallBudget budget;
    private final Map<String, Boolean> indexed = new HashMap<>();
    private final Map<Seek, List<Node>> seeks = new HashMap<>();
    private List<Label> skbLabels; // read once per call, on first need

    SkbNodes(Transaction tx, CallBudget budget) {
        this.tx = tx;
        this.budget = budget;
    }

    /**
     * The nodes with one of {@code ids} (strings or numbers), under {@code label}, or under every SKB label when it
     * is null; in the order of {@code ids}. Fewer when the budget ran out (then {@link CallBudget#spent()}).
     */
    List<Node> byIds(List<?> ids, String label) {
        List<Label> labels = label != null ? List.of(Label.label(label)) : skbLabels();
        Map<String, Map<Value, List<Node>>> scanned = new HashMap<>();
        for (Label candidate : labels) {
            if (!indexed(candidate)) {
                scanned.put(candidate.name(), scan(candidate, ids));
            }
        }
        List<Node> nodes = new ArrayList<>();
        for (Object id : ids) {
            for (Label candidate : labels) {
                Map<Value, List<Node>> byValue = scanned.get(candidate.name());
                List<Node> found = byValue != null ? byValue.getOrDefault(Values.of(id), List.of()) : seek(candidate, id);
                if (found == null) {
                    return nodes; // the budget is spent
                }
                nodes.addAll(found);
            }
        }
        return nodes;
    }

    /** One index seek, or its remembered answer; null once the budget is spent. */
    private List<Node> seek(Label label, Object id) {
        Seek key = new Seek(label.name(), id);
        List<Node> known = seeks.get(key);
        if (known != null || !budget.step()) {
            return known;
        }
        List<Node> found = new ArrayList<>(1);
        try (ResourceIterator<Node> matches = tx.findNodes(label, "id", id)) {
            matches.forEachRemaining(found::add);
        }
        seeks.put(key, found);
        return found;
    }

    /** The label's nodes whose id is one of {@code ids}, by id value (Cypher's equality: 1 = 1.0), in one pass. */
    private Map<Value, List<Node>> scan(Label label, List<?> ids) {
        Set<Value> wanted = new HashSet<>();
        ids.forEach(id -> wanted.add(Values.of(id)));
        Map<Value, List<Node>> found = new HashMap<>();
        try (ResourceIterator<Node> nodes = tx.findNodes(label)) {
            while (budget.step() && nodes.hasNext()) {
                Node node = nodes.next();
                Object id = node.getProperty("id", null);
                if (id != null && wanted.contains(Values.of(id))) {
                    found.computeIfAbsent(Values.of(id), value -> new ArrayList<>()).add(node);
                }
            }
        }
        return found;
    }

    /** True when the label has an online range index on exactly {@code id}, so findNodes seeks instead of scanning. */
    private boolean indexed(Label label) {
        return indexed.computeIfAbsent(label.name(), name -> {
            Schema schema = tx.schema();
            for (IndexDefinition index : schema.getIndexes(label)) {
                Iterator<String> keys = index.getPropertyKeys().iterator();
                if (index.getIndexType() == IndexType.RANGE && !index.isMultiTokenIndex() && keys.hasNext()
                        && keys.next().equals("id") && !keys.hasNext()
                        && schema.getIndexState(index) == Schema.IndexState.ONLINE) {
                    return true;
                }
            }
            return false;
        });
    }

    private List<Label> skbLabels() {
        if (skbLabels == null) {
            skbLabels = new ArrayList<>();
            for (Label label : tx.getAllLabelsInUse()) {
                if (!Bookkeeping.isLabel(label.name()) && CypherIdentifier.isValid(label.name())) {
                    skbLabels.add(label);
                }
            }
        }
        return skbLabels;
    }

    /** The node's SKB id; its element id when it has none. */
    static Object id(Node node) {
        return node.getProperty("id", node.getElementId());
    }

    static String name(Node node) {
        return String.valueOf(node.getProperty("name", ""));
    }

    /** The node's first label ("" without one): SKB nodes carry exactly one. */
    static String firstLabel(Node node) {
        Iterator<Label> labels = node.getLabels().iterator();
        return labels.hasNext() ? labels.next().name() : "";
    }
}
