package grasp.link;

import grasp.cypher.CypherIdentifier;
import grasp.schema.SchemaCache;
import java.util.stream.Stream;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;

/** {@code grasp.link(...)}; the logic lives in {@link AnchorLinker}. */
public final class LinkProcedures {

    @Context
    public GraphDatabaseService db;

    @Context
    public Transaction tx;

    public static final class LinkResult {
        @Description("The node's `id` property (string or integer).")
        public final Object nodeId;

        @Description("The node's `name` property.")
        public final String name;

        @Description("Cosine similarity in [-1, 1] (not the index's (1 + cos) / 2); 1.0 for an exact name match.")
        public final double score;

        @Description("Number of relationships of the node, any type and direction.")
        public final long degree;

        LinkResult(AnchorLinker.Binding binding) {
            this.nodeId = binding.id();
            this.name = binding.name();
            this.score = binding.score();
            this.degree = binding.degree();
        }
    }

    @Procedure(name = "grasp.link", mode = Mode.READ)
    @Description("grasp.link(input, label, mode = 'name', k = -1, tau = -1.0, candidates = -1) - candidate nodes for one "
            + "mention. A LIST<FLOAT> input queries the vector index grasp_<label>_<mode> (out of `candidates`, default "
            + "max(2k + 10, 100), as its search is approximate) and keeps the top k whose cosine >= "
            + "tau x best (defaults k=5, tau=0.95 for name, k=10, tau=0.90 for doc); a STRING input (fallback: no "
            + "embedder in the server) matches `name` exactly, case-insensitively, with score 1.0. label must match "
            + CypherIdentifier.RULE + " and occur in the graph; any other label is refused.")
    public Stream<LinkResult> link(
            @Name(value = "input", description = "The mention's embedding (LIST<FLOAT>) or its text (STRING).") Object input,
            @Name(value = "label", description = "Node label to link to, e.g. 'Phenotype'; a name matching "
                    + CypherIdentifier.RULE + ".") String label,
            @Name(value = "mode", defaultValue = "name", description = "'name' or 'doc': which embedding to compare.")
                    String mode,
            @Name(value = "k", defaultValue = "-1", description = "Most candidates, 1..1000; negative for the mode's default.")
                    long k,
            @Name(value = "tau", defaultValue = "-1.0", description = "Keep cosine >= tau x best, tau in [0, 1]; negative for the mode's default.")
                    double tau,
            @Name(value = "candidates", defaultValue = "-1", description = "Index candidates searched, 1..10000 (at "
                    + "least k); negative for max(2k + 10, 100). Fewer are faster and may miss an exact name.")
                    long candidates) {
        AnchorLinker.Settings settings = AnchorLinker.Settings.of(mode, k, tau, candidates);
        return new AnchorLinker(tx, SchemaCache.get(db, tx)).link(input, label, mode, settings).stream().map(LinkResult::new);
    }
}
