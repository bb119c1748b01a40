package grasp.plan;

import static grasp.cypher.CypherIdentifier.quote;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Compiles a validated plan into Cypher. Labels and relation types come only from the validated plan (their
 * names match {@link grasp.cypher.CypherIdentifier#PATTERN} and occur in the graph) and are backtick-quoted by
 * {@link grasp.cypher.CypherIdentifier#quote}, which refuses any other name; variables match the same rule (and
 * start with a letter) and are quoted too; every value (bindings, label names in the witness, limits) is a parameter.
 *
 * <p>Cardinality: the anchor deepest in the plan tree is walked towards the target one hop at a time, and after
 * every hop the rows collapse to one per node with its best partial score ({@code WITH v, max(_s)}), so a hub
 * costs its degree once, not once per path. Other anchors join where their branch meets that chain, through a
 * correlated {@code CALL} that returns the branch's best score (max over a tree decomposes over branches).
 * The witness path is rebuilt afterwards, only for the targets that are kept.
 */
public final class PlanCompiler {

    /** Generated names start with '_' or 'b_', which plan variables cannot. */
    private static final String SCORE = "_s";

    private final Plan plan;
    private final Map<String, String> types;
    private final PlanTree tree;
    private final String target;

    public PlanCompiler(PlanValidator.Validation validation) {
        if (!validation.valid()) {
            throw new IllegalArgumentException("invalid plan: " + String.join("; ", validation.errors()));
        }
        this.plan = validation.plan();
        this.types = validation.types();
        this.target = plan.target().var();
        this.tree = new PlanTree(plan.hops(), target);
    }

    /** True for a plan without hops and without anchors: it can only be ranked by the doc vector index. */
    public boolean needsVectorIndexOnly() {
        return !plan.hasHops() && plan.anchors().isEmpty();
    }

    /** The query {@code grasp.plan.compile} returns: best anchor score per target, top $limit, with witness. */
    public String fullQuery() {
        if (needsVectorIndexOnly()) {
            return "CALL db.index.vector.queryNodes($index, $limit, $relevanceVector) YIELD node AS " + quote(target)
                    + ", score\nRETURN " + quote(target) + ".id AS nodeId, " + quote(target) + ".name AS name, labels("
                    + quote(target) + ") AS labels, 0.0 AS anchorScore, 2 * score - 1 AS denseScore, [] AS witness";
        }
        String t = quote(target);
        return bestScores() + "WITH " + t + ", " + SCORE + " ORDER BY " + SCORE + " DESC, " + t + ".id ASC LIMIT $limit\n"
                + witnessClause() + "RETURN " + t + ".id AS nodeId, " + t + ".name AS name, labels(" + t + ") AS labels, "
                + SCORE + " AS anchorScore, _w AS witness\nORDER BY anchorScore DESC, nodeId ASC";
    }

    /** Every target node with its best anchor score: columns {@code node}, {@code anchorScore}. */
    public String candidatesQuery() {
        return bestScores() + "RETURN " + quote(target) + " AS node, " + SCORE + " AS anchorScore";
    }

    /** Up to $maxRows rows of the un-aggregated plan pattern, to check the row budget before the real query. */
    public String probeQuery() {
        return plainPattern(tree.subtree(target)) + "RETURN 1 AS _row LIMIT $maxRows";
    }

    /** Witnesses for given targets: $targets is a list of {elementId, anchorScore}; columns node, witness. */
    public String witnessQuery() {
        String t = quote(target);
        return "UNWIND $targets AS _target\nMATCH (" + t + ") WHERE elementId(" + t + ") = _target.elementId\n"
                + "WITH " + t + ", _target.anchorScore AS " + SCORE + "\n" + witnessClause()
                + "RETURN elementId(" + t + ") AS node, _w AS witness";
    }

    /** $bindings_<var> for every anchor (empty when not given) and $types (variable -> label, for the witness). */
    public Map<String, Object> parameters(Map<String, List<Map<String, Object>>> bindings) {
        Map<String, Object> params = new LinkedHashMap<>();
        for (Plan.Anchor anchor : plan.anchors()) {
            params.put("bindings_" + anchor.var(), bindings.getOrDefault(anchor.var(), List.of()));
        }
        params.put("types", types);
        return params;
    }

    private String bestScores() {
        if (!plan.hasHops()) {
            return seed(target);
        }
        List<String> chain = tree.pathToRoot(mainAnchor());
        StringBuilder out = new StringBuilder(seed(chain.get(0)));
        for (int i = 1; i < chain.size(); i++) {
            String previous = chain.get(i - 1);
            String var = chain.get(i);
            Plan.Hop hop = plan.hops().get(tree.parentHop(previous));
            out.append("MATCH (").append(quote(previous)).append(')')
                    .append(relationship(hop, previous, ":" + quote(hop.relation()))).append(node(var)).append('\n');
            out.append("WITH ").append(quote(var)).append(", max(").append(SCORE).append(") AS ").append(SCORE).append('\n');
            if (isAnchor(var)) {
                out.append(joinBindings(var));
            }
            for (String child : tree.children(var)) {
                if (!child.equals(previous)) {
                    out.append(branch(var, child));
                }
            }
        }
        return out.toString();
    }

    /** The anchor farthest from the target (first in plan order on ties): the chain the rows walk along. */
    private String mainAnchor() {
        String best = null;
        for (Plan.Anchor anchor : plan.anchors()) {
            if (best == null || tree.depth(anchor.var()) > tree.depth(best)) {
                best = anchor.var();
            }
        }
        return best;
    }

    private String seed(String var) {
        return unwindAnchor(var) + "WITH " + quote(var) + ", max(b_" + var + ".score) AS " + SCORE + "\n";
    }

    private String joinBindings(String var) {
        String v = quote(var);
        String b = "b_" + var;
        return "UNWIND $bindings_" + var + " AS " + b + "\nWITH " + v + ", " + SCORE + ", " + b + " WHERE " + b + ".id = "
                + v + ".id\nWITH " + v + ", max(" + SCORE + " + " + b + ".score) AS " + SCORE + "\n";
    }

    private String branch(String var, String child) {
        List<String> vars = tree.subtree(child);
        String v = quote(var);
        return "CALL (" + v + ") {\n" + indent(plainPattern(vars)) + "  RETURN max(" + scoreSum(vars) + ") AS _b\n}\n"
                + "WITH " + v + ", " + SCORE + " + _b AS " + SCORE + " WHERE " + SCORE + " IS NOT NULL\n";
    }

    private String witnessClause() {
        if (!plan.hasHops()) {
            return "WITH " + quote(target) + ", " + SCORE + ", [" + nodeMap(target) + "] AS _w\n";
        }
        List<String> all = tree.subtree(target);
        return "CALL (" + quote(target) + ", " + SCORE + ") {\n" + indent(plainPattern(all))
                + "  WITH * WHERE " + scoreSum(all) + " >= " + SCORE + " - 1.0e-9\n"
                + "  RETURN " + witnessExpression() + " AS _w\n  LIMIT 1\n}\n";
    }

    /** Anchors' bindings, then one MATCH per hop from each variable to its parent (towards the target). */
    private String plainPattern(List<String> vars) {
        StringBuilder out = new StringBuilder();
        for (String var : vars) {
            if (isAnchor(var)) {
                out.append(unwindAnchor(var));
            }
        }
        for (String var : vars) {
            int hop = tree.parentHop(var);
            if (hop >= 0) {
                Plan.Hop step = plan.hops().get(hop);
                out.append("MATCH ").append(node(var))
                        .append(relationship(step, var, "_r" + hop + ":" + quote(step.relation())))
                        .append(node(tree.parent(var))).append('\n');
            }
        }
        return out.toString();
    }

    /** {@code -[inner]-} written from {@code from}'s side, with an arrow when the hop is directed. */
    private static String relationship(Plan.Hop hop, String from, String inner) {
        if (!hop.directed()) {
            return "-[" + inner + "]-";
        }
        return hop.storedFrom(from) ? "-[" + inner + "]->" : "<-[" + inner + "]-";
    }

    private String unwindAnchor(String var) {
        return "UNWIND $bindings_" + var + " AS b_" + var + "\nMATCH (" + quote(var) + ":" + quote(types.get(var))
                + " {id: b_" + var + ".id})\n";
    }

    /** Per anchor, its path to the target: node, relationship, node, ... (anchors in plan order). */
    private String witnessExpression() {
        StringJoiner paths = new StringJoiner(" + ");
        for (Plan.Anchor anchor : plan.anchors()) {
            StringJoiner steps = new StringJoiner(", ", "[", "]");
            List<String> path = tree.pathToRoot(anchor.var());
            steps.add(nodeMap(path.get(0)));
            for (int i = 1; i < path.size(); i++) {
                String r = "_r" + tree.parentHop(path.get(i - 1));
                steps.add("{type: type(" + r + "), direction: CASE WHEN startNode(" + r + ") = " + quote(path.get(i - 1))
                        + " THEN '->' ELSE '<-' END}");
                steps.add(nodeMap(path.get(i)));
            }
            paths.add(steps.toString());
        }
        return paths.toString();
    }

    private String nodeMap(String var) {
        String v = quote(var);
        return "{var: '" + var + "', id: " + v + ".id, name: " + v + ".name, label: $types['" + var + "']}";
    }

    private String scoreSum(List<String> vars) {
        StringJoiner sum = new StringJoiner(" + ");
        for (String var : vars) {
            if (isAnchor(var)) {
                sum.add("b_" + var + ".score");
            }
        }
        return sum.toString();
    }

    private String node(String var) {
        return "(" + quote(var) + ":" + quote(types.get(var)) + ")";
    }

    private boolean isAnchor(String var) {
        for (Plan.Anchor anchor : plan.anchors()) {
            if (anchor.var().equals(var)) {
                return true;
            }
        }
        return false;
    }

    private static String indent(String lines) {
        return ("  " + lines.replace("\n", "\n  ")).stripTrailing() + "\n";
    }

    List<String> anchorVars() {
        List<String> vars = new ArrayList<>();
        plan.anchors().forEach(anchor -> vars.add(anchor.var()));
        return vars;
    }
}
