package sites;

import java.util.AbstractList;

/** A list of boxes: called directly, and by the JDK and the test's own wrapper with the same name. */
public class BoxList extends AbstractList<Box> {
    private final Box[] boxes;

    public BoxList(Box... boxes) {
        this.boxes = boxes;
    }

    @Override
    public Box get(int i) {
        return boxes[i];
    }

    @Override
    public int size() {
        return boxes.length;
    }
}
