package grasp.cypher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CypherIdentifierTest {

    @Test
    void plainNamesAreQuoted() {
        assertThat(CypherIdentifier.quote("Gene")).isEqualTo("`Gene`");
        assertThat(CypherIdentifier.quote("_HAS_PHENOTYPE_2")).isEqualTo("`_HAS_PHENOTYPE_2`");
        assertThat(CypherIdentifier.quote("a".repeat(64))).isEqualTo("`" + "a".repeat(64) + "`");
        assertThat(CypherIdentifier.problem("doc_embedding", "config embeddingProperty")).isNull();
    }

    @Test
    void quoteRefusesEverythingElse() {
        List<String> refused = Arrays.asList(
                "H\\u0060) RETURN n LIMIT 0 UNION MATCH (n:Gene) RETURN n UNION MATCH (n:\\u0060Gene", // literal \u0060
                "a`b", "a\u0060b", "a``b", "Disease) DETACH DELETE n //", "", " ", "a b", "1abc", "a".repeat(65),
                "G\u00e8ne", "a-b", "a.b", "a\nb", null);
        for (String name : refused) {
            assertThatThrownBy(() -> CypherIdentifier.quote(name)).as(String.valueOf(name))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a Cypher identifier")
                    .hasMessageContaining("is not allowed; names must be strings matching ^[A-Za-z_][A-Za-z0-9_]{0,63}$");
        }
    }

    @Test
    void checkNamesThePlaceAndTheValue() {
        assertThatThrownBy(() -> CypherIdentifier.check("x` DELETE n", "config embeddingProperty"))
                .hasMessageStartingWith("config embeddingProperty 'x` DELETE n' is not allowed; names must be strings "
                        + "matching ^[A-Za-z_][A-Za-z0-9_]{0,63}$");
        assertThatThrownBy(() -> CypherIdentifier.check(3L, "config startLabel"))
                .hasMessageStartingWith("config startLabel 3 is not allowed");
        assertThat(CypherIdentifier.check("Disease", "label")).isEqualTo("Disease");
    }
}
