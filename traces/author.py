#!/usr/bin/env python3
"""Authoring source of the hand-written example bundles in traces/ (except motivating/).

Each bundle is written as a tracer following docs/trace-format.md would record the Java
program quoted in its README.md. Run from the repository root: python3 traces/author.py
"""
import json
import os

ROOT = os.path.dirname(os.path.abspath(__file__))


def dump(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


class Bundle:
    def __init__(self, name, subject):
        self.dir = os.path.join(ROOT, name)
        os.makedirs(self.dir, exist_ok=True)
        self.subject = subject
        self.stmts = []
        self.rows = []
        self.static = []

    def stmt(self, sid, cls, method, file, line):
        r = {"id": sid, "class": cls}
        if method:
            r["method"] = method
        r.update({"file": file, "line": line})
        self.stmts.append(r)

    def test(self, name):
        return Test(self, name)

    def write(self):
        with open(os.path.join(self.dir, "manifest.json"), "w") as f:
            json.dump({"format": "paf-trace", "version": 1,
                       "producer": "hand-written (traces/author.py)",
                       "subject": self.subject}, f, indent=1)
            f.write("\n")
        dump(os.path.join(self.dir, "statements.jsonl"), self.stmts)
        dump(os.path.join(self.dir, "tests.jsonl"), self.rows)
        if self.static:
            dump(os.path.join(self.dir, "static-duas.jsonl"), self.static)


class Test:
    def __init__(self, bundle, name):
        self.b, self.name, self.ev, self.next_frame = bundle, name, [], 1

    def enter(self, method, this=None, caller=None):
        fr = self.next_frame
        self.next_frame += 1
        e = {"k": "enter", "frame": fr, "method": method}
        if caller is not None:
            e["caller"] = caller
        if this is not None:
            e["this"] = this
        self.ev.append(e)
        return fr

    def exit(self, fr, throw=None):
        e = {"k": "exit", "frame": fr}
        if throw:
            e["throw"] = throw
        self.ev.append(e)

    def alloc(self, obj, cls, fr, fields):
        self.ev.append({"k": "alloc", "obj": obj, "class": cls, "frame": fr,
                        "fields": [{"field": f, "stmt": s} for f, s in fields]})

    def d(self, fr, stmt, var, frm=None, how=None, callee=None, cast=False):
        e = {"k": "def", "frame": fr, "stmt": stmt, "var": var}
        if frm is not None:
            e["from"] = frm
        if cast:
            e["cast"] = True
        if how:
            e["how"] = how
        if callee:
            e["callee"] = callee
        self.ev.append(e)

    def param(self, fr, stmt, *names):
        for n in names:
            self.d(fr, stmt, L(n), how="param")

    def u(self, fr, stmt, var, role=None, null=False):
        e = {"k": "use", "frame": fr, "stmt": stmt, "var": var}
        if role:
            e["role"] = role
        if null:
            e["null"] = True
        self.ev.append(e)

    def br(self, fr, stmt, *vars):
        self.ev.append({"k": "branch", "frame": fr, "stmt": stmt, "uses": list(vars)})

    def end(self, outcome="pass", exc=None, frames=()):
        rows = [{"k": "begin", "test": self.name}] + self.ev
        end = {"k": "end", "test": self.name, "outcome": outcome, "events": len(self.ev)}
        if exc:
            end["exception"] = {"type": exc, "message": None,
                                "frames": [{"class": c, "method": m, "file": f, "line": l}
                                           for c, m, f, l in frames]}
        rows.append(end)
        self.b.rows.extend(rows)


def L(name, frame=None):
    v = {"local": name}
    if frame is not None:
        v["frame"] = frame
    return v


def F(field, obj):
    return {"field": field, "obj": obj}


def R(frame):
    return {"ret": frame}


IAE = "java.lang.IllegalArgumentException"
NPE = "java.lang.NullPointerException"
AIOOBE = "java.lang.ArrayIndexOutOfBoundsException"


def iae_two_variables():
    b = Bundle("iae-two-variables", "Window: IllegalArgumentException under a branch on two fields")
    W, WF = "demo.Window", "Window.java"
    b.stmt(2, W, None, WF, 2)
    b.stmt(3, W, None, WF, 3)
    for line, m in [(4, "resize"), (5, "resize"), (6, "resize"), (8, "shrink"), (9, "shrink"),
                    (10, "shrink"), (13, "validate"), (14, "validate")]:
        b.stmt(line, W, m, WF, line)
    fields = [("demo.Window.start", 2), ("demo.Window.end", 3)]

    def new_window(t):
        c = t.enter("demo.Window.<init>", this=1)
        t.alloc(1, W, c, fields)
        t.exit(c)

    def validate(t, caller):
        v = t.enter("demo.Window.validate", this=1, caller=caller)
        t.br(v, 13, F("demo.Window.start", 1), F("demo.Window.end", 1))
        return v

    # fResize: new Window().resize(-5): the test's argument violates start <= end.
    t = b.test("WindowTest.fResize")
    new_window(t)
    r = t.enter("demo.Window.resize", this=1)
    t.param(r, 4, "newEnd")
    t.d(r, 5, F("demo.Window.end", 1), frm=L("newEnd"))
    v = validate(t, r)
    t.exit(v, IAE)
    t.exit(r, IAE)
    t.end("fail", IAE, [(W, "validate", WF, 14), (W, "resize", WF, 6), ("WindowTest", "fResize", "WindowTest.java", 12)])

    # fShrink: new Window().shrink(): end = start - 1 is computed inside the MUT (a real fault).
    t = b.test("WindowTest.fShrink")
    new_window(t)
    s = t.enter("demo.Window.shrink", this=1)
    t.u(s, 9, F("demo.Window.start", 1))
    t.d(s, 9, F("demo.Window.end", 1), how="arith")
    v = validate(t, s)
    t.exit(v, IAE)
    t.exit(s, IAE)
    t.end("fail", IAE, [(W, "validate", WF, 14), (W, "shrink", WF, 10), ("WindowTest", "fShrink", "WindowTest.java", 18)])

    # pResize: new Window().resize(10).
    t = b.test("WindowTest.pResize")
    new_window(t)
    r = t.enter("demo.Window.resize", this=1)
    t.param(r, 4, "newEnd")
    t.d(r, 5, F("demo.Window.end", 1), frm=L("newEnd"))
    v = validate(t, r)
    t.exit(v)
    t.exit(r)
    t.end()
    b.write()


def array_index():
    b = Bundle("array-index", "Buffer: ArrayIndexOutOfBoundsException, a computed index and a passed one")
    B, BF = "demo.Buffer", "Buffer.java"
    b.stmt(2, B, None, BF, 2)
    b.stmt(3, B, None, BF, 3)
    for line, m in [(2, "<init>"), (5, "get"), (6, "get"), (8, "last"), (9, "last"), (10, "last")]:
        b.stmt(100 + line if m == "<init>" else line, B, m, BF, line)
    fields = [("demo.Buffer.data", 2), ("demo.Buffer.pos", 3)]

    def new_buffer(t):
        c = t.enter("demo.Buffer.<init>", this=1)
        t.alloc(1, B, c, fields)
        t.d(c, 102, F("demo.Buffer.data", 1), how="new")
        t.exit(c)

    # fLast: new Buffer().last(): idx = pos - 1 = -1, computed in the MUT.
    t = b.test("BufferTest.fLast")
    new_buffer(t)
    m = t.enter("demo.Buffer.last", this=1)
    t.u(m, 9, F("demo.Buffer.pos", 1))
    t.d(m, 9, L("idx"), how="arith")
    t.u(m, 10, F("demo.Buffer.data", 1), role="deref")
    t.u(m, 10, L("idx"), role="index")
    t.exit(m, AIOOBE)
    t.end("fail", AIOOBE, [(B, "last", BF, 10), ("BufferTest", "fLast", "BufferTest.java", 7)])

    # fGet: new Buffer().get(7): the test passes an index out of range.
    t = b.test("BufferTest.fGet")
    new_buffer(t)
    m = t.enter("demo.Buffer.get", this=1)
    t.param(m, 5, "i")
    t.u(m, 6, F("demo.Buffer.data", 1), role="deref")
    t.u(m, 6, L("i"), role="index")
    t.exit(m, AIOOBE)
    t.end("fail", AIOOBE, [(B, "get", BF, 6), ("BufferTest", "fGet", "BufferTest.java", 12)])

    # pGet: new Buffer().get(2).
    t = b.test("BufferTest.pGet")
    new_buffer(t)
    m = t.enter("demo.Buffer.get", this=1)
    t.param(m, 5, "i")
    t.u(m, 6, F("demo.Buffer.data", 1), role="deref")
    t.u(m, 6, L("i"), role="index")
    t.d(m, 6, R(m), how="other")
    t.exit(m)
    t.end()
    b.write()


def copy_chain():
    b = Bundle("copy-chain", "Registry/Dispatcher: a copy chain through a field and a return value")
    RG, RF = "demo.Registry", "Registry.java"
    D, DF = "demo.Dispatcher", "Dispatcher.java"
    b.stmt(2, RG, None, RF, 2)
    b.stmt(4, RG, "register", RF, 4)
    b.stmt(5, RG, "register", RF, 5)
    b.stmt(8, RG, "lookup", RF, 8)
    b.stmt(102, D, None, DF, 2)
    b.stmt(103, D, "<init>", DF, 3)
    b.stmt(104, D, "<init>", DF, 4)
    b.stmt(107, D, "dispatch", DF, 7)
    b.stmt(108, D, "dispatch", DF, 8)
    b.stmt(109, D, "dispatch", DF, 9)

    def new_registry(t):
        c = t.enter("demo.Registry.<init>", this=1)
        t.alloc(1, RG, c, [("demo.Registry.handler", 2)])
        t.exit(c)

    def register(t, null):
        m = t.enter("demo.Registry.register", this=1)
        t.param(m, 4, "h")
        t.d(m, 5, F("demo.Registry.handler", 1), frm=L("h"))
        t.exit(m)

    def new_dispatcher(t):
        c = t.enter("demo.Dispatcher.<init>", this=2)
        t.alloc(2, D, c, [("demo.Dispatcher.registry", 102)])
        t.param(c, 103, "r")
        t.d(c, 104, F("demo.Dispatcher.registry", 2), frm=L("r"))
        t.exit(c)

    def dispatch(t, ok):
        m = t.enter("demo.Dispatcher.dispatch", this=2)
        t.param(m, 107, "event")
        t.u(m, 108, F("demo.Dispatcher.registry", 2), role="deref")
        lk = t.enter("demo.Registry.lookup", this=1, caller=m)
        t.d(lk, 8, R(lk), frm=F("demo.Registry.handler", 1))
        t.exit(lk)
        t.d(m, 108, L("h"), frm=R(lk), cast=True)
        t.u(m, 109, L("h"), role="deref", null=not ok)
        if ok:
            t.u(m, 109, L("event"), role="arg")
            t.exit(m)
        else:
            t.exit(m, NPE)

    frames = lambda tm, tl: [(D, "dispatch", DF, 9), ("DispatcherTest", tm, "DispatcherTest.java", tl)]
    # fRegisteredNull: r.register(null); new Dispatcher(r).dispatch(e).
    t = b.test("DispatcherTest.fRegisteredNull")
    new_registry(t)
    register(t, True)
    new_dispatcher(t)
    dispatch(t, False)
    t.end("fail", NPE, frames("fRegisteredNull", 9))
    # fNeverRegistered: new Dispatcher(new Registry()).dispatch(e).
    t = b.test("DispatcherTest.fNeverRegistered")
    new_registry(t)
    new_dispatcher(t)
    dispatch(t, False)
    t.end("fail", NPE, frames("fNeverRegistered", 15))
    # pDispatch: r.register(new Printer()); new Dispatcher(r).dispatch(e).
    t = b.test("DispatcherTest.pDispatch")
    new_registry(t)
    register(t, False)
    new_dispatcher(t)
    dispatch(t, True)
    t.end()
    b.write()


def uninstrumented_origin():
    b = Bundle("uninstrumented-origin", "Settings: a local NPE whose origin is a call into java.util.Properties")
    S, SF = "demo.Settings", "Settings.java"
    b.stmt(2, S, None, SF, 2)
    for line, m in [(4, "<init>"), (7, "get"), (8, "get"), (9, "get"), (10, "get")]:
        b.stmt(line, S, m, SF, line)
    # A static analysis saw the other definition of v (line 9, the defaults branch) reach line 10.
    b.static.append({"def": 9, "use": 10, "var": "v"})

    def new_settings(t):
        c = t.enter("demo.Settings.<init>", this=1)
        t.alloc(1, S, c, [("demo.Settings.props", 2)])
        t.d(c, 4, F("demo.Settings.props", 1), how="new")
        t.exit(c)

    def get(t, found):
        m = t.enter("demo.Settings.get", this=1)
        t.param(m, 7, "key")
        t.u(m, 8, F("demo.Settings.props", 1), role="deref")
        t.u(m, 8, L("key"), role="arg")
        t.d(m, 8, L("v"), how="call", callee="java.util.Properties.getProperty")
        t.u(m, 10, L("v"), role="deref", null=not found)
        if found:
            t.d(m, 10, R(m), how="call", callee="java.lang.String.trim")
            t.exit(m)
        else:
            t.exit(m, NPE)

    t = b.test("SettingsTest.fMissingKey")
    new_settings(t)
    get(t, False)
    t.end("fail", NPE, [(S, "get", SF, 10), ("SettingsTest", "fMissingKey", "SettingsTest.java", 6)])
    t = b.test("SettingsTest.pPresentKey")
    new_settings(t)
    s = t.enter("demo.Settings.set", this=1)
    t.exit(s)
    get(t, True)
    t.end()
    b.write()


def two_crash_statements():
    b = Bundle("two-crash-statements", "LinkedList: one origin (the head field's default) reaching two crash statements")
    LL, LF = "demo.LinkedList", "LinkedList.java"
    b.stmt(2, LL, None, LF, 2)
    for line, m in [(5, "add"), (6, "add"), (9, "size"), (12, "first")]:
        b.stmt(line, LL, m, LF, line)
    head = ("demo.LinkedList.head", 2)

    def new_list(t):
        c = t.enter("demo.LinkedList.<init>", this=1)
        t.alloc(1, LL, c, [head])
        t.exit(c)

    def crash(t, method, line):
        m = t.enter("demo.LinkedList." + method, this=1)
        t.u(m, line, F("demo.LinkedList.head", 1), role="deref", null=True)
        t.exit(m, NPE)
        return m

    def frames(method, line, tm):
        return [(LL, method, LF, line), ("LinkedListTest", tm, "LinkedListTest.java", 3)]

    t = b.test("LinkedListTest.fSize")
    new_list(t)
    crash(t, "size", 9)
    t.end("fail", NPE, frames("size", 9, "fSize"))
    # Same dataflow as fSize after an unrelated call: same flow-set, more events.
    t = b.test("LinkedListTest.fSizeAfterClear")
    new_list(t)
    c = t.enter("demo.LinkedList.clear", this=1)
    t.exit(c)
    crash(t, "size", 9)
    t.end("fail", NPE, frames("size", 9, "fSizeAfterClear"))
    t = b.test("LinkedListTest.fFirst")
    new_list(t)
    crash(t, "first", 12)
    t.end("fail", NPE, frames("first", 12, "fFirst"))
    # A failing assertion in the test body: PAF does not analyze it, but ranks it last.
    t = b.test("LinkedListTest.fAssert")
    new_list(t)
    t.end("fail", "junit.framework.AssertionFailedError",
          [("junit.framework.Assert", "fail", "Assert.java", 50), ("LinkedListTest", "fAssert", "LinkedListTest.java", 30)])
    # pAddThenSize: add() defines head, so size() reads it without failing.
    t = b.test("LinkedListTest.pAddThenSize")
    new_list(t)
    a = t.enter("demo.LinkedList.add", this=1)
    t.param(a, 5, "x")
    t.d(a, 6, F("demo.LinkedList.head", 1), how="new")
    t.exit(a)
    s = t.enter("demo.LinkedList.size", this=1)
    t.u(s, 9, F("demo.LinkedList.head", 1), role="deref")
    t.exit(s)
    t.end()
    b.write()


IOOBE = "java.lang.IndexOutOfBoundsException"
ARITH = "java.lang.ArithmeticException"


def jdk_index():
    """Names (docs/algorithm.md, "More exception kinds"):

        1 class Names {
        2   List<String> names = new ArrayList<>();
        3   int parts;
        4   String at(int i) {
        5     int k = i - 1;
        6     return names.get(k);     // ArrayList.get throws IndexOutOfBoundsException
        7   }
        8   int share(int total) { int p = parts;
        9     return total / p; }      // idiv throws ArithmeticException; the divisor is recorded
       11   void split(int n) { parts = n; }
    """
    b = Bundle("jdk-index", "Names: IndexOutOfBoundsException from ArrayList.get and an ArithmeticException (operand kinds)")
    N, NF = "demo.Names", "Names.java"
    b.stmt(2, N, None, NF, 2)
    b.stmt(3, N, None, NF, 3)
    for line, m in [(2, "<init>"), (5, "at"), (6, "at"), (8, "share"), (9, "share"), (11, "split")]:
        b.stmt(100 + line if m == "<init>" else line, N, m, NF, line)
    fields = [("demo.Names.names", 2), ("demo.Names.parts", 3)]
    get_frames = [("jdk.internal.util.Preconditions", "outOfBounds", "Preconditions.java", 64),
                  ("java.util.Objects", "checkIndex", "Objects.java", 359),
                  ("java.util.ArrayList", "get", "ArrayList.java", 427)]

    def new_names(t):
        c = t.enter("demo.Names.<init>", this=1)
        t.alloc(1, N, c, fields)
        t.d(c, 102, F("demo.Names.names", 1), how="new")
        t.exit(c)

    def at(t, fails):
        m = t.enter("demo.Names.at", this=1)
        t.param(m, 5, "i")
        t.u(m, 5, L("i"))
        t.d(m, 5, L("k"), how="arith")
        t.u(m, 6, F("demo.Names.names", 1), role="deref")
        t.u(m, 6, L("k"), role="arg")
        if fails:
            t.exit(m, IOOBE)
        else:
            t.d(m, 6, R(m), how="call", callee="java.util.ArrayList.get")
            t.exit(m)

    def share(t, fails):
        m = t.enter("demo.Names.share", this=1)
        t.param(m, 8, "total")
        t.d(m, 8, L("p"), frm=F("demo.Names.parts", 1))
        t.u(m, 9, L("p"))
        if fails:
            t.exit(m, ARITH)
        else:
            t.d(m, 9, R(m), how="arith")
            t.exit(m)

    # fAt: new Names().at(0) on an empty list: k = -1, computed in the MUT.
    t = b.test("NamesTest.fAt")
    new_names(t)
    at(t, True)
    t.end("fail", IOOBE, get_frames + [(N, "at", NF, 6), ("NamesTest", "fAt", "NamesTest.java", 7)])

    # fShare: new Names().share(10): parts is the field default 0.
    t = b.test("NamesTest.fShare")
    new_names(t)
    share(t, True)
    t.end("fail", ARITH, [(N, "share", NF, 9), ("NamesTest", "fShare", "NamesTest.java", 12)])

    # pBoth: at(1) (a list holding one name) and split(2), share(10).
    t = b.test("NamesTest.pBoth")
    new_names(t)
    at(t, False)
    m = t.enter("demo.Names.split", this=1)
    t.param(m, 11, "n")
    t.d(m, 11, F("demo.Names.parts", 1), frm=L("n"))
    t.exit(m)
    share(t, False)
    t.end()
    b.write()


UOE = "java.lang.UnsupportedOperationException"
SOE = "java.lang.StackOverflowError"


def jdk_state():
    """Shelf (docs/algorithm.md, "More exception kinds": the receiver and recursion rules):

        1 class Shelf {
        2   List<String> shown;
        3   Shelf next;
        4   List<String> names = new ArrayList<>();
        5   void freeze() {
        6     shown = Collections.unmodifiableList(names); }
        7   void thaw() {
        8     shown = new ArrayList<>(); }
        9   void show(String n) {
       10     List<String> l = shown;
       11     l.add(n); }              // UnmodifiableCollection.add throws UnsupportedOperationException
       12   void link(Shelf s) {
       13     next = s; }
       14   int depth() {
       15     return next == null ? 1 : 1 + next.depth(); }   // a cycle: StackOverflowError
    """
    b = Bundle("jdk-state", "Shelf: UnsupportedOperationException on a read-only view and a StackOverflowError (receiver and recursion kinds)")
    S, SF = "demo.Shelf", "Shelf.java"
    b.stmt(2, S, None, SF, 2)
    b.stmt(3, S, None, SF, 3)
    for line, m in [(6, "freeze"), (8, "thaw"), (10, "show"), (11, "show"), (13, "link"), (15, "depth")]:
        b.stmt(line, S, m, SF, line)
    fields = [("demo.Shelf.shown", 2), ("demo.Shelf.next", 3)]

    def new_shelf(t, obj):
        c = t.enter("demo.Shelf.<init>", this=obj)
        t.alloc(obj, S, c, fields)
        t.exit(c)

    def show(t, fails):
        m = t.enter("demo.Shelf.show", this=1)
        t.param(m, 10, "n")
        t.d(m, 10, L("l"), frm=F("demo.Shelf.shown", 1))
        t.u(m, 11, L("l"), role="deref")
        t.u(m, 11, L("n"), role="arg")
        if fails:
            t.exit(m, UOE)
        else:
            t.exit(m)

    def link(t, obj, to):
        m = t.enter("demo.Shelf.link", this=obj)
        t.param(m, 13, "s")
        t.d(m, 13, F("demo.Shelf.next", obj), frm=L("s"))
        t.exit(m)

    def depth(t, obj, caller=None):
        m = t.enter("demo.Shelf.depth", this=obj, caller=caller)
        t.br(m, 15, F("demo.Shelf.next", obj))
        return m

    # fShow: s.freeze(); s.show("x"): the view refuses add.
    t = b.test("ShelfTest.fShow")
    new_shelf(t, 1)
    m = t.enter("demo.Shelf.freeze", this=1)
    t.d(m, 6, F("demo.Shelf.shown", 1), how="call", callee="java.util.Collections.unmodifiableList")
    t.exit(m)
    show(t, True)
    t.end("fail", UOE, [("java.util.Collections$UnmodifiableCollection", "add", "Collections.java", 1067),
                        (S, "show", SF, 11), ("ShelfTest", "fShow", "ShelfTest.java", 9)])

    # fDepth: s.link(s); s.depth(): the second depth() overflows in the agent's prologue of the
    # third; the JVM's stack holds no test frame.
    t = b.test("ShelfTest.fDepth")
    new_shelf(t, 1)
    link(t, 1, 1)
    outer = depth(t, 1)
    t.u(outer, 15, F("demo.Shelf.next", 1), role="deref")
    inner = depth(t, 1, caller=outer)
    t.u(inner, 15, F("demo.Shelf.next", 1), role="deref")
    t.exit(inner, SOE)
    t.exit(outer, SOE)
    t.end("fail", SOE, [(S, "depth", SF, -1)] + [(S, "depth", SF, 15)] * 6)

    # pBoth: s.thaw(); s.show("c"); a.link(b); a.depth() (b.next is null).
    t = b.test("ShelfTest.pBoth")
    new_shelf(t, 1)
    m = t.enter("demo.Shelf.thaw", this=1)
    t.d(m, 8, F("demo.Shelf.shown", 1), how="new")
    t.exit(m)
    show(t, False)
    new_shelf(t, 2)
    link(t, 1, 2)
    outer = depth(t, 1)
    t.u(outer, 15, F("demo.Shelf.next", 1), role="deref")
    inner = depth(t, 2, caller=outer)
    t.d(inner, 15, R(inner), how="const")
    t.exit(inner)
    t.d(outer, 15, R(outer), how="arith")
    t.exit(outer)
    t.end()
    b.write()


if __name__ == "__main__":
    iae_two_variables()
    array_index()
    copy_chain()
    uninstrumented_origin()
    two_crash_statements()
    jdk_index()
    jdk_state()
