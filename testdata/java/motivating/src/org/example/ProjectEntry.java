package org.example;

import java.util.HashMap;

/**
 * PAF paper, Figure 2: the motivating example in Java. The figure's line numbers are kept:
 * entries.get on line 45, the while on 47, return project on 56, the call in handleInput on 59,
 * and the field project declared on line 32. Comments and blank lines pad the file to get there.
 *
 * In the figure the passing tests construct a "ProjectComponent"; here every test uses
 * ProjectEntry, the class whose source the figure shows.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
public class ProjectEntry {

    /** An entry of the map, linked to the previous one (the figure leaves it out). */
    static class Entry {
        Object key;
        Object value;
        Entry prev;

        Entry(Object key, Object value) {
            this.key = key;
            this.value = value;
        }
    }

    // the end of a chain of prev links
    private Entry sentinel;

    private HashMap entries;
    private Project project;

    public ProjectEntry(){}
    public ProjectEntry(Project project){
        this.project = project;
        entries = new HashMap(10);
    }

    public void put(Object key, Object value) {
        Entry e = new Entry(key, value);
        entries.put(key, e);
    }
    public int indexOf(Object key) {
        Entry e = (Entry) entries.get(key);
        int pos = 0;
        while(e.prev != sentinel) { // NPE 1
            pos++; e = e.prev; }
        return pos;
    }

    public void setProject(Project project) {
        this.project = project;
    }
    public Project getProject(){
        return project;
    }
    public int handleInput(byte[] buffer, int offset) {
        return getProject().input(buffer, offset); // NPE 2
    }
}
