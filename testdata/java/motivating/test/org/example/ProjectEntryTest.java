package org.example;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** PAF Figure 2: the four generated tests (two failing, two passing), as Randoop writes them. */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class ProjectEntryTest {

    @Test
    public void fTest1() throws Throwable {
        Project p = new Project();
        ProjectEntry pc = new ProjectEntry(p);
        pc.put((Object) 10.0d, (Object) 100.0d);
        int i = pc.indexOf((Object) "hi!"); // MUT
    }

    @Test
    public void fTest2() throws Throwable {
        ProjectEntry pc = new ProjectEntry();
        byte[] byte_array = new byte[] {};
        pc.handleInput(byte_array, (-1)); // MUT
    }

    @Test
    public void pTest1() throws Throwable {
        ProjectEntry pc = new ProjectEntry();
        pc.setProject(new Project("hi"));
        pc.handleInput(new byte[] {}, 1);
    }

    @Test
    public void pTest2() throws Throwable {
        Project p = new Project();
        ProjectEntry pc = new ProjectEntry(p);
        pc.handleInput(new byte[] {}, 5);
    }
}
