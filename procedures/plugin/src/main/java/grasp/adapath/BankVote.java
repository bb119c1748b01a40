package grasp.adapath;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.procedure.TerminationGuard;

/**
 * Path-Bank retrieval's vote, as the {@code bank_meta_paths} statement of cypher/adapath.cypher computes it:
 * each of the nearest bank queries votes with its index score for every meta-path it used (ADAPATH_USES), so a
 * meta-path that many similar queries share beats one a single query used; optional filters on hops, start
 * label and answer label. Ranked by vote, then support (bank-wide use), then signature.
 */
final class BankVote {

    static final RelationshipType USES = RelationshipType.withName("ADAPATH_USES");
    static final Label META_PATH = Label.label("AdaPathMetaPath");
    static final int EXAMPLES = 5;

    /** A meta-path with its vote: the sum of its voters' scores, how many voted, some of their ids. */
    record Ranked(StoredMetaPath metaPath, double vote, long voters, List<Object> examples) {}

    private static final Comparator<Ranked> BEST_FIRST = Comparator
            .comparingDouble(Ranked::vote).reversed()
            .thenComparing(Comparator.comparingLong((Ranked r) -> r.metaPath().support()).reversed())
            .thenComparing(r -> r.metaPath().signature());

    private BankVote() {}

    static List<Ranked> rank(List<BankIndex.Hit> hits, BankConfig config, TerminationGuard guard) {
        List<BankIndex.Hit> bestFirst = new ArrayList<>(hits);
        // Most similar first, so examples list the closest voters; a stable sort keeps the index's order on ties.
        bestFirst.sort(Comparator.comparingDouble(BankIndex.Hit::score).reversed());
        Map<String, StoredMetaPath> read = new LinkedHashMap<>();
        Map<String, Tally> tallies = new LinkedHashMap<>();
        for (BankIndex.Hit hit : bestFirst) {
            guard.check();
            Object queryId = hit.query().getProperty("id", null);
            try (var uses = hit.query().getRelationships(Direction.OUTGOING, USES)) {
                for (Relationship use : uses) {
                    Node node = use.getEndNode();
                    if (!node.hasLabel(META_PATH)) {
                        continue;
                    }
                    StoredMetaPath metaPath = read.computeIfAbsent(node.getElementId(), key -> StoredMetaPath.read(node));
                    if (passes(metaPath, config)) {
                        tallies.computeIfAbsent(node.getElementId(), key -> new Tally(metaPath)).add(hit.score(), queryId);
                    }
                }
            }
        }
        return tallies.values().stream().map(Tally::ranked).sorted(BEST_FIRST).limit(config.limit()).toList();
    }

    private static boolean passes(StoredMetaPath metaPath, BankConfig config) {
        return (config.hops() == null || metaPath.hops() == config.hops())
                && (config.startLabel() == null || Objects.equals(metaPath.startLabel(), config.startLabel()))
                && (config.answerLabel() == null || Objects.equals(metaPath.answerLabel(), config.answerLabel()));
    }

    private static final class Tally {
        private final StoredMetaPath metaPath;
        private final List<Object> examples = new ArrayList<>();
        private double vote;
        private long voters;

        Tally(StoredMetaPath metaPath) {
            this.metaPath = metaPath;
        }

        void add(double score, Object queryId) {
            vote += score;
            voters++;
            if (queryId != null && examples.size() < EXAMPLES) {
                examples.add(queryId);
            }
        }

        Ranked ranked() {
            return new Ranked(metaPath, vote, voters, List.copyOf(examples));
        }
    }
}
