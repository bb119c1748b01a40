package grasp.plan;

import grasp.link.AnchorLinker;
import grasp.link.VectorIndexes;
import grasp.schema.GraphSchema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * Runs a plan end to end: validate, link every anchor, check the row budget, run the compiled query, rescore
 * densely, keep the top {@code limit} by score (ties by id), rebuild their witnesses. Everything runs in the caller's
 * transaction, so it sees the caller's uncommitted writes and costs no second transaction. The time budget
 * ({@link TimeBudget}) terminates that transaction if the plan overruns, so a hub can never hold the server for
 * longer; the caller then gets our time-budget error, not Neo4j's, and its transaction is rolled back, as it would be
 * after any failed statement.
 */
public final class PlanExecutor {

    /** One ranked target. {@code witness} lists, per anchor, its path: node, relationship, node, ... */
    public record Row(Object nodeId, String name, double anchorScore, double denseScore, double score, List<Object> witness,
                      boolean exact) {}

    /** An ordered plan's place weight: anchor scores (rounded to 1e-6) decide first, unless within 1e-3. */
    static final double ORDER_SCALE = 1e-3;

    /** Most rows one call returns (the {@code limit} argument). */
    public static final long MAX_LIMIT = 100_000;

    private record Candidate(Node node, double anchorScore) {}

    /** {@code named}: the target's name holds the plan's name words ({@link NameTerms}); such targets rank first. */
    private record Scored(Candidate candidate, Object id, double dense, double score, boolean named) {}

    private final Transaction tx;
    private final GraphSchema schema;
    private final ExecuteConfig config;

    /** {@code tx} is the caller's transaction (the procedure's injected one). */
    public PlanExecutor(Transaction tx, GraphSchema schema, ExecuteConfig config) {
        this.tx = tx;
        this.schema = schema;
        this.config = config;
    }

    public List<Row> execute(String planJson, Map<String, Object> anchorVectors, List<?> relevanceVector, long limit) {
        PlanValidator.Validation validation = PlanValidator.validate(planJson, schema);
        if (!validation.valid()) {
            throw new IllegalArgumentException("invalid plan: " + String.join("; ", validation.errors()));
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + "; got " + limit);
        }
        double[] relevance = relevanceVector == null ? null : VectorIndexes.toVector(relevanceVector, "relevanceVector");
        Map<String, Object> vectors = anchorVectors == null ? Map.of() : anchorVectors;
        checkVectorKeys(validation.plan(), vectors);
        try (TimeBudget budget = TimeBudget.start((InternalTransaction) tx, config.timeoutMs())) {
            List<Row> rows;
            try {
                rows = run(tx, validation, vectors, relevance, limit, budget);
            } catch (RuntimeException e) {
                // The budget terminated the transaction inside Cypher (or Neo4j's own timeout did): our time budget.
                if (terminatedByTimeout(e) || (!isOurs(e) && budget.expired())) {
                    throw timeout(e);
                }
                throw e;
            }
            if (!budget.finish()) {
                throw timeout(null); // the alarm fired after the last query: the transaction is terminated all the same
            }
            return rows;
        }
    }

    /** Our own refusals (bad input, row budget, time budget) pass through unchanged. */
    private static boolean isOurs(RuntimeException e) {
        return e instanceof IllegalArgumentException || e instanceof IllegalStateException;
    }

    /** True when {@code e}, or one of its causes, is a termination of a transaction because its timeout passed. */
    private static boolean terminatedByTimeout(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof Status.HasStatus hasStatus && (hasStatus.status() == Status.Transaction.TransactionTimedOut
                    || hasStatus.status() == Status.Transaction.TransactionTimedOutClientConfiguration)) {
                return true;
            }
        }
        return false;
    }

    private List<Row> run(Transaction tx, PlanValidator.Validation validation, Map<String, Object> vectors,
            double[] relevance, long limit, TimeBudget budget) {
        PlanCompiler compiler = new PlanCompiler(validation);
        String label = validation.plan().target().type();
        Plan.Order order = validation.plan().order();
        List<String> terms = validation.plan().nameContains();
        if (compiler.needsVectorIndexOnly()) {
            return order == null ? rankByIndex(tx, label, relevance, limit, terms)
                    : rankByQuantity(tx, label, order, limit, terms);
        }
        Map<String, List<Map<String, Object>>> bindings = link(tx, validation.plan(), vectors);
        Map<String, Object> params = compiler.parameters(bindings);
        checkRowBudget(tx, compiler, params, budget);
        List<Candidate> candidates = candidates(tx, compiler, params);
        if (candidates.size() < config.relaxBelow() && validation.plan().hasHops()) {
            Relaxed relaxed = relaxed(tx, validation, bindings, budget);
            if (!relaxed.candidates().isEmpty()) {
                return ranked(tx, label, relevance, order, terms, limit, relaxed.candidates(), relaxed::witnesses, false,
                        false);
            }
        }
        return ranked(tx, label, relevance, order, terms, limit, candidates, top -> witnesses(tx, compiler, params, top),
                !validation.plan().hasHops() && order == null, true);
    }

    private List<Row> ranked(Transaction tx, String label, double[] relevance, Plan.Order order, List<String> terms,
            long limit, List<Candidate> candidates, Function<List<Scored>, Map<String, List<Object>>> witnessesOf,
            boolean indexHits, boolean exact) {
        Map<String, Double> dense = new HashMap<>();
        if (order != null) {
            dense = orderScores(candidates.stream().map(Candidate::node).toList(), order);
        } else if (relevance != null) {
            dense = new DenseRescorer(tx, label, relevance, config).score(candidates.stream().map(Candidate::node).toList());
        }
        List<Scored> top = order == null ? top(candidates, dense, limit, terms)
                : topByOrder(candidates, dense, limit, terms);
        // only nodes the plan matched have a witness; doc-index neighbours (below) have none
        Map<String, List<Object>> witnesses = witnessesOf.apply(top);
        if (indexHits && relevance != null) {
            top = withIndexHits(tx, label, relevance, limit, top, terms);
        }
        List<Row> rows = new ArrayList<>();
        for (Scored s : top) {
            rows.add(row(s, witnesses.getOrDefault(s.candidate().node().getElementId(), List.of()), exact));
        }
        return rows;
    }

    /** Partial candidates and how to rebuild their witnesses (each anchor's own path, in plan order). */
    private record Relaxed(List<Candidate> candidates, Map<String, PlanCompiler> compilers,
                           Map<String, Map<String, Object>> params, Map<String, Map<String, Double>> satisfied,
                           Transaction tx) {

        /** Per target, each anchor's own path (anchors in plan order), for the anchors it satisfies. */
        Map<String, List<Object>> witnesses(List<Scored> top) {
            Map<String, List<Object>> out = new HashMap<>();
            for (Map.Entry<String, PlanCompiler> entry : compilers.entrySet()) {
                Map<String, Double> scores = satisfied.get(entry.getKey());
                List<Map<String, Object>> reached = new ArrayList<>();
                for (Scored s : top) {
                    String node = s.candidate().node().getElementId();
                    if (scores.containsKey(node)) {
                        reached.add(Map.of("elementId", node, "anchorScore", scores.get(node)));
                    }
                }
                if (!reached.isEmpty()) {
                    witnessesOf(tx, entry.getValue(), params.get(entry.getKey()), reached)
                            .forEach((node, path) -> out.computeIfAbsent(node, n -> new ArrayList<>()).addAll(path));
                }
            }
            return out;
        }
    }

    /** Soft constraints (see {@link PartialMatcher}): each anchor alone, bindings widened along the hierarchy. */
    private Relaxed relaxed(Transaction tx, PlanValidator.Validation validation,
            Map<String, List<Map<String, Object>>> bindings, TimeBudget budget) {
        PartialMatcher matcher = new PartialMatcher(tx, schema, validation);
        Map<String, Map<Node, Double>> perAnchor = new LinkedHashMap<>();
        Map<String, PlanCompiler> compilers = new LinkedHashMap<>();
        Map<String, Map<String, Object>> params = new LinkedHashMap<>();
        Map<String, Map<String, Double>> satisfied = new LinkedHashMap<>();
        for (Plan.Anchor anchor : validation.plan().anchors()) {
            PlanCompiler alone = matcher.alone(anchor);
            List<Map<String, Object>> widened =
                    matcher.widened(anchor, bindings.getOrDefault(anchor.var(), List.of()), config.hierarchyDiscount(),
                            config.descendantCredit());
            Map<String, Object> anchorParams = alone.parameters(Map.of(anchor.var(), widened));
            checkRowBudget(tx, alone, anchorParams, budget);
            Map<Node, Double> found = new LinkedHashMap<>();
            Map<String, Double> ids = new HashMap<>();
            for (Candidate c : candidates(tx, alone, anchorParams)) {
                found.put(c.node(), c.anchorScore());
                ids.put(c.node().getElementId(), c.anchorScore());
            }
            perAnchor.put(anchor.var(), found);
            compilers.put(anchor.var(), alone);
            params.put(anchor.var(), anchorParams);
            satisfied.put(anchor.var(), ids);
        }
        List<Candidate> candidates = new ArrayList<>();
        for (PartialMatcher.Match match : matcher.combine(perAnchor)) {
            candidates.add(new Candidate(match.node(), match.anchorScore()));
        }
        return new Relaxed(candidates, compilers, params, satisfied, tx);
    }

    private Map<String, List<Map<String, Object>>> link(Transaction tx, Plan plan, Map<String, Object> vectors) {
        AnchorLinker linker = new AnchorLinker(tx, schema);
        Map<String, List<Map<String, Object>>> bindings = new LinkedHashMap<>();
        for (Plan.Anchor anchor : plan.anchors()) {
            AnchorLinker.Settings settings = AnchorLinker.Settings.of(anchor.matchMode(), config.k(), config.tau());
            Object vector = vectors.get(anchor.var());
            if (AnchorBindings.given(vector)) { // linked by the caller
                bindings.put(anchor.var(), AnchorBindings.check("anchorVectors." + anchor.var(), vector));
                continue;
            }
            List<AnchorLinker.Binding> found;
            if (vector instanceof List<?> list) {
                found = linker.byVector(anchor.type(), anchor.matchMode(),
                        VectorIndexes.toVector(list, "anchorVectors." + anchor.var()), settings);
            } else {
                found = linker.byText(anchor.type(), anchor.text(), settings);
            }
            bindings.put(anchor.var(), found.stream().map(AnchorLinker.Binding::toParameter).toList());
        }
        return bindings;
    }

    private void checkRowBudget(Transaction tx, PlanCompiler compiler, Map<String, Object> params, TimeBudget budget) {
        Map<String, Object> probe = new HashMap<>(params);
        probe.put("maxRows", config.maxRows() + 1);
        long rows = 0;
        try (Result result = tx.execute(compiler.probeQuery(), probe)) {
            while (result.hasNext()) {
                result.next();
                if (++rows > config.maxRows()) {
                    throw new IllegalStateException("plan matched more than " + config.maxRows() + " rows (config maxRows); "
                            + "narrow the anchors (smaller k, higher tau) or pick a more specific relation");
                }
                if ((rows & 1023) == 0 && budget.expired()) {
                    throw timeout(null);
                }
            }
        }
    }

    private static List<Candidate> candidates(Transaction tx, PlanCompiler compiler, Map<String, Object> params) {
        List<Candidate> candidates = new ArrayList<>();
        try (Result result = tx.execute(compiler.candidatesQuery(), params)) {
            while (result.hasNext()) {
                Map<String, Object> row = result.next();
                candidates.add(new Candidate((Node) row.get("node"), ((Number) row.get("anchorScore")).doubleValue()));
            }
        }
        return candidates;
    }

    private List<Scored> top(List<Candidate> candidates, Map<String, Double> dense, long limit, List<String> terms) {
        List<Scored> scored = new ArrayList<>(candidates.size());
        for (Candidate c : candidates) {
            double d = dense.getOrDefault(c.node().getElementId(), 0.0);
            scored.add(new Scored(c, c.node().getProperty("id", null), d, c.anchorScore() + config.denseWeight() * d,
                    named(c.node(), terms)));
        }
        return best(scored, limit);
    }

    /**
     * Each node's place in the order as a score in (0, 1]: the first 1, the last 1/n; a node without the quantity
     * 0. Reported as the row's dense score, so a caller sees why a target ranks where it does.
     */
    static Map<String, Double> orderScores(List<Node> nodes, Plan.Order order) {
        List<Map.Entry<String, Double>> valued = new ArrayList<>();
        Map<String, Double> scores = new HashMap<>();
        for (Node node : nodes) {
            Double value = Quantities.parse(node.getProperty(order.property(), null));
            if (value == null) {
                scores.put(node.getElementId(), 0.0);
            } else {
                valued.add(Map.entry(node.getElementId(), value));
            }
        }
        Comparator<Map.Entry<String, Double>> byValue = Map.Entry.comparingByValue();
        valued.sort(order.descending() ? byValue.reversed() : byValue);
        int n = valued.size();
        for (int i = 0; i < n; i++) {
            // equal quantities share the better place
            double place = i > 0 && valued.get(i).getValue().equals(valued.get(i - 1).getValue())
                    ? scores.get(valued.get(i - 1).getKey()) : (double) (n - i) / n;
            scores.put(valued.get(i).getKey(), place);
        }
        return scores;
    }

    /**
     * Ordered plans rank by anchor score first (an exact or better-linked match stays ahead), then by the order;
     * the score adds the order's place at a scale below any anchor-score difference that matters (1e-3).
     */
    private static List<Scored> topByOrder(List<Candidate> candidates, Map<String, Double> places, long limit,
            List<String> terms) {
        List<Scored> scored = new ArrayList<>(candidates.size());
        for (Candidate c : candidates) {
            double place = places.getOrDefault(c.node().getElementId(), 0.0);
            scored.add(new Scored(c, c.node().getProperty("id", null), place,
                    roundedAnchor(c.anchorScore()) + ORDER_SCALE * place, named(c.node(), terms)));
        }
        return best(scored, limit);
    }

    /** Anchor scores equal to 1e-6 count as ties, so float noise in a sum of link scores cannot outrank the order. */
    private static double roundedAnchor(double anchorScore) {
        return Math.round(anchorScore * 1e6) / 1e6;
    }

    /** A plan with only a target type and an order ranks every node of that type by the quantity. */
    private List<Row> rankByQuantity(Transaction tx, String label, Plan.Order order, long limit, List<String> terms) {
        List<Candidate> all = new ArrayList<>();
        try (var nodes = tx.findNodes(org.neo4j.graphdb.Label.label(label))) {
            nodes.forEachRemaining(node -> all.add(new Candidate(node, 0.0)));
        }
        Map<String, Double> places = orderScores(all.stream().map(Candidate::node).toList(), order);
        return topByOrder(all, places, limit, terms).stream().map(s -> row(s, List.of(), true)).toList();
    }

    /**
     * A plan without hops ranks the target type by the relevance text (as GRASP does), not only the anchor's own
     * bindings: the doc index's nearest nodes join the bindings with the dense score alone, so a binding keeps its
     * anchor score on top of its cosine and stays ahead of an unlinked node as close to the text.
     */
    private List<Scored> withIndexHits(Transaction tx, String label, double[] relevance, long limit, List<Scored> bound,
            List<String> terms) {
        Map<String, Scored> merged = new LinkedHashMap<>();
        for (Scored s : bound) {
            merged.put(s.candidate().node().getElementId(), s);
        }
        for (VectorIndexes.Hit hit : VectorIndexes.nearest(tx, label, "doc", limit, relevance)) {
            merged.putIfAbsent(hit.node().getElementId(), new Scored(new Candidate(hit.node(), 0.0),
                    hit.node().getProperty("id", null), hit.cosine(), config.denseWeight() * hit.cosine(),
                    named(hit.node(), terms)));
        }
        return best(new ArrayList<>(merged.values()), limit);
    }

    /** The top {@code limit}: those whose name holds the plan's name words first, then by score, ties by node id. */
    private static List<Scored> best(List<Scored> scored, long limit) {
        scored.sort(Comparator.comparing((Scored s) -> !s.named())
                .thenComparing(Comparator.comparingDouble(Scored::score).reversed())
                .thenComparing(Scored::id, NodeIds::compare));
        return scored.subList(0, (int) Math.min(limit, scored.size()));
    }

    /** Whether the node's name holds every term; false when the plan asks nothing of names (no target first). */
    private static boolean named(Node node, List<String> terms) {
        return !terms.isEmpty() && NameTerms.holds(node.getProperty("name", null), terms);
    }

    private static Map<String, List<Object>> witnesses(Transaction tx, PlanCompiler compiler, Map<String, Object> params,
            List<Scored> top) {
        List<Map<String, Object>> targets = new ArrayList<>();
        for (Scored s : top) {
            targets.add(Map.of("elementId", s.candidate().node().getElementId(), "anchorScore", s.candidate().anchorScore()));
        }
        return witnessesOf(tx, compiler, params, targets);
    }

    /** {@code targets}: {elementId, anchorScore} each, the score the compiled plan gave that node. */
    private static Map<String, List<Object>> witnessesOf(Transaction tx, PlanCompiler compiler, Map<String, Object> params,
            List<Map<String, Object>> targets) {
        Map<String, Object> withTargets = new HashMap<>(params);
        withTargets.put("targets", targets);
        Map<String, List<Object>> witnesses = new HashMap<>();
        try (Result result = tx.execute(compiler.witnessQuery(), withTargets)) {
            while (result.hasNext()) {
                Map<String, Object> row = result.next();
                witnesses.put((String) row.get("node"), new ArrayList<>((List<?>) row.get("witness")));
            }
        }
        return witnesses;
    }

    private List<Row> rankByIndex(Transaction tx, String label, double[] relevance, long limit, List<String> terms) {
        if (relevance == null) {
            throw new IllegalArgumentException("a plan without hops and anchors ranks " + label
                    + " nodes by relevanceVector; got null");
        }
        return withIndexHits(tx, label, relevance, limit, List.of(), terms).stream().map(s -> row(s, List.of(), true))
                .toList();
    }

    private static Row row(Scored s, List<Object> witness, boolean exact) {
        Object name = s.candidate().node().getProperty("name", null);
        return new Row(s.id(), name == null ? null : name.toString(), s.candidate().anchorScore(), s.dense(), s.score(),
                witness, exact);
    }

    private static void checkVectorKeys(Plan plan, Map<String, Object> vectors) {
        List<String> anchors = plan.anchors().stream().map(Plan.Anchor::var).toList();
        for (Map.Entry<String, Object> entry : vectors.entrySet()) {
            if (!anchors.contains(entry.getKey())) {
                throw new IllegalArgumentException("anchorVectors has key '" + entry.getKey() + "', which is not an anchor "
                        + "variable; anchors: " + anchors);
            }
            if (entry.getValue() != null && !(entry.getValue() instanceof List)) {
                throw new IllegalArgumentException("anchorVectors." + entry.getKey() + " must be a LIST<FLOAT>; got "
                        + entry.getValue().getClass().getSimpleName());
            }
        }
    }

    /**
     * Our time-budget error. Neo4j reports a procedure's failure by the ROOT cause of what it throws, so Neo4j's own
     * termination is attached as suppressed, never as the cause: the caller reads this message, not Neo4j's.
     */
    private IllegalStateException timeout(Throwable termination) {
        IllegalStateException timeout = new IllegalStateException("plan exceeded the time budget of " + config.timeoutMs()
                + " ms (config timeoutMs); narrow the anchors (smaller k, higher tau) or pick a more specific relation");
        if (termination != null) {
            timeout.addSuppressed(termination);
        }
        return timeout;
    }
}
