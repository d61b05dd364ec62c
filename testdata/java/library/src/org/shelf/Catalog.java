package org.shelf;

import java.util.HashMap;
import java.util.Map;

/**
 * A catalog of priced items, looked up by name, case-insensitively.
 *
 * REAL FAULT F1: priceOf looks the item up by the raw name instead of its key (the lower-cased
 * name), so an item added with an upper-case letter is "missing" and priceOf dereferences null.
 */
public class Catalog {

    /** An item of the catalog. */
    public static class Item {
        final String name;
        final int price;

        Item(String name, int price) {
            this.name = name;
            this.price = price;
        }
    }

    private final Map<String, Item> items = new HashMap<>();
    private int count;

    private static String key(String name) {
        return name.toLowerCase();
    }

    public void add(String name, int price) {
        if (name == null) {
            throw new IllegalArgumentException("name must not be null");
        }
        if (!items.containsKey(key(name))) {
            count++;
        }
        items.put(key(name), new Item(name, price));
    }

    public boolean contains(String name) {
        return name != null && items.containsKey(key(name));
    }

    /** The price of the named item, or -1 if the catalog has no such item. */
    public int priceOf(String name) {
        if (!contains(name)) {
            return -1;
        }
        Item it = items.get(name); // F1: should be items.get(key(name))
        return it.price;
    }

    public int size() {
        return count;
    }

    public int total() {
        int sum = 0;
        for (Item it : items.values()) {
            sum += it.price;
        }
        return sum;
    }
}
