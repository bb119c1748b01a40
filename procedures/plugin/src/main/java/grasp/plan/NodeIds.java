package grasp.plan;

/** Orders node ids like Cypher's ORDER BY on mixed values: strings before numbers, nulls last. */
final class NodeIds {

    private NodeIds() {}

    static int compare(Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : 1) : -1;
        }
        if (a instanceof Number x && b instanceof Number y) {
            return Double.compare(x.doubleValue(), y.doubleValue());
        }
        if (a instanceof String x && b instanceof String y) {
            return x.compareTo(y);
        }
        return a instanceof String ? -1 : b instanceof String ? 1 : a.toString().compareTo(b.toString());
    }
}
