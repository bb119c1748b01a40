package grasp.plan;

import static grasp.cypher.CypherIdentifier.quote;

import grasp.schema.GraphSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

/**
 * Soft constraints: targets ranked by how much of a plan they satisfy, for when no target satisfies all of it (a
 * question names a phenotype more specific or more general than the annotation, or one anchor is linked wrongly).
 *
 * <p>Each anchor is run alone along its own path to the target, its bindings widened by their hierarchy neighbours
 * (one hop along every self-relation of the anchor's type, either direction): a child term scored
 * {@code descendantCredit} times the binding's score, a parent term (or a neighbour along a relation whose name does
 * not say which way it runs) {@code hierarchyDiscount} times it. Phenotype-driven diagnosis tools credit an
 * annotation to a more specific term in full (the true-path rule: a disease annotated with "Focal motor seizure"
 * has "Motor seizure"; Phenomizer's similarity of a query term to a descendant's annotation is the query term's own
 * information content) and one to a more general term only in part.
 * A target's score is the weighted mean of the anchors' best scores at it, each anchor weighted by its
 * specificity: the information content {@code ln(N / n)} of reaching n of the target type's N nodes (a rare
 * phenotype says more than one forty diseases share), at least {@link #MIN_WEIGHT}. The link confidence is the
 * binding score itself. Scaled by the number of anchors, so a partial match never outranks what a full match of
 * the same bindings would score.
 */
final class PartialMatcher {

    /** A partial candidate: its weighted share of the plan, times the anchor count. */
    record Match(Node node, double anchorScore) {}

    /** The weight of an anchor that reaches every target (no information) still counts a little. */
    static final double MIN_WEIGHT = 0.05;

    /** Most hierarchy neighbours one anchor's bindings are widened by. */
    static final int MAX_NEIGHBOURS = 200;

    private final Transaction tx;
    private final GraphSchema schema;
    private final Plan plan;
    private final Map<String, String> types;
    private final PlanTree tree;

    PartialMatcher(Transaction tx, GraphSchema schema, PlanValidator.Validation validation) {
        this.tx = tx;
        this.schema = schema;
        this.plan = validation.plan();
        this.types = validation.types();
        this.tree = new PlanTree(plan.hops(), plan.target().var());
    }

    /** The plan with only {@code anchor} and the hops on its path to the target, compiled. */
    PlanCompiler alone(Plan.Anchor anchor) {
        List<Plan.Hop> hops = new ArrayList<>();
        List<String> path = tree.pathToRoot(anchor.var());
        for (int i = 0; i + 1 < path.size(); i++) {
            hops.add(plan.hops().get(tree.parentHop(path.get(i))));
        }
        Plan single = new Plan(List.of(anchor), hops, plan.target(), plan.relevanceText(), plan.nCand(), plan.risk());
        return new PlanCompiler(new PlanValidator.Validation(List.of(), List.of(), single, types));
    }

    /**
     * {@code bindings} plus each bound node's neighbours along its type's self-relations, a child term scored
     * {@code childCredit} times the binding and any other {@code discount} times it (the better score when a node is
     * reached twice); unchanged when both are 0 or for a type without a self-relation.
     */
    List<Map<String, Object>> widened(
            Plan.Anchor anchor, List<Map<String, Object>> bindings, double discount, double childCredit) {
        String label = types.get(anchor.var());
        List<String> relations = schema.patterns().stream()
                .filter(p -> p.source().equals(label) && p.target().equals(label))
                .map(GraphSchema.Pattern::type).distinct().toList();
        if (discount <= 0 && childCredit <= 0 || relations.isEmpty() || bindings.isEmpty()) {
            return bindings;
        }
        Map<Object, Double> scores = new LinkedHashMap<>();
        Map<String, Double> byKey = new HashMap<>();
        for (Map<String, Object> binding : bindings) {
            double score = ((Number) binding.get("score")).doubleValue();
            scores.merge(binding.get("id"), score, Math::max);
            byKey.merge(String.valueOf(binding.get("id")), score, Math::max);
        }
        String query = "UNWIND $ids AS _id MATCH (n:" + quote(label) + " {id: _id})-[r]-(m:" + quote(label) + ") "
                + "WHERE type(r) IN $relations "
                + "RETURN n.id AS from, m.id AS id, type(r) AS relation, startNode(r) = m AS fromNeighbour LIMIT $max";
        Map<String, Object> params = Map.of(
                "ids", new ArrayList<>(scores.keySet()), "relations", relations, "max", (long) MAX_NEIGHBOURS);
        try (Result result = tx.execute(query, params)) {
            while (result.hasNext()) {
                Map<String, Object> row = result.next();
                boolean child = HierarchyDirection.isChild((String) row.get("relation"), (Boolean) row.get("fromNeighbour"));
                double score = (child ? childCredit : discount) * byKey.getOrDefault(String.valueOf(row.get("from")), 0.0);
                if (score > 0) {
                    scores.merge(row.get("id"), score, Math::max);
                }
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        scores.forEach((id, score) -> out.add(Map.of("id", id, "score", score)));
        return out;
    }

    /**
     * Targets reached by at least one anchor, scored by the weighted share of the plan they satisfy.
     *
     * @param perAnchor anchor var -> (target node -> that anchor's best score at it), from running each alone
     */
    List<Match> combine(Map<String, Map<Node, Double>> perAnchor) {
        long total = Math.max(1, schema.labelCounts().getOrDefault(plan.target().type(), 1L));
        Map<String, Double> weights = new LinkedHashMap<>();
        for (Map.Entry<String, Map<Node, Double>> entry : perAnchor.entrySet()) {
            weights.put(entry.getKey(), weight(entry.getValue().size(), total));
        }
        double sum = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        Map<Node, Map<String, Double>> byNode = new LinkedHashMap<>();
        perAnchor.forEach((var, found) -> found.forEach((node, score) ->
                byNode.computeIfAbsent(node, n -> new LinkedHashMap<>()).put(var, score)));
        List<Match> matches = new ArrayList<>();
        int anchors = perAnchor.size();
        byNode.forEach((node, scores) -> {
            double share = 0;
            for (Map.Entry<String, Double> score : scores.entrySet()) {
                share += weights.get(score.getKey()) * score.getValue();
            }
            matches.add(new Match(node, sum > 0 ? anchors * share / sum : 0.0));
        });
        return matches;
    }

    /** Information content of an anchor reaching {@code reached} of {@code total} targets, floored. */
    static double weight(long reached, long total) {
        if (reached <= 0) {
            return MIN_WEIGHT;
        }
        return Math.max(MIN_WEIGHT, Math.log((double) Math.max(total, reached) / reached));
    }
}
