# PRADET Figure 5: joint dependencies. t1 and t2 both initialize `initialized`; t2 also sets
# `foo`; t3 needs both, and t2 alone provides both.


def initialize(s):
    if not s.get("initialized", False):
        s.put("initialized", True)


@test("Test.t1")
def t1(s):
    initialize(s)


@test("Test.t2")
def t2(s):
    initialize(s)
    s.put("foo", "Foo")


@test("Test.t3")
def t3(s):
    check(s.get("initialized", False))
    check(s.get("foo") is not None)
