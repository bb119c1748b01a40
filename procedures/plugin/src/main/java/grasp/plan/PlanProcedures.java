package grasp.plan;

import grasp.config.ConfigValues;
import grasp.cypher.CypherIdentifier;
import grasp.link.VectorIndexes;
import grasp.schema.GraphSchema;
import grasp.schema.SchemaCache;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;

/** {@code grasp.plan.validate}, {@code grasp.plan.compile}, {@code grasp.plan.execute}; logic in plain classes. */
public final class PlanProcedures {

    /** Rows per page the compiled query returns; the caller may change $limit in the returned params. */
    static final long COMPILED_LIMIT = 100;

    @Context
    public GraphDatabaseService db;

    @Context
    public Transaction tx;

    public static final class ValidationResult {
        @Description("True when the plan can be compiled.")
        public final boolean valid;

        @Description("One message per problem, naming the bad value and what is allowed.")
        public final List<String> errors;

        @Description("Problems that do not stop the plan, e.g. an anchor without text.")
        public final List<String> warnings;

        ValidationResult(PlanValidator.Validation validation) {
            this.valid = validation.valid();
            this.errors = validation.errors();
            this.warnings = validation.warnings();
        }
    }

    public static final class CompileResult {
        @Description("One Cypher query: columns nodeId, name, labels, anchorScore, witness; best anchor score per target.")
        public final String query;

        @Description("Its parameters: bindings_<var> per anchor, types (variable -> label) and limit.")
        public final Map<String, Object> params;

        CompileResult(String query, Map<String, Object> params) {
            this.query = query;
            this.params = params;
        }
    }

    public static final class ExecuteResult {
        @Description("The target node's `id` property.")
        public final Object nodeId;

        @Description("The target node's `name` property.")
        public final String name;

        @Description("Best sum of anchor cosines over the plan's paths to this node.")
        public final double anchorScore;

        @Description("Cosine of relevanceVector and the node's doc_embedding; 0 without relevanceVector. With an order: "
                + "the node's place by the quantity, 1 for the first, 0 without a value.")
        public final double denseScore;

        @Description("anchorScore + denseWeight x denseScore (with an order: anchorScore + 0.001 x denseScore); rows are "
                + "ordered by it, ties by nodeId.")
        public final double score;

        @Description("Per anchor, its best path to the node: [{var, id, name, label}, {type, direction: '->'|'<-'}, ...].")
        public final List<Object> witness;

        @Description("False when no node matched the whole plan and this one matches part of it (config relaxBelow): "
                + "anchorScore is then the specificity-weighted share of the anchors it satisfies, times their count.")
        public final boolean exact;

        ExecuteResult(PlanExecutor.Row row) {
            this.nodeId = row.nodeId();
            this.name = row.name();
            this.anchorScore = row.anchorScore();
            this.denseScore = row.denseScore();
            this.score = row.score();
            this.witness = row.witness();
            this.exact = row.exact();
        }
    }

    @Procedure(name = "grasp.plan.validate", mode = Mode.READ)
    @Description("grasp.plan.validate(planJson) - checks a plan against the graph schema (types, relations, undirected "
            + "hops, variable binding, connectivity, enums). Every type and relation must match " + CypherIdentifier.RULE
            + " before it is looked up in the graph. Never fails on a bad plan (malformed JSON, wrong JSON types, "
            + "missing fields included): problems are returned as errors.")
    public Stream<ValidationResult> validate(
            @Name(value = "planJson", description = "The plan: {anchors, hops, target, relevance_text, n_cand, risk, order}; "
                    + "order {property, descending} ranks the targets by a quantity they hold.")
                    String planJson) {
        return Stream.of(new ValidationResult(PlanValidator.validate(planJson, SchemaCache.get(db, tx))));
    }

    @Procedure(name = "grasp.plan.compile", mode = Mode.READ)
    @Description("grasp.plan.compile(planJson, bindings = {}) - the single Cypher query a valid plan runs, with its "
            + "parameters, ready to paste into Neo4j Browser. Fails with the validation errors for an invalid plan; "
            + "every name in the query matches " + CypherIdentifier.RULE + ". It ranks by anchor score: a plan's order "
            + "(a quantity) and dense rescoring are applied by grasp.plan.execute.")
    public Stream<CompileResult> compile(
            @Name(value = "planJson", description = "The plan JSON.") String planJson,
            @Name(value = "bindings", defaultValue = "{}", description = "Anchor variable -> list of {id, score} candidate nodes.")
                    Map<String, Object> bindings) {
        GraphSchema schema = SchemaCache.get(db, tx);
        PlanValidator.Validation validation = PlanValidator.validate(planJson, schema);
        PlanCompiler compiler = new PlanCompiler(validation);
        Map<String, Object> params = new LinkedHashMap<>();
        if (compiler.needsVectorIndexOnly()) {
            params.put("index", VectorIndexes.name(validation.plan().target().type(), "doc"));
            params.put("relevanceVector", null);
        } else {
            params.putAll(compiler.parameters(checkBindings(bindings, compiler.anchorVars())));
        }
        params.put("limit", COMPILED_LIMIT);
        return Stream.of(new CompileResult(compiler.fullQuery(), params));
    }

    @Procedure(name = "grasp.plan.execute", mode = Mode.READ)
    @Description("grasp.plan.execute(planJson, anchorVectors, relevanceVector = null, limit = 100, config = {}) - "
            + "validates, links each anchor by its vector (or, without one, by exact name; or takes its candidates as "
            + "given, a list of {id, score}), runs the compiled query "
            + "within a row and time budget, adds denseWeight x cosine(relevanceVector, doc_embedding) and returns the "
            + "top rows by score. limit: 1.." + PlanExecutor.MAX_LIMIT + ". config: k, tau, maxRows (200000, at most "
            + ConfigValues.MAX_ROWS + "), timeoutMs (5000, at most " + ConfigValues.MAX_TIMEOUT_MS + "), denseWeight "
            + "(1.0), exactLimit (20000, at most " + ConfigValues.MAX_ROWS + ": exact dense scores up to this many "
            + "candidates, else the doc vector index), indexTopN (10000, at most 100000), relaxBelow (1: with fewer whole-plan "
            + "matches than this, rank targets by the share of the plan they match, each anchor alone, weighted by its "
            + "specificity, bindings widened to hierarchy neighbours; 0 never), hierarchyDiscount (0.8, in [0, 1]: a parent "
            + "term's share), descendantCredit (1.0, in [0, 1]: a child term's share); "
            + "a value out of range is refused, "
            + "not clamped. Runs in the caller's transaction (it sees uncommitted writes); past timeoutMs the call fails with "
            + "'plan exceeded the time budget' and that transaction is terminated.")
    public Stream<ExecuteResult> execute(
            @Name(value = "planJson", description = "The plan JSON.") String planJson,
            @Name(value = "anchorVectors", description = "Anchor variable -> embedding of its text (LIST<FLOAT>), or its candidate nodes as a list of {id, score}.")
                    Map<String, Object> anchorVectors,
            @Name(value = "relevanceVector", defaultValue = "null", description = "Embedding of relevance_text, or null.")
                    List<Double> relevanceVector,
            @Name(value = "limit", defaultValue = "100", description = "Most rows returned, 1.." + PlanExecutor.MAX_LIMIT + ".")
                    long limit,
            @Name(value = "config", defaultValue = "{}", description = "Overrides: k, tau, maxRows, timeoutMs, denseWeight, exactLimit, indexTopN, relaxBelow, hierarchyDiscount, descendantCredit.")
                    Map<String, Object> config) {
        PlanExecutor executor = new PlanExecutor(tx, SchemaCache.get(db, tx), ExecuteConfig.parse(config));
        return executor.execute(planJson, anchorVectors, relevanceVector, limit).stream().map(ExecuteResult::new);
    }

    private static Map<String, List<Map<String, Object>>> checkBindings(Map<String, Object> bindings, List<String> anchors) {
        Map<String, List<Map<String, Object>>> checked = new LinkedHashMap<>();
        for (Map.Entry<String, Object> entry : (bindings == null ? Map.<String, Object>of() : bindings).entrySet()) {
            String where = "bindings." + entry.getKey();
            if (!anchors.contains(entry.getKey())) {
                throw new IllegalArgumentException(where + " is not an anchor variable; anchors: " + anchors);
            }
            List<Map<String, Object>> rows = AnchorBindings.check(where, entry.getValue());
            checked.put(entry.getKey(), rows);
        }
        return checked;
    }
}
