package grasp.plan;

import grasp.link.VectorIndexes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;

/**
 * Dense relevance of candidate targets: cosine(relevance vector, node.doc_embedding).
 *
 * <p>Rule: with at most {@code exactLimit} candidates the cosine is computed exactly in Java from each node's
 * {@code doc_embedding} (0 for a node without one). With more, the target label's doc vector index is asked for
 * its top {@code indexTopN} nodes and intersected with the candidates; a candidate outside that top-N gets the
 * N-th best cosine (an upper bound on its own) when the index returned N hits, else 0 (it has no embedding).
 * Index cosines are approximate (the index is quantized); exact ones are not.
 */
final class DenseRescorer {

    private final Transaction tx;
    private final String label;
    private final double[] relevance;
    private final ExecuteConfig config;

    DenseRescorer(Transaction tx, String label, double[] relevance, ExecuteConfig config) {
        this.tx = tx;
        this.label = label;
        this.relevance = relevance;
        this.config = config;
    }

    /** Dense score per candidate node's element id. */
    Map<String, Double> score(List<Node> candidates) {
        return candidates.size() <= config.exactLimit() ? exact(candidates) : throughIndex(candidates);
    }

    private Map<String, Double> exact(List<Node> candidates) {
        Map<String, Double> scores = new HashMap<>();
        for (Node node : candidates) {
            scores.put(node.getElementId(), cosine(node));
        }
        return scores;
    }

    private Map<String, Double> throughIndex(List<Node> candidates) {
        List<VectorIndexes.Hit> hits = VectorIndexes.query(tx, label, "doc", config.indexTopN(), relevance);
        Map<String, Double> top = new HashMap<>();
        hits.forEach(hit -> top.put(hit.node().getElementId(), hit.cosine()));
        double floor = hits.size() >= config.indexTopN() ? hits.get(hits.size() - 1).cosine() : 0.0;
        Map<String, Double> scores = new HashMap<>();
        for (Node node : candidates) {
            scores.put(node.getElementId(), top.getOrDefault(node.getElementId(), floor));
        }
        return scores;
    }

    private double cosine(Node node) {
        double[] embedding = VectorIndexes.embedding(node, "doc_embedding");
        if (embedding == null) {
            return 0.0;
        }
        if (embedding.length != relevance.length) {
            throw new IllegalArgumentException("relevanceVector has " + relevance.length + " dimensions but doc_embedding of "
                    + label + " node " + node.getProperty("id", node.getElementId()) + " has " + embedding.length);
        }
        return VectorIndexes.cosine(relevance, embedding);
    }
}
