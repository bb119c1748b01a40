package grasp.adapath;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The {@code k} best of the items offered, by a total order ({@code bestFirst}), holding at most {@code k} at any
 * time: a beam cut while it fills, not after, so memory stays O(k) however many items are offered.
 */
final class TopK<T> {

    private final int k;
    private final Comparator<? super T> bestFirst;
    private final PriorityQueue<T> worstFirst; // the head is the item the next better one replaces

    TopK(long k, Comparator<? super T> bestFirst) {
        this.k = (int) Math.min(k, Integer.MAX_VALUE);
        this.bestFirst = bestFirst;
        this.worstFirst = new PriorityQueue<>(Collections.reverseOrder(bestFirst));
    }

    /**
     * Keeps {@code item} if it is among the {@code k} best so far. Returns what is left out: {@code item} itself,
     * the item it pushed out, or null when nothing was.
     */
    T offer(T item) {
        if (worstFirst.size() < k) {
            worstFirst.add(item);
            return null;
        }
        if (bestFirst.compare(item, worstFirst.peek()) >= 0) {
            return item;
        }
        T out = worstFirst.poll();
        worstFirst.add(item);
        return out;
    }

    /** Takes a kept item out again (linear in k). */
    void remove(T item) {
        worstFirst.remove(item);
    }

    int size() {
        return worstFirst.size();
    }

    /** The kept items, best first. */
    List<T> best() {
        List<T> items = new ArrayList<>(worstFirst);
        items.sort(bestFirst);
        return items;
    }
}
