package grasp.link;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.IndexDefinition;
import org.neo4j.graphdb.schema.IndexSetting;
import org.neo4j.graphdb.schema.IndexType;
import org.neo4j.graphdb.schema.Schema;

/**
 * The per-label cosine vector indexes {@code grasp_<label lowercased>_<name|doc>} (the rule the Python loader
 * uses) and queries against them. Neo4j scores a cosine hit as (1 + cos) / 2; {@link Hit#cosine} is the cosine.
 * Neo4j 5.26 creates vector indexes with scalar quantization enabled by default, so index scores are approximate
 * (a true cosine of 0.6 can come back as 0.64); {@link #nearest} therefore re-ranks by the exact cosine.
 */
public final class VectorIndexes {

    /** A node returned by an index query, with its cosine similarity to the query vector. */
    public record Hit(Node node, double cosine) {}

    private static final String QUERY =
            "CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score RETURN node, score";

    /**
     * The fewest candidates asked of an index. Neo4j's HNSW search explores about as many nodes as it is asked
     * for, and with few it misses even a node's own vector. Own name vectors not among the index's candidates
     * (600 sampled per type): HPO phenotypes 10 of 12 candidates, 4 of 26, none of 50; the geo SKB's 3,235 US
     * counties (names alike: "X County") 67 of 12, 4 of 50, none of 100 ({@code grasp bench link-recall} reads
     * what linking returns).
     */
    public static final long MIN_CANDIDATES = 100;

    private VectorIndexes() {}

    /** How many candidates to ask the index for when {@code k} are wanted: 2k + 10, and never fewer than
     * {@link #MIN_CANDIDATES}. */
    public static long candidates(long k) {
        return Math.max(2 * k + 10, MIN_CANDIDATES);
    }

    public static String name(String label, String mode) {
        return "grasp_" + label.toLowerCase(Locale.ROOT) + "_" + mode;
    }

    /**
     * Top-{@code k} nodes by exact cosine to the node's {@code <mode>_embedding}: asks the index for
     * {@link #candidates} (its search is approximate), recomputes each cosine exactly, keeps the best k.
     */
    public static List<Hit> nearest(Transaction tx, String label, String mode, long k, double[] vector) {
        return nearest(tx, label, mode, k, candidates(k), vector);
    }

    /** {@link #nearest} out of {@code asked} index candidates. */
    public static List<Hit> nearest(Transaction tx, String label, String mode, long k, long asked, double[] vector) {
        List<Hit> exact = new ArrayList<>();
        for (Hit hit : query(tx, label, mode, asked, vector)) {
            double[] embedding = embedding(hit.node(), mode + "_embedding");
            exact.add(embedding == null ? hit : new Hit(hit.node(), cosine(vector, embedding)));
        }
        exact.sort(Comparator.comparingDouble(Hit::cosine).reversed());
        return exact.subList(0, (int) Math.min(k, exact.size()));
    }

    /** Top-{@code k} nodes of {@code label} by the index's (approximate) cosine to {@code vector}, best first. */
    public static List<Hit> query(Transaction tx, String label, String mode, long k, double[] vector) {
        String index = name(label, mode);
        int dimension = dimension(tx, index);
        if (vector.length != dimension) {
            throw new IllegalArgumentException("vector has " + vector.length + " dimensions but index '" + index
                    + "' holds " + dimension + "-dimensional embeddings");
        }
        List<Double> boxed = new ArrayList<>(vector.length);
        for (double value : vector) {
            boxed.add(value);
        }
        List<Hit> hits = new ArrayList<>();
        try (Result rows = tx.execute(QUERY, Map.of("index", index, "k", k, "vector", boxed))) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                hits.add(new Hit((Node) row.get("node"), 2.0 * ((Number) row.get("score")).doubleValue() - 1.0));
            }
        }
        return hits;
    }

    /** What the schema says of a vector index: its state (null when absent), its dimension, every vector index. */
    public record Lookup(Schema.IndexState state, int dimension, TreeSet<String> vectorIndexes) {}

    /** The one scan of the schema for a vector index; callers word their own errors from the lookup. */
    public static Lookup lookup(Transaction tx, String index) {
        Schema schema = tx.schema();
        TreeSet<String> vectorIndexes = new TreeSet<>();
        Lookup found = null;
        for (IndexDefinition definition : schema.getIndexes()) {
            if (definition.getIndexType() != IndexType.VECTOR) {
                continue;
            }
            vectorIndexes.add(definition.getName());
            if (definition.getName().equals(index)) {
                Object dimension = definition.getIndexConfiguration().get(IndexSetting.vector_Dimensions());
                found = new Lookup(schema.getIndexState(definition), ((Number) dimension).intValue(), vectorIndexes);
            }
        }
        return found != null ? found : new Lookup(null, 0, vectorIndexes);
    }

    /** Dimension of an ONLINE vector index; a clear error when it is missing, not a vector index, or not online. */
    static int dimension(Transaction tx, String index) {
        Lookup found = lookup(tx, index);
        if (found.state() == null) {
            throw new IllegalArgumentException("vector index '" + index + "' does not exist; existing vector indexes: "
                    + found.vectorIndexes() + " (`grasp load` creates them)");
        }
        if (found.state() != Schema.IndexState.ONLINE) {
            throw new IllegalArgumentException("vector index '" + index + "' is " + found.state()
                    + ", not ONLINE; wait with db.awaitIndexes()");
        }
        return found.dimension();
    }

    /** A node's embedding property as doubles; null when the node has none. */
    public static double[] embedding(Node node, String property) {
        Object value = node.getProperty(property, null);
        if (value == null) {
            return null;
        }
        if (value instanceof float[] floats) {
            double[] out = new double[floats.length];
            for (int i = 0; i < floats.length; i++) {
                out[i] = floats[i];
            }
            return out;
        }
        if (value instanceof double[] doubles) {
            return doubles;
        }
        throw new IllegalArgumentException(property + " must be a float array; got " + value.getClass().getSimpleName());
    }

    /** Exact cosine; 0 when either vector is all zeros. Dimensions must match. */
    public static double cosine(double[] a, double[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("vector has " + a.length + " dimensions but the embedding has " + b.length);
        }
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0.0 : dot / Math.sqrt(na * nb);
    }

    /** A LIST&lt;FLOAT&gt; parameter as doubles; rejects empty lists, non-numbers and non-finite values. */
    public static double[] toVector(List<?> values, String what) {
        if (values == null || values.isEmpty()) {
            throw new IllegalArgumentException(what + " must be a non-empty LIST<FLOAT>; got " + values);
        }
        double[] vector = new double[values.size()];
        for (int i = 0; i < vector.length; i++) {
            Object value = values.get(i);
            if (!(value instanceof Number number) || !Double.isFinite(number.doubleValue())) {
                throw new IllegalArgumentException(what + "[" + i + "] must be a finite number; got " + value);
            }
            vector[i] = number.doubleValue();
        }
        return vector;
    }
}
