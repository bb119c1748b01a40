package grasp.plan;

/**
 * Which way a relation of a type with itself is stored, read from its name as the Python planner reads it
 * ({@code schema_paths.stored_child_to_parent}): the relation between a term and its parent or child term.
 */
final class HierarchyDirection {

    private HierarchyDirection() {}

    /**
     * {@code TRUE} for a relation stored child -> parent (IS_A, SUBCLASS_OF, PART_OF, BROADER), {@code FALSE} for one
     * stored parent -> child (HAS_SUBTYPE, HAS_CHILD, PARENT_OF, NARROWER), {@code null} when the name does not say.
     */
    static Boolean childToParent(String relation) {
        String name = relation.toUpperCase(java.util.Locale.ROOT);
        if (name.startsWith("HAS_") || name.equals("PARENT_OF") || name.equals("NARROWER")) {
            return Boolean.FALSE; // before "_OF": PARENT_OF runs downwards
        }
        if (name.equals("IS_A") || name.endsWith("_OF") || name.startsWith("IS_") || name.equals("BROADER")) {
            return Boolean.TRUE;
        }
        return null;
    }

    /**
     * Whether {@code neighbour} is a child term of the bound node across a relationship of {@code relation} that
     * starts at the neighbour ({@code fromNeighbour}) or at the bound node; {@code false} when the name does not say.
     */
    static boolean isChild(String relation, boolean fromNeighbour) {
        Boolean childToParent = childToParent(relation);
        return childToParent != null && childToParent == fromNeighbour;
    }
}
