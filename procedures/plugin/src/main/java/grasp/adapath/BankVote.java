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
 * label and answer label. Ranked by vote, then support (bank-wide use), then signature. The first-choice vote
 * counts each query only for its cheapest meta-path (ADAPATH_USES.cost): a query whose answer is one hop away
 * also used the longer detours to it, which tie with the direct route on vote but not on first choice.
 */
final class BankVote {

    static final RelationshipType USES = RelationshipType.withName("ADAPATH_USES");
    static final Label META_PATH = Label.label("AdaPathMetaPath");
    static final int EXAMPLES = 5;
    /** Paths costing this much more than a query's cheapest still count as its first choice (float noise). */
    static final double FIRST_CHOICE_SLACK = 1e-9;

    /**
     * A meta-path with its vote: the sum of its voters' scores, how many voted, some of their ids; firstVote sums
     * the scores of the voters for which it was the cheapest meta-path they used (their first choice).
     */
    record Ranked(StoredMetaPath metaPath, double vote, long voters, List<Object> examples, double firstVote) {}

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
            List<Node> used = new ArrayList<>();
            List<Double> costs = new ArrayList<>();
            try (var uses = hit.query().getRelationships(Direction.OUTGOING, USES)) {
                for (Relationship use : uses) {
                    Node node = use.getEndNode();
                    if (!node.hasLabel(META_PATH)) {
                        continue;
                    }
                    StoredMetaPath metaPath = read.computeIfAbsent(node.getElementId(), key -> StoredMetaPath.read(node));
                    if (passes(metaPath, config)) {
                        used.add(node);
                        costs.add(use.getProperty("cost", null) instanceof Number cost ? cost.doubleValue() : 0.0);
                    }
                }
            }
            double cheapest = costs.stream().mapToDouble(Double::doubleValue).min().orElse(0.0);
            for (int i = 0; i < used.size(); i++) {
                Node node = used.get(i);
                boolean first = costs.get(i) <= cheapest + FIRST_CHOICE_SLACK;
                tallies.computeIfAbsent(node.getElementId(), key -> new Tally(read.get(key))).add(hit.score(), queryId, first);
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
        private double firstVote;
        private long voters;

        Tally(StoredMetaPath metaPath) {
            this.metaPath = metaPath;
        }

        void add(double score, Object queryId, boolean first) {
            vote += score;
            if (first) {
                firstVote += score;
            }
            voters++;
            if (queryId != null && examples.size() < EXAMPLES) {
                examples.add(queryId);
            }
        }

        Ranked ranked() {
            return new Ranked(metaPath, vote, voters, List.copyOf(examples), firstVote);
        }
    }
}
