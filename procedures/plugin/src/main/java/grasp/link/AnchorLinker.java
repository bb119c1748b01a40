package grasp.link;

import grasp.cypher.CypherIdentifier;
import grasp.schema.GraphSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

/**
 * Candidate bindings for one mention. A vector is looked up in the label's name or doc vector index and
 * re-ranked by exact cosine ({@link VectorIndexes#nearest}): the top-k hits whose cosine is at least tau × the best cosine are kept (for a negative best cosine the bar is
 * best − (1 − tau)·|best|). The server has no embedder, so a string falls back to an exact, case-insensitive
 * match on {@code name} with score 1.0. The label must match {@link CypherIdentifier#PATTERN} and occur in the graph.
 */
public final class AnchorLinker {

    /** One candidate node for a mention, with its cosine (1.0 for an exact name match) and degree. */
    public record Binding(Node node, Object id, String name, double score, long degree) {
        public Map<String, Object> toParameter() {
            return Map.of("id", id, "score", score);
        }
    }

    /**
     * Resolved k, tau and the index candidates searched ({@link VectorIndexes#candidates}); negative arguments
     * select the defaults. A caller scanning many spans for typos and paraphrases may search fewer candidates
     * (faster, and it may miss an exact name the name dictionary finds anyway); linking a mention keeps the floor.
     */
    public record Settings(long k, double tau, long candidates) {
        public static final long MAX_K = 1000;
        public static final long MAX_CANDIDATES = 10_000;

        public static Settings of(String mode, long k, double tau) {
            return of(mode, k, tau, -1);
        }

        public static Settings of(String mode, long k, double tau, long candidates) {
            checkMode(mode);
            boolean name = mode.equals("name");
            long resolvedK = k < 0 ? (name ? 5 : 10) : k;
            double resolvedTau = tau < 0 ? (name ? 0.95 : 0.90) : tau;
            if (resolvedK < 1 || resolvedK > MAX_K) {
                throw new IllegalArgumentException("k must be between 1 and " + MAX_K + " (or negative for the default); got " + k);
            }
            if (!(resolvedTau <= 1.0)) {
                throw new IllegalArgumentException("tau must be in [0, 1] (or negative for the default); got " + tau);
            }
            if (candidates == 0 || candidates > MAX_CANDIDATES) {
                throw new IllegalArgumentException("candidates must be between 1 and " + MAX_CANDIDATES
                        + " (or negative for the default); got " + candidates);
            }
            long searched = candidates < 0 ? VectorIndexes.candidates(resolvedK) : Math.max(candidates, resolvedK);
            return new Settings(resolvedK, resolvedTau, searched);
        }
    }

    private static final List<String> MODES = List.of("name", "doc");

    private final Transaction tx;
    private final GraphSchema schema;

    public AnchorLinker(Transaction tx, GraphSchema schema) {
        this.tx = tx;
        this.schema = schema;
    }

    /** {@code input} is a LIST&lt;FLOAT&gt; (vector index) or a STRING (exact name fallback). */
    public List<Binding> link(Object input, String label, String mode, Settings settings) {
        checkLabel(label);
        checkMode(mode);
        if (input instanceof List<?> list) {
            return byVector(label, mode, VectorIndexes.toVector(list, "input"), settings);
        }
        if (input instanceof String text) {
            return byText(label, text, settings);
        }
        throw new IllegalArgumentException("input must be a LIST<FLOAT> (an embedding) or a STRING (a name); got "
                + (input == null ? "null" : input.getClass().getSimpleName()));
    }

    public List<Binding> byVector(String label, String mode, double[] vector, Settings settings) {
        checkLabel(label);
        List<VectorIndexes.Hit> hits = VectorIndexes.nearest(tx, label, mode, settings.k(), settings.candidates(), vector);
        List<Binding> bindings = new ArrayList<>();
        if (hits.isEmpty()) {
            return bindings;
        }
        double best = hits.get(0).cosine();
        double bar = best - (1.0 - settings.tau()) * Math.abs(best);
        for (VectorIndexes.Hit hit : hits) {
            if (hit.cosine() >= bar) {
                bindings.add(binding(hit.node(), hit.cosine()));
            }
        }
        return bindings;
    }

    public List<Binding> byText(String label, String text, Settings settings) {
        checkLabel(label);
        String query = "MATCH (n:" + CypherIdentifier.quote(label) + ") WHERE toLower(n.name) = toLower($text) "
                + "RETURN n ORDER BY n.id LIMIT $k";
        List<Binding> bindings = new ArrayList<>();
        try (Result rows = tx.execute(query, Map.of("text", text, "k", settings.k()))) {
            while (rows.hasNext()) {
                bindings.add(binding((Node) rows.next().get("n"), 1.0));
            }
        }
        return bindings;
    }

    private static Binding binding(Node node, double score) {
        Object name = node.getProperty("name", null);
        return new Binding(node, node.getProperty("id", null), name == null ? null : name.toString(), score,
                node.getDegree());
    }

    /** The label must be a plain name ({@link CypherIdentifier}) before it is even looked up, then occur in the graph. */
    private void checkLabel(String label) {
        CypherIdentifier.check(label, "label");
        if (!schema.hasLabel(label)) {
            throw new IllegalArgumentException("label '" + label + "' does not occur in the graph; known labels: "
                    + new TreeSet<>(schema.labelCounts().keySet()));
        }
    }

    static void checkMode(String mode) {
        if (!MODES.contains(mode)) {
            throw new IllegalArgumentException("mode '" + mode + "' is not allowed; allowed: " + MODES);
        }
    }
}
