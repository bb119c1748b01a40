package grasp.schema;

import grasp.cypher.CypherIdentifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.TokenRead;
import org.neo4j.token.api.TokenConstants;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.token.api.NamedToken;

/**
 * Reads a {@link GraphSchema} mostly from the count store. A relationship type whose ends carry exactly one
 * label each is answered from counts alone; only types with several candidate label pairs are scanned,
 * and only their own relationships (through the relationship type index). Labels and types whose names fail
 * {@link CypherIdentifier#PATTERN} are set apart as unusable and appear in no pattern.
 */
final class SchemaReader {

    private final Transaction tx;
    private final Read read;
    private final TokenRead tokens;

    SchemaReader(Transaction tx) {
        this.tx = tx;
        KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
        this.read = ktx.dataRead();
        this.tokens = ktx.tokenRead();
    }

    private final Map<String, Long> unusableLabels = new LinkedHashMap<>();
    private final Map<String, Long> unusableTypes = new LinkedHashMap<>();

    GraphSchema read() {
        Map<Integer, String> labels = presentLabels();
        Map<String, Long> labelCounts = new LinkedHashMap<>();
        labels.forEach((id, name) -> labelCounts.put(name, read.countsForNode(id)));
        Set<String> usable = labelCounts.keySet();

        Map<String, Long> typeCounts = new LinkedHashMap<>();
        List<GraphSchema.Pattern> patterns = new ArrayList<>();
        Iterator<NamedToken> types = tokens.relationshipTypesGetAllTokens();
        while (types.hasNext()) {
            NamedToken type = types.next();
            long total = read.countsForRelationship(TokenConstants.ANY_LABEL, type.id(), TokenConstants.ANY_LABEL);
            if (total == 0 || Bookkeeping.isRelationshipType(type.name())) {
                continue; // a token left behind by deleted data, or grasp's own bookkeeping
            }
            if (!CypherIdentifier.isValid(type.name())) {
                unusableTypes.put(type.name(), total);
                continue;
            }
            typeCounts.put(type.name(), total);
            patterns.addAll(patternsOf(type, total, labels, usable));
        }
        return new GraphSchema(labelCounts, typeCounts, patterns, unusableLabels, unusableTypes);
    }

    private Map<Integer, String> presentLabels() {
        Map<Integer, String> labels = new LinkedHashMap<>();
        Iterator<NamedToken> all = tokens.labelsGetAllTokens();
        while (all.hasNext()) {
            NamedToken label = all.next();
            long count = read.countsForNode(label.id());
            if (count == 0 || Bookkeeping.isLabel(label.name())) {
                continue;
            }
            if (CypherIdentifier.isValid(label.name())) {
                labels.put(label.id(), label.name());
            } else {
                unusableLabels.put(label.name(), count);
            }
        }
        return labels;
    }

    private List<GraphSchema.Pattern> patternsOf(NamedToken type, long total, Map<Integer, String> labels,
            Set<String> usable) {
        Map<Integer, Long> sources = new HashMap<>();
        Map<Integer, Long> targets = new HashMap<>();
        for (int labelId : labels.keySet()) {
            long out = read.countsForRelationship(labelId, type.id(), TokenConstants.ANY_LABEL);
            long in = read.countsForRelationship(TokenConstants.ANY_LABEL, type.id(), labelId);
            if (out > 0) {
                sources.put(labelId, out);
            }
            if (in > 0) {
                targets.put(labelId, in);
            }
        }
        if (sources.size() == 1 && targets.size() == 1) {
            int source = sources.keySet().iterator().next();
            int target = targets.keySet().iterator().next();
            // Every edge of the type starts at `source` and ends at `target`: the pair count is the total.
            if (sources.get(source) == total && targets.get(target) == total) {
                return List.of(new GraphSchema.Pattern(labels.get(source), type.name(), labels.get(target), total));
            }
        }
        return scan(type.name(), usable);
    }

    /** Pairs of the {@code usable} labels (SKB labels with plain names) at the ends of the type's relationships. */
    private List<GraphSchema.Pattern> scan(String typeName, Set<String> usable) {
        Map<List<String>, Long> counts = new LinkedHashMap<>();
        try (ResourceIterator<Relationship> rels = tx.findRelationships(RelationshipType.withName(typeName))) {
            while (rels.hasNext()) {
                Relationship rel = rels.next();
                for (Label start : rel.getStartNode().getLabels()) {
                    for (Label end : rel.getEndNode().getLabels()) {
                        if (!usable.contains(start.name()) || !usable.contains(end.name())) {
                            continue;
                        }
                        counts.merge(List.of(start.name(), end.name()), 1L, Long::sum);
                    }
                }
            }
        }
        List<GraphSchema.Pattern> patterns = new ArrayList<>();
        counts.forEach((pair, count) -> patterns.add(new GraphSchema.Pattern(pair.get(0), typeName, pair.get(1), count)));
        return patterns;
    }
}
