package grasp.plan;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads plan JSON into a {@link Plan}. Jackson comes with the Neo4j server (neo4j-procedure depends on
 * jackson-databind), so it is a provided dependency and is not bundled. Problems are collected as messages
 * naming the place (e.g. {@code hops[1].relation}) and what is allowed; a plan is returned only when there are none.
 */
public final class PlanParser {

    /** The parsed plan (null when there are errors) and every problem found. */
    public record Outcome(Plan plan, List<String> errors) {}

    static final Set<String> PLAN_FIELDS = Set.of("anchors", "hops", "target", "relevance_text", "n_cand", "risk",
            "order", "name_contains");
    static final int MAX_NAME_TERMS = 4;
    static final int MAX_NAME_TERM_CHARS = 100;
    static final Set<String> ANCHOR_FIELDS = Set.of("var", "type", "text", "match_mode");
    static final Set<String> HOP_FIELDS = Set.of("source", "relation", "target", "source_type", "target_type",
            "direction");
    static final Set<String> DIRECTIONS = Set.of(Plan.Hop.ANY, Plan.Hop.OUT, Plan.Hop.IN);
    static final Set<String> TARGET_FIELDS = Set.of("var", "type");
    static final Set<String> ORDER_FIELDS = Set.of("property", "descending");

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final List<String> errors = new ArrayList<>();

    public static Outcome parse(String json) {
        return new PlanParser().read(json);
    }

    private Outcome read(String json) {
        if (json == null || json.isBlank()) {
            return new Outcome(null, List.of("plan JSON is empty; expected an object with fields " + new TreeSet<>(PLAN_FIELDS)));
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            return new Outcome(null, List.of("malformed plan JSON" + where + ": " + e.getOriginalMessage()));
        }
        if (root == null || !root.isObject()) {
            return new Outcome(null, List.of("plan JSON must be an object with fields " + new TreeSet<>(PLAN_FIELDS)
                    + "; got " + (root == null ? "nothing" : root.getNodeType().toString().toLowerCase())));
        }
        Plan plan = toPlan(root);
        return errors.isEmpty() ? new Outcome(plan, List.of()) : new Outcome(null, List.copyOf(errors));
    }

    private Plan toPlan(JsonNode root) {
        checkFields(root, PLAN_FIELDS, "plan");
        // An element that is not an object is reported and left out (never a null in the plan's lists).
        List<Plan.Anchor> anchors = new ArrayList<>();
        int i = 0;
        for (JsonNode node : array(root, "anchors")) {
            Plan.Anchor anchor = toAnchor(node, "anchors[" + i++ + "]");
            if (anchor != null) {
                anchors.add(anchor);
            }
        }
        List<Plan.Hop> hops = new ArrayList<>();
        i = 0;
        for (JsonNode node : array(root, "hops")) {
            Plan.Hop hop = toHop(node, "hops[" + i++ + "]");
            if (hop != null) {
                hops.add(hop);
            }
        }
        Plan.Target target = null;
        JsonNode targetNode = root.get("target");
        if (targetNode == null || targetNode.isNull()) {
            errors.add("target is missing; expected {\"var\": ..., \"type\": ...}");
        } else if (object(targetNode, "target")) {
            checkFields(targetNode, TARGET_FIELDS, "target");
            target = new Plan.Target(text(targetNode, "var", "target", true), text(targetNode, "type", "target", true));
        }
        String relevance = text(root, "relevance_text", "plan", false);
        return new Plan(anchors, hops, target, relevance == null ? "" : relevance, nCand(root),
                text(root, "risk", "plan", false) == null ? "low" : root.get("risk").asText(), order(root),
                nameContains(root));
    }

    /** {@code "name_contains": ["spastic"]}: 1 to 4 non-blank strings of at most 100 characters; absent: none. */
    private List<String> nameContains(JsonNode root) {
        List<String> terms = new ArrayList<>();
        int i = 0;
        for (JsonNode node : array(root, "name_contains")) {
            String where = "name_contains[" + i++ + "]";
            if (!node.isTextual() || node.asText().isBlank()) {
                errors.add(where + " must be a non-blank string; got " + node);
            } else if (node.asText().length() > MAX_NAME_TERM_CHARS) {
                errors.add(where + " is longer than " + MAX_NAME_TERM_CHARS + " characters");
            } else {
                terms.add(node.asText());
            }
        }
        if (i > MAX_NAME_TERMS) {
            errors.add("name_contains holds at most " + MAX_NAME_TERMS + " words; got " + i);
        }
        return terms;
    }

    /** {@code "order": {"property": ..., "descending": true}}; absent or null: rank by relevance. */
    private Plan.Order order(JsonNode root) {
        JsonNode node = root.get("order");
        if (node == null || node.isNull() || !object(node, "order")) {
            return null;
        }
        checkFields(node, ORDER_FIELDS, "order");
        String property = text(node, "property", "order", true);
        JsonNode descending = node.get("descending");
        if (descending != null && !descending.isNull() && !descending.isBoolean()) {
            errors.add("order.descending must be true or false; got " + descending);
        }
        return new Plan.Order(property, descending == null || descending.isNull() || descending.asBoolean());
    }

    private Plan.Anchor toAnchor(JsonNode node, String where) {
        if (!object(node, where)) {
            return null;
        }
        checkFields(node, ANCHOR_FIELDS, where);
        String mode = text(node, "match_mode", where, false);
        return new Plan.Anchor(text(node, "var", where, true), text(node, "type", where, true),
                text(node, "text", where, false) == null ? "" : node.get("text").asText(), mode == null ? "name" : mode);
    }

    private Plan.Hop toHop(JsonNode node, String where) {
        if (!object(node, where)) {
            return null;
        }
        checkFields(node, HOP_FIELDS, where);
        String direction = text(node, "direction", where, false);
        if (direction != null && !DIRECTIONS.contains(direction)) {
            errors.add(where + ".direction must be one of " + new TreeSet<>(DIRECTIONS) + "; got '" + direction + "'");
        }
        return new Plan.Hop(text(node, "source", where, true), text(node, "relation", where, true),
                text(node, "target", where, true), text(node, "source_type", where, false),
                text(node, "target_type", where, false), direction == null ? Plan.Hop.ANY : direction);
    }

    private long nCand(JsonNode root) {
        JsonNode value = root.get("n_cand");
        if (value == null || value.isNull()) {
            return 50;
        }
        if (!value.isIntegralNumber() || value.asLong() < 0 || !value.canConvertToLong()) {
            errors.add("n_cand must be a non-negative integer; got " + value);
            return 0;
        }
        return value.asLong();
    }

    private Iterable<JsonNode> array(JsonNode root, String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            errors.add(field + " must be an array; got " + value.getNodeType().toString().toLowerCase());
            return List.of();
        }
        return value::elements;
    }

    private boolean object(JsonNode node, String where) {
        if (node.isObject()) {
            return true;
        }
        errors.add(where + " must be an object; got " + node.getNodeType().toString().toLowerCase());
        return false;
    }

    private String text(JsonNode node, String field, String where, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                errors.add(where + "." + field + " is missing; expected a string");
            }
            return null;
        }
        if (!value.isTextual()) {
            errors.add(where + "." + field + " must be a string; got " + value);
            return null;
        }
        return value.asText();
    }

    private void checkFields(JsonNode node, Set<String> allowed, String where) {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                errors.add("unknown field '" + name + "' in " + where + "; allowed: " + new TreeSet<>(allowed));
            }
        }
    }
}
