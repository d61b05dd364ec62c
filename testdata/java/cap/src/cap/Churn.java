package cap;

/** Defect 9: a method under test that runs past the event cap before it fails. */
public class Churn {
    private String label; // @label-decl

    public void setLabel(String l) {
        label = l; // @label-set
    }

    private int step(int i) {
        return i % 7;
    }

    public int run(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) s += step(i);
        return s + label.length(); // @label-use
    }
}
