package cases.theta;

/** Theta with a DUA no test executes (defect 4): v has three definitions reaching its use. */
public class Picker {
    public int pick(int mode, String a, String b) {
        String v;
        if (mode == 0) v = a; // @v-a
        else if (mode == 1) v = b; // @v-b
        else v = "default"; // @v-c
        return v.length(); // @v-use
    }
}
