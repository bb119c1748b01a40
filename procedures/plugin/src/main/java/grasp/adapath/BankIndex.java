package grasp.adapath;

import grasp.link.VectorIndexes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.Schema;

/**
 * The Path-Bank's vector index over its queries' embeddings. Checked before each query so that a bank never
 * built, one still populating, or one built with another embedder's dimension gives a clear error rather than
 * Neo4j's generic one (or nothing).
 */
final class BankIndex {

    /** A bank query and the index's score for it, (1 + cos) / 2 (the vote it casts). */
    record Hit(Node query, double score) {}

    private static final String QUERY =
            "CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score RETURN node, score";

    private BankIndex() {}

    /** The {@code k} bank queries nearest {@code vector}, best first, as the index ranks them (out of at least
     * {@link VectorIndexes#MIN_CANDIDATES}, as its search is approximate). */
    static List<Hit> nearest(Transaction tx, String index, long k, double[] vector) {
        int dimension = dimension(tx, index);
        if (vector.length != dimension) {
            throw new IllegalArgumentException("queryVector has " + vector.length + " dimensions but the Path-Bank index '"
                    + index + "' holds " + dimension + "-dimensional embeddings (was the bank built with another embedder?)");
        }
        List<Double> boxed = new ArrayList<>(vector.length);
        for (double value : vector) {
            boxed.add(value);
        }
        List<Hit> hits = new ArrayList<>();
        long asked = Math.max(k, VectorIndexes.MIN_CANDIDATES);
        try (Result rows = tx.execute(QUERY, Map.of("index", index, "k", asked, "vector", boxed))) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                hits.add(new Hit((Node) row.get("node"), ((Number) row.get("score")).doubleValue()));
            }
        }
        hits.sort(Comparator.comparingDouble(Hit::score).reversed());
        return hits.subList(0, (int) Math.min(k, hits.size()));
    }

    private static int dimension(Transaction tx, String index) {
        VectorIndexes.Lookup found = VectorIndexes.lookup(tx, index);
        if (found.state() == null) {
            throw new IllegalArgumentException("the Path-Bank has not been built: vector index '" + index + "' does not "
                    + "exist (build the bank with `grasp adapath build-bank`); existing vector indexes: "
                    + found.vectorIndexes());
        }
        if (found.state() != Schema.IndexState.ONLINE) {
            throw new IllegalArgumentException("the Path-Bank index '" + index + "' is " + found.state()
                    + ", not ONLINE; wait with db.awaitIndexes()");
        }
        return found.dimension();
    }
}
