package org.shelf;

/**
 * A message channel.
 *
 * PRECONDITION TRAPS: open must be called before send or pending; close only an open channel.
 */
public class Channel {
    private StringBuilder buffer;
    private boolean open;
    private int sent;

    public void open() {
        buffer = new StringBuilder();
        open = true;
    }

    public void send(String message) {
        buffer.append(message).append('\n');
        sent++;
    }

    public int pending() {
        return buffer.length();
    }

    public int sent() {
        return sent;
    }

    public boolean isOpen() {
        return open;
    }

    public void close() {
        if (!open) {
            throw new IllegalStateException("the channel is not open");
        }
        open = false;
    }
}
