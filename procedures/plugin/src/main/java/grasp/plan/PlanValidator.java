package grasp.plan;

import grasp.cypher.CypherIdentifier;
import grasp.schema.GraphSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks a parsed plan against the graph schema: labels, relation types, undirected hop triples, variable
 * binding, connectivity, enums. Every label, relation type and variable must first match
 * {@link CypherIdentifier#PATTERN} (a name the graph holds is not trusted: anyone who can write can create one).
 * Intermediate variables are typed by {@link TypeInference}. Never throws for a bad plan: every problem becomes a
 * message naming the value and what is allowed.
 */
public final class PlanValidator {

    /** Outcome: errors, warnings and, when valid, the plan and the label of every variable. */
    public record Validation(List<String> errors, List<String> warnings, Plan plan, Map<String, String> types) {
        public boolean valid() {
            return errors.isEmpty();
        }
    }

    static final Set<String> MATCH_MODES = Set.of("name", "doc");
    static final Set<String> RISKS = Set.of("low", "medium", "high");
    /** grasp's own properties: ids and names are not quantities, documents and vectors are not scalars. */
    static final Set<String> RESERVED_ORDER_PROPERTIES = Set.of("id", "name", "doc", "doc_hash");

    private final Plan plan;
    private final GraphSchema schema;
    private final List<String> errors = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final Map<String, String> types = new LinkedHashMap<>();

    private PlanValidator(Plan plan, GraphSchema schema) {
        this.plan = plan;
        this.schema = schema;
    }

    public static Validation validate(String json, GraphSchema schema) {
        try {
            PlanParser.Outcome parsed = PlanParser.parse(json);
            if (!parsed.errors().isEmpty()) {
                return new Validation(parsed.errors(), List.of(), null, Map.of());
            }
            return new PlanValidator(parsed.plan(), schema).run();
        } catch (RuntimeException e) {
            // A safety net for the contract (validation reports, never throws); the parser should leave nothing here.
            return new Validation(List.of("plan could not be validated (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + "); this is a bug in grasp, please report it with the plan"), List.of(), null, Map.of());
        }
    }

    private Validation run() {
        checkEnums();
        bindAnchorsAndTarget();
        checkOrder();
        for (int i = 0; i < plan.hops().size(); i++) {
            checkHopFields(i, plan.hops().get(i));
        }
        if (plan.hasHops()) {
            checkStructure(new PlanTree(plan.hops(), plan.target().var()));
        } else {
            checkNoHopPlan();
        }
        if (errors.isEmpty() && plan.hasHops()) {
            errors.addAll(new TypeInference(plan.hops(), schema, types).infer());
            if (errors.isEmpty()) {
                checkHopTriples();
            }
        }
        return errors.isEmpty()
                ? new Validation(List.of(), List.copyOf(warnings), plan, Map.copyOf(types))
                : new Validation(List.copyOf(errors), List.copyOf(warnings), null, Map.of());
    }

    private void checkEnums() {
        if (!RISKS.contains(plan.risk())) {
            errors.add("risk " + quote(plan.risk()) + " is not allowed; allowed: " + new TreeSet<>(RISKS));
        }
        for (Plan.Anchor anchor : plan.anchors()) {
            if (!MATCH_MODES.contains(anchor.matchMode())) {
                errors.add("anchor " + quote(anchor.var()) + ": match_mode " + quote(anchor.matchMode())
                        + " is not allowed; allowed: " + new TreeSet<>(MATCH_MODES));
            }
            if (anchor.text().isBlank()) {
                warnings.add("anchor " + quote(anchor.var()) + " has empty text; it can only be linked by a vector");
            }
        }
    }

    private void bindAnchorsAndTarget() {
        for (Plan.Anchor anchor : plan.anchors()) {
            checkVar(anchor.var(), "anchor");
            checkLabel(anchor.type(), "anchor " + quote(anchor.var()) + " type");
            if (types.containsKey(anchor.var())) {
                errors.add("variable " + quote(anchor.var()) + " is bound by more than one anchor; each variable is bound once");
            }
            types.put(anchor.var(), anchor.type());
        }
        Plan.Target target = plan.target();
        checkVar(target.var(), "target");
        checkLabel(target.type(), "target type");
        String anchorType = types.get(target.var());
        if (anchorType != null && plan.hasHops()) {
            errors.add("variable " + quote(target.var()) + " is bound as both anchor and target; only a plan without hops "
                    + "may anchor its target");
        } else if (anchorType != null && !anchorType.equals(target.type())) {
            errors.add("variable " + quote(target.var()) + " is typed " + quote(anchorType) + " as anchor but "
                    + quote(target.type()) + " as target");
        }
        types.put(target.var(), target.type());
    }

    /** The property is read by name with getProperty, never written into Cypher; checked all the same. */
    private void checkOrder() {
        Plan.Order order = plan.order();
        if (order == null) {
            return;
        }
        String badName = CypherIdentifier.problem(order.property(), "order property");
        if (badName != null) {
            errors.add(badName);
        } else if (RESERVED_ORDER_PROPERTIES.contains(order.property())) {
            errors.add("order property " + quote(order.property()) + " is not allowed; a plan ranks by a quantity a node "
                    + "holds, not by " + new TreeSet<>(RESERVED_ORDER_PROPERTIES));
        }
    }

    private void checkHopFields(int i, Plan.Hop hop) {
        String where = "hops[" + i + "]";
        checkVar(hop.source(), where + ".source");
        checkVar(hop.target(), where + ".target");
        if (hop.source().equals(hop.target())) {
            errors.add(where + " joins " + quote(hop.source()) + " to itself; a hop joins two different variables");
        }
        String badName = CypherIdentifier.problem(hop.relation(), where + ": relation");
        if (badName != null) {
            errors.add(badName);
        } else if (!schema.hasRelationshipType(hop.relation())) {
            errors.add(where + ": relation " + quote(hop.relation()) + " does not occur in the graph; known relations: "
                    + new TreeSet<>(schema.relationshipTypeCounts().keySet()));
        }
        if (hop.sourceType() != null) {
            checkLabel(hop.sourceType(), where + ".source_type");
        }
        if (hop.targetType() != null) {
            checkLabel(hop.targetType(), where + ".target_type");
        }
    }

    private void checkStructure(PlanTree tree) {
        String target = plan.target().var();
        if (plan.anchors().isEmpty()) {
            errors.add("a plan with hops needs at least one anchor; got none");
        }
        if (!tree.vars().contains(target)) {
            errors.add("target " + quote(target) + " is not joined by any hop; hops join " + tree.vars());
        }
        for (Plan.Anchor anchor : plan.anchors()) {
            if (!tree.reachable(anchor.var())) {
                errors.add("anchor " + quote(anchor.var()) + " is not connected to the target " + quote(target)
                        + " through the hops");
            }
        }
        for (String var : tree.vars()) {
            boolean bound = types.containsKey(var);
            if (!bound && !tree.reachable(var)) {
                errors.add("variable " + quote(var) + " is not connected to the target " + quote(target));
            } else if (!bound && tree.degree(var) < 2) {
                errors.add("variable " + quote(var) + " is dangling: it is neither an anchor nor the target and lies on "
                        + "no path from an anchor to the target");
            }
        }
        for (int hop : tree.cycleHops()) {
            errors.add("hops[" + hop + "] closes a cycle; hops must form a tree with one path from each anchor to the target");
        }
    }

    private void checkNoHopPlan() {
        for (Plan.Anchor anchor : plan.anchors()) {
            if (!anchor.var().equals(plan.target().var())) {
                errors.add("anchor " + quote(anchor.var()) + " is not connected to the target " + quote(plan.target().var())
                        + "; a plan without hops may only anchor the target variable");
            }
        }
        if (plan.anchors().isEmpty() && plan.relevanceText().isBlank()) {
            warnings.add("plan has no hops, no anchors and no relevance_text; it ranks by the relevance vector alone");
        }
    }

    private void checkHopTriples() {
        for (int i = 0; i < plan.hops().size(); i++) {
            Plan.Hop hop = plan.hops().get(i);
            String from = types.get(hop.source());
            String to = types.get(hop.target());
            if (TypeInference.edgeCount(schema, hop, from, to) > 0) {
                continue;
            }
            if (!hop.directed()) {
                errors.add("hops[" + i + "]: (:" + from + ")-[:" + hop.relation() + "]-(:" + to + ") does not occur in "
                        + "either direction; " + hop.relation() + " connects " + schema.describeConnections(hop.relation()));
            } else {
                String arrow = Plan.Hop.OUT.equals(hop.direction())
                        ? "(:" + from + ")-[:" + hop.relation() + "]->(:" + to + ")"
                        : "(:" + from + ")<-[:" + hop.relation() + "]-(:" + to + ")";
                errors.add("hops[" + i + "]: " + arrow + " (direction '" + hop.direction() + "') does not occur; "
                        + hop.relation() + " connects " + schema.describeConnections(hop.relation())
                        + " (stored source first)");
            }
        }
    }

    private void checkVar(String var, String where) {
        // Generated names start with '_' or 'b_' (PlanCompiler), so variables are identifiers that do not.
        if (!CypherIdentifier.isValid(var) || var.startsWith("_") || var.startsWith("b_")) {
            errors.add(where + " variable " + quote(var) + " is not allowed; variables match [A-Za-z][A-Za-z0-9_]{0,63} "
                    + "and do not start with 'b_'");
        }
    }

    private void checkLabel(String label, String where) {
        String badName = CypherIdentifier.problem(label, where);
        if (badName != null) {
            errors.add(badName);
        } else if (!schema.hasLabel(label)) {
            errors.add(where + " " + quote(label) + " does not occur in the graph; known labels: "
                    + new TreeSet<>(schema.labelCounts().keySet()));
        }
    }

    static String quote(String value) {
        return value == null ? "null" : "'" + value + "'";
    }
}
