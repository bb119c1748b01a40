package grasp.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class QuantitiesTest {

    @Test
    void numbersAndNumbersWrittenAsTextAreQuantities() {
        assertThat(Quantities.parse(3L)).isEqualTo(3.0);
        assertThat(Quantities.parse(2.5)).isEqualTo(2.5);
        assertThat(Quantities.parse("66,987,244")).isEqualTo(66_987_244.0);
        assertThat(Quantities.parse(" 1 250.5 ")).isEqualTo(1250.5);
        assertThat(Quantities.parse("1\u202F000")).isEqualTo(1000.0);
        assertThat(Quantities.parse("-3e2")).isEqualTo(-300.0);
        assertThat(Quantities.parse("0")).isEqualTo(0.0);
        assertThat(Quantities.parse("0.75")).isEqualTo(0.75);
    }

    @Test
    void codesWordsAndOtherValuesAreNot() {
        assertThat(Quantities.parse("01001")).isNull(); // a FIPS code keeps its leading zero
        assertThat(Quantities.parse("+33")).isNull(); // a dialling code
        assertThat(Quantities.parse("12 km")).isNull();
        assertThat(Quantities.parse("48.85, 2.35")).isNull(); // coordinates: two decimal points once commas go
        assertThat(Quantities.parse("")).isNull();
        assertThat(Quantities.parse(null)).isNull();
        assertThat(Quantities.parse(true)).isNull();
        assertThat(Quantities.parse(Double.NaN)).isNull();
        assertThat(Quantities.parse(List.of(1, 2))).isNull();
    }
}
