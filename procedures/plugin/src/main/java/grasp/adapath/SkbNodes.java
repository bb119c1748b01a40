package grasp.adapath;

import grasp.cypher.CypherIdentifier;
import grasp.schema.Bookkeeping;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

/**
 * SKB nodes by their SKB id (the {@code id} property), and how the adapath procedures report a node. Ids are
 * unique per label, not across labels, so an id without a label is looked up under every label in use (each
 * lookup uses that label's id constraint), except grasp's own bookkeeping labels ({@code GraspMeta},
 * {@code AdaPath*}) and labels whose names fail {@link CypherIdentifier#PATTERN} (no SKB has them): a Path-Bank
 * query's id must never pass for an SKB node.
 */
final class SkbNodes {

    private final Transaction tx;
    private List<Label> skbLabels; // read once per call, on first need

    SkbNodes(Transaction tx) {
        this.tx = tx;
    }

    /** The nodes with one of {@code ids}, under {@code label}, or under every SKB label when it is null. */
    List<Node> byIds(List<?> ids, String label) {
        List<Label> labels = label != null ? List.of(Label.label(label)) : skbLabels();
        List<Node> nodes = new ArrayList<>();
        for (Object id : ids) {
            for (Label candidate : labels) {
                try (var matches = tx.findNodes(candidate, "id", id)) {
                    matches.forEachRemaining(nodes::add);
                }
            }
        }
        return nodes;
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
