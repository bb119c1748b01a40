package grasp.adapath;

import grasp.cypher.CypherIdentifier;
import grasp.link.VectorIndexes;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/** {@code adapath.bank.metaPaths}: Path-Bank retrieval (the {@code bank_meta_paths} statement as a procedure); the logic is in BankIndex and BankVote. */
public final class BankProcedures {

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard;

    public static final class MetaPathResult {
        @Description("The meta-path's signature, e.g. (:Disease)<-[:ASSOCIATED_WITH]-(:Gene).")
        public final String signature;

        @Description("Its node labels (hops + 1), the start's first.")
        public final List<String> labels;

        @Description("Relation type per hop.")
        public final List<String> relations;

        @Description("Per hop: true when the hop walks the relationship's stored direction.")
        public final List<Boolean> outgoing;

        @Description("Number of hops.")
        public final long hops;

        @Description("The start label (the topic's type).")
        public final String startLabel;

        @Description("The end label (the answer's type).")
        public final String answerLabel;

        @Description("How many bank queries in all used the meta-path (0 when not yet counted).")
        public final long support;

        @Description("Sum of the index scores ((1 + cos) / 2) of the nearest bank queries that used it.")
        public final double vote;

        @Description("How many of the nearest bank queries used it.")
        public final long voters;

        @Description("Ids of up to 5 of those bank queries, most similar first.")
        public final List<Object> examples;

        @Description("Sum of the scores of the voters for which it was the cheapest meta-path they used.")
        public final double firstVote;

        MetaPathResult(BankVote.Ranked ranked) {
            StoredMetaPath metaPath = ranked.metaPath();
            this.signature = metaPath.signature();
            this.labels = metaPath.labels();
            this.relations = metaPath.relations();
            this.outgoing = metaPath.outgoing();
            this.hops = metaPath.hops();
            this.startLabel = metaPath.startLabel();
            this.answerLabel = metaPath.answerLabel();
            this.support = metaPath.support();
            this.vote = ranked.vote();
            this.voters = ranked.voters();
            this.examples = ranked.examples();
            this.firstVote = ranked.firstVote();
        }
    }

    @Procedure(name = "adapath.bank.metaPaths", mode = Mode.READ)
    @Description("adapath.bank.metaPaths(queryVector, config) - the Path-Bank's meta-paths for a question: each of the "
            + "config.queries (20) bank queries nearest queryVector in the vector index config.index "
            + "('adapath_query_embedding') votes with its score, (1 + cos) / 2, for every meta-path it used. Optional "
            + "filters: hops (1..3), startLabel, answerLabel (names matching " + CypherIdentifier.RULE + "); exclude (bank query ids that neither vote nor count among the nearest); "
            + "limit (5). Rows, best first (vote, support, signature): "
            + "signature, labels, relations, outgoing, hops, startLabel, answerLabel, support, vote, voters, examples, "
            + "firstVote (the vote of the queries for which it was their cheapest meta-path).")
    public Stream<MetaPathResult> metaPaths(
            @Name(value = "queryVector", description = "The question's embedding (the embedder the bank was built with).")
                    List<Double> queryVector,
            @Name(value = "config", defaultValue = "{}", description = "index, queries, limit, hops, startLabel, "
                    + "answerLabel, exclude; see the procedure's description.") Map<String, Object> config) {
        BankConfig parsed = BankConfig.parse(config);
        double[] query = VectorIndexes.toVector(queryVector, "queryVector");
        // Excluded queries must not take places among the nearest: ask for that many more, then drop them.
        List<BankIndex.Hit> hits = BankIndex.nearest(tx, parsed.index(), parsed.queries() + parsed.exclude().size(), query)
                .stream().filter(hit -> !parsed.exclude().contains(hit.query().getProperty("id", null)))
                .limit(parsed.queries()).toList();
        return BankVote.rank(hits, parsed, guard).stream().map(MetaPathResult::new);
    }
}
