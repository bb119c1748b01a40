package grasp.schema;

/**
 * Labels and relationship types grasp itself writes next to an SKB: load state ({@code GraspMeta}) and the
 * AdaPath Path-Bank ({@code AdaPath*} nodes, {@code ADAPATH_*} relationships). They are not part of any SKB, so
 * the schema, and every plan checked against it, leaves them out. (The stack smoke graph stays visible: it is a
 * real, tiny graph the smoke check and its tests plan over.)
 */
public final class Bookkeeping {

    private Bookkeeping() {}

    public static boolean isLabel(String label) {
        return label.equals("GraspMeta") || label.startsWith("AdaPath");
    }

    public static boolean isRelationshipType(String type) {
        return type.startsWith("ADAPATH_");
    }
}
