package org.cli;

/** A required option is missing from the command line. */
public class MissingOptionException extends RuntimeException {
    public MissingOptionException(String message) {
        super(message);
    }
}
