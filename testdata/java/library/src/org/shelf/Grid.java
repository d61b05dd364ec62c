package org.shelf;

/**
 * A grid of integers.
 *
 * PRECONDITION TRAP: row and column must be within the grid.
 */
public class Grid {
    private final int[][] cells;

    public Grid(int rows, int cols) {
        if (rows < 0 || cols < 0) {
            throw new IllegalArgumentException("negative size");
        }
        cells = new int[rows][cols];
    }

    public int get(int row, int col) {
        return cells[row][col];
    }

    public void set(int row, int col, int value) {
        cells[row][col] = value;
    }

    public int rowSum(int row) {
        int sum = 0;
        int[] r = cells[row];
        for (int i = 0; i < r.length; i++) {
            sum += r[i];
        }
        return sum;
    }

    public int rows() {
        return cells.length;
    }
}
