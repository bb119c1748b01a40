package grasp.plan;

import java.util.regex.Pattern;

/**
 * Reads a stored value as a quantity a plan can rank by: a number, or text written as one ("66,987,244",
 * "1 250.5", "-3e2"). Codes that look numeric are not quantities: a leading zero ("01001", a FIPS code) or a
 * leading plus ("+33", a dialling code) marks an identifier. The same rule as the Python side's
 * {@code grasp_agent.skb.property_kinds}, which decides which properties a question may rank by.
 */
public final class Quantities {

    private static final Pattern NUMBER = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?");

    private Quantities() {}

    /** The value as a finite double, or null when it is not a quantity (absent, a list, a word, a code). */
    public static Double parse(Object value) {
        if (value instanceof Boolean || value == null) {
            return null;
        }
        if (value instanceof Number number) {
            double d = number.doubleValue();
            return Double.isFinite(d) ? d : null;
        }
        if (!(value instanceof String text)) {
            return null;
        }
        // thousands separators: commas, underscores, spaces (also the no-break and thin spaces of typeset numbers)
        String compact = text.strip().replaceAll("[,_\\s\\u00A0\\u2009\\u202F]", "");
        if (!NUMBER.matcher(compact).matches()) {
            return null;
        }
        double d = Double.parseDouble(compact);
        return Double.isFinite(d) ? d : null;
    }
}
