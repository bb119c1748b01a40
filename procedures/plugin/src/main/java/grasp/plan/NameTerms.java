package grasp.plan;

import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Whether a target's name holds the words a plan asks of it ({@link Plan#nameContains}): compared case- and
 * accent-insensitively, hyphens, slashes and other punctuation read as spaces, a term matching at word starts
 * ("spastic" holds in "Spastic paraplegia 7" and "X-linked spastic..." but not in "Nonspastic").
 */
public final class NameTerms {

    private static final Pattern MARKS = Pattern.compile("\\p{M}+");
    private static final Pattern NOT_WORD = Pattern.compile("[^\\p{L}\\p{N}]+");

    private NameTerms() {}

    /** Lower case, accents off, every run of other characters one space, padded with a space each side. */
    static String fold(String text) {
        String plain = MARKS.matcher(Normalizer.normalize(text, Normalizer.Form.NFKD)).replaceAll("");
        return " " + NOT_WORD.matcher(plain.toLowerCase(Locale.ROOT)).replaceAll(" ").trim() + " ";
    }

    /** Whether {@code name} holds every term at a word start; an empty list holds in every name, a null name none. */
    public static boolean holds(Object name, List<String> terms) {
        if (terms.isEmpty()) {
            return true;
        }
        if (!(name instanceof String text)) {
            return false;
        }
        String folded = fold(text);
        for (String term : terms) {
            String word = fold(term).stripTrailing();
            if (word.isBlank() || !folded.contains(word)) {
                return false;
            }
        }
        return true;
    }
}
