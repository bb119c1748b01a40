package grasp.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Candidate nodes of an anchor given by the caller instead of linked here: a list of {@code {id, score}}, the
 * shape {@code grasp.link} returns and {@code bindings_<var>} takes. A caller that links anchors its own way (a
 * description rescored against the nodes' own text fields, say) passes them to {@code grasp.plan.compile} or
 * {@code grasp.plan.execute}.
 */
final class AnchorBindings {

    private AnchorBindings() {}

    /** Whether {@code value} is a list of maps: bindings, not a vector. */
    static boolean given(Object value) {
        return value instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Map<?, ?>;
    }

    /** The rows of {@code value}, each {@code {id, score}}; {@code where} names it in the error. */
    static List<Map<String, Object>> check(String where, Object value) {
        if (!(value instanceof List<?> list)) {
            throw new IllegalArgumentException(where + " must be a list of {id, score}; got " + value);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Object item : list) {
            if (!(item instanceof Map<?, ?> map) || map.get("id") == null || !(map.get("score") instanceof Number score)
                    || !Double.isFinite(score.doubleValue())) {
                throw new IllegalArgumentException(where + " items must be {id, score} with a finite numeric score; got " + item);
            }
            rows.add(Map.of("id", map.get("id"), "score", score.doubleValue()));
        }
        return rows;
    }
}
