package grasp.adapath;

import grasp.config.ConfigValues;
import grasp.cypher.CypherIdentifier;
import grasp.link.VectorIndexes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/** {@code adapath.bfs}: meta-path-guided (or unguided) beam search from topic nodes; the logic is in GuidedBfs. */
public final class AdaPathProcedures {

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard;

    public static final class PathResult {
        @Description("The SKB ids (the `id` property) of the path's nodes, topic first.")
        public final List<Object> nodeIds;

        @Description("Their names.")
        public final List<String> names;

        @Description("Their labels (the first of each node).")
        public final List<String> labels;

        @Description("Relation type per hop.")
        public final List<String> relations;

        @Description("Per hop: true when the hop walks the relationship's stored direction.")
        public final List<Boolean> outgoing;

        @Description("Mean cosine of the query vector and the path's nodes (topic excluded).")
        public final double score;

        @Description("The meta-path that produced the path, as a signature, or 'unguided'.")
        public final String metaPath;

        @Description("True when a budget (maxVisits, timeoutMs) stopped the search, or its topic id lookups, early.")
        public final boolean truncated;

        PathResult(GuidedBfs.Found found, boolean truncated) {
            GuidedBfs.Partial path = found.path();
            this.nodeIds = new ArrayList<>();
            this.names = new ArrayList<>();
            this.labels = new ArrayList<>();
            for (Node node : path.nodes()) {
                nodeIds.add(SkbNodes.id(node));
                names.add(SkbNodes.name(node));
                labels.add(SkbNodes.firstLabel(node));
            }
            this.relations = new ArrayList<>();
            this.outgoing = new ArrayList<>();
            List<Node> nodes = path.nodes();
            for (int i = 0; i < path.relationships().size(); i++) {
                Relationship relationship = path.relationships().get(i);
                relations.add(relationship.getType().name());
                outgoing.add(relationship.getStartNode().equals(nodes.get(i)));
            }
            this.score = path.score();
            this.metaPath = found.metaPath();
            this.truncated = truncated;
        }
    }

    @Procedure(name = "adapath.bfs", mode = Mode.READ)
    @Description("adapath.bfs(topicIds, metaPaths, queryVector, config) - paths from the topic nodes (SKB ids) that follow "
            + "the given meta-paths (maps with labels, relations, outgoing, as adapath's Path-Bank stores them), beam-searched "
            + "by cosine to queryVector; an empty metaPaths list searches unguided up to config.maxDepth. config: beamWidth (20), "
            + "maxExpansion (2000), maxDepth (2, at most 3), maxVisits (500000, at most " + ConfigValues.MAX_VISITS + "), "
            + "timeoutMs (2000, at most " + ConfigValues.MAX_TIMEOUT_MS + "; the topic id lookups count), limit (50), "
            + "embeddingProperty ('doc_embedding'); out-of-range values are refused. Each depth holds at most beamWidth "
            + "extensions while it is read. Labels, relations and embeddingProperty must match "
            + CypherIdentifier.RULE + ". Rows: nodeIds, names, labels, relations, outgoing, score, metaPath, truncated.")
    public Stream<PathResult> bfs(
            @Name("topicIds") List<Object> topicIds,
            @Name("metaPaths") List<Map<String, Object>> metaPaths,
            @Name("queryVector") List<Double> queryVector,
            @Name(value = "config", defaultValue = "{}") Map<String, Object> config) {
        BfsConfig parsed = BfsConfig.parse(config);
        CallBudget budget = new CallBudget(parsed.maxVisits(), parsed.timeoutMs(), guard);
        double[] query = VectorIndexes.toVector(queryVector, "queryVector");
        checkTopicIds(topicIds);
        List<MetaPathSpec> specs = new ArrayList<>();
        for (int i = 0; i < (metaPaths == null ? 0 : metaPaths.size()); i++) {
            specs.add(MetaPathSpec.parse(metaPaths.get(i), i));
        }
        GuidedBfs search = new GuidedBfs(query, parsed, budget);
        SkbNodes topics = new SkbNodes(tx, budget); // lookups draw on the same budget as the search
        List<GuidedBfs.Found> found = new ArrayList<>();
        if (specs.isEmpty()) {
            found.addAll(search.unguided(topics.byIds(topicIds, null)));
        } else {
            for (MetaPathSpec spec : specs) {
                if (search.truncated()) {
                    break;
                }
                found.addAll(search.guided(topics.byIds(topicIds, spec.labels().get(0)), spec));
            }
        }
        Map<List<String>, GuidedBfs.Found> distinct = new LinkedHashMap<>(); // one row per node sequence
        found.stream().sorted(Comparator.comparingDouble((GuidedBfs.Found f) -> f.path().score()).reversed())
                .forEach(f -> distinct.putIfAbsent(f.path().nodes().stream().map(Node::getElementId).toList(), f));
        boolean truncated = search.truncated();
        return distinct.values().stream().limit(parsed.limit()).map(f -> new PathResult(f, truncated));
    }

    /** topicIds: at least one SKB id, each a string or a number (what the loader stores). */
    private static void checkTopicIds(List<Object> topicIds) {
        if (topicIds == null || topicIds.isEmpty()) {
            throw new IllegalArgumentException("topicIds must name at least one node (its `id` property)");
        }
        for (int i = 0; i < topicIds.size(); i++) {
            Object id = topicIds.get(i);
            if (!(id instanceof String || id instanceof Number)) {
                throw new IllegalArgumentException("topicIds[" + i + "] must be an SKB id (a string or a number); got "
                        + id);
            }
        }
    }
}
