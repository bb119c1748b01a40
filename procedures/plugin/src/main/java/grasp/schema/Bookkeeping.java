package grasp.schema;

/**
 * Labels and relationship types grasp itself writes next to an SKB: load state ({@code GraspMeta}), the stack
 * smoke check ({@code GraspSmokeItem}) and the AdaPath Path-Bank ({@code AdaPath*} nodes, {@code ADAPATH_*}
 * relationships). They are not part of any SKB, so the schema, and every plan checked against it, leaves them out.
 */
final class Bookkeeping {

    private Bookkeeping() {}

    static boolean isLabel(String label) {
        return label.equals("GraspMeta") || label.startsWith("GraspSmoke") || label.startsWith("AdaPath");
    }

    static boolean isRelationshipType(String type) {
        return type.startsWith("ADAPATH_");
    }
}
