package grasp.plan;

import static grasp.plan.PlanValidateTest.anchor;
import static grasp.plan.PlanValidateTest.hop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grasp.testkb.SmallKbTest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.Record;

/** Plans that ask words of their targets' names ('diseases named "Dravet" with a seizure'). */
class PlanNameTermsTest extends SmallKbTest {

    static final Map<String, Object> SEIZURE = Map.of("a1", List.of(0.6, 0.8, 0.0, 0.0));

    static String named(String terms) {
        return "{\"anchors\": [" + anchor("a1", "Phenotype", "seizure") + "], \"hops\": ["
                + hop("a1", "HAS_PHENOTYPE", "t") + "], \"target\": {\"var\": \"t\", \"type\": \"Disease\"}"
                + (terms == null ? "" : ", \"name_contains\": " + terms) + "}";
    }

    private List<Object> ids(String plan) {
        Map<String, Object> params = new HashMap<>();
        params.put("plan", plan);
        params.put("vectors", SEIZURE);
        return kb.run("CALL grasp.plan.execute($plan, $vectors, null, 100, {})", params).stream()
                .map((Record r) -> r.get("nodeId").asObject()).toList();
    }

    @Test
    void targetsWhoseNameHoldsTheWordsRankFirstTheOthersKeepTheirOrder() {
        List<Object> plain = ids(named(null));
        assertThat(plain).containsExactlyInAnyOrder("D:1", "D:2", "D:3");
        List<Object> dravet = ids(named("[\"dravet\"]"));
        assertThat(dravet.get(0)).isEqualTo("D:2");
        assertThat(dravet.subList(1, 3)).isEqualTo(plain.stream().filter(id -> !id.equals("D:2")).toList());
        // every word must hold; a word no name holds changes nothing
        assertThat(ids(named("[\"Angelman\", \"syndrome\"]")).get(0)).isEqualTo("D:3");
        assertThat(ids(named("[\"Angelman\", \"West\"]"))).isEqualTo(plain);
        assertThat(ids(named("[]"))).isEqualTo(plain);
        assertThat(kb.nodeCount()).isEqualTo(10);
    }

    @Test
    void wordsMatchAtWordStartsWhateverTheCaseAccentsAndPunctuation() {
        assertThat(NameTerms.holds("X-linked spastic paraplegia", List.of("Spastic"))).isTrue();
        assertThat(NameTerms.holds("Nonspastic paraplegia", List.of("spastic"))).isFalse();
        assertThat(NameTerms.holds("Sjögren syndrome", List.of("sjogren"))).isTrue();
        assertThat(NameTerms.holds("Larsen-like syndrome", List.of("Larsen-Like"))).isTrue();
        assertThat(NameTerms.holds("Parkinsonism", List.of("Parkinson"))).isTrue(); // a word start, not a whole word
        assertThat(NameTerms.holds(null, List.of("x"))).isFalse();
        assertThat(NameTerms.holds(42, List.of("x"))).isFalse();
        assertThat(NameTerms.holds("anything", List.of())).isTrue();
    }

    @Test
    void badNameWordsAreRefusedWithTheirPlace() {
        assertThatThrownBy(() -> ids(named("[\" \"]"))).hasMessageContaining("name_contains[0] must be a non-blank string");
        assertThatThrownBy(() -> ids(named("[7]"))).hasMessageContaining("name_contains[0] must be a non-blank string");
        assertThatThrownBy(() -> ids(named("\"dravet\""))).hasMessageContaining("name_contains must be an array");
        assertThatThrownBy(() -> ids(named("[\"a\", \"b\", \"c\", \"d\", \"e\"]")))
                .hasMessageContaining("name_contains holds at most 4 words; got 5");
        assertThatThrownBy(() -> ids(named("[\"" + "x".repeat(101) + "\"]")))
                .hasMessageContaining("name_contains[0] is longer than 100 characters");
    }
}
