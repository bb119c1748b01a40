package grasp.link;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VectorIndexesTest {

    @Test
    void anIndexIsAskedForAtLeastAHundredCandidates() {
        // HNSW misses a node's own vector among a dozen candidates (1 in 60 HPO phenotype names, 1 in 9 geo
        // counties), none among 100
        assertThat(VectorIndexes.candidates(1)).isEqualTo(VectorIndexes.MIN_CANDIDATES).isEqualTo(100);
        assertThat(VectorIndexes.candidates(45)).isEqualTo(100);
        assertThat(VectorIndexes.candidates(100)).isEqualTo(210); // 2k + 10 above the floor
    }
}
