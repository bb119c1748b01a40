package grasp.adapath;

import grasp.config.ConfigValues;
import grasp.cypher.CypherIdentifier;
import grasp.link.VectorIndexes;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/**
 * {@code adapath.expand}: one guided (or unguided) step of a path search whose beam lives in the caller, so a
 * scorer (an LLM) can rank the frontier between depths; the logic is in FrontierStep and Expander.
 */
public final class ExpandProcedures {

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard;

    public static final class ExpandResult {
        @Description("Index of the frontier path this candidate extends (0-based).")
        public final long path;

        @Description("The SKB id of the expanded node (the frontier path's last).")
        public final Object fromId;

        @Description("The SKB id (the `id` property) of the neighbour.")
        public final Object nodeId;

        @Description("The neighbour's name.")
        public final String name;

        @Description("The neighbour's label (its first).")
        public final String label;

        @Description("The relationship type walked.")
        public final String relation;

        @Description("True when the step walked the relationship's stored direction (from -> neighbour).")
        public final boolean outgoing;

        @Description("Cosine of the query vector and the neighbour's embedding; 0.0 when it has none.")
        public final double score;

        @Description("True when a budget (maxVisits, timeoutMs) stopped the step, or its id lookups, early: the "
                + "candidates are incomplete.")
        public final boolean truncated;

        ExpandResult(FrontierStep.Candidate candidate, boolean truncated) {
            Node from = candidate.from();
            Node node = candidate.neighbour().node();
            Relationship relationship = candidate.neighbour().relationship();
            this.path = candidate.path();
            this.fromId = SkbNodes.id(from);
            this.nodeId = SkbNodes.id(node);
            this.name = SkbNodes.name(node);
            this.label = SkbNodes.firstLabel(node);
            this.relation = relationship.getType().name();
            this.outgoing = relationship.getStartNode().equals(from);
            this.score = candidate.neighbour().score();
            this.truncated = truncated;
        }
    }

    @Procedure(name = "adapath.expand", mode = Mode.READ)
    @Description("adapath.expand(frontier, step, queryVector, config) - one step of a path search: for each frontier "
            + "path ({nodeIds: [SKB ids, topic first]}) the neighbours of its last node over step ({relation, outgoing, "
            + "label}; null: any relation, either direction, any label) that are not on the path, scored by cosine to "
            + "queryVector; the best over the whole frontier. config: maxExpansion (2000, per node), maxVisits (500000, at "
            + "most " + ConfigValues.MAX_VISITS + "), timeoutMs (2000, at most " + ConfigValues.MAX_TIMEOUT_MS + "; the id "
            + "lookups count), limit "
            + "(50), perPath (0 = no cap), embeddingProperty ('doc_embedding'); out-of-range values are refused. The "
            + "step's relation and label and embeddingProperty must match " + CypherIdentifier.RULE + ". Rows: path, "
            + "fromId, nodeId, name, label, relation, outgoing, score, truncated.")
    public Stream<ExpandResult> expand(
            @Name(value = "frontier", description = "Partial paths, each {nodeIds: [SKB ids, topic first]}; the last id "
                    + "is expanded, the others keep the path loopless.") List<Map<String, Object>> frontier,
            @Name(value = "step", description = "{relation: 'TYPE', outgoing: true|false, label: 'Label'}, or null for "
                    + "an unguided step.") Map<String, Object> step,
            @Name(value = "queryVector", description = "The question's embedding.") List<Double> queryVector,
            @Name(value = "config", defaultValue = "{}", description = "Budgets and limits; see the procedure's "
                    + "description.") Map<String, Object> config) {
        ExpandConfig parsed = ExpandConfig.parse(config);
        Step parsedStep = Step.parse(step);
        double[] query = VectorIndexes.toVector(queryVector, "queryVector");
        List<List<Object>> paths = FrontierStep.parseFrontier(frontier);
        CallBudget budget = new CallBudget(parsed.maxVisits(), parsed.timeoutMs(), guard);
        Expander expander = new Expander(query, parsed.embeddingProperty(), parsed.maxExpansion(), budget);
        FrontierStep.Outcome outcome = new FrontierStep(new SkbNodes(tx, budget), expander, parsed).expand(paths, parsedStep);
        return outcome.candidates().stream().map(candidate -> new ExpandResult(candidate, outcome.truncated()));
    }
}
