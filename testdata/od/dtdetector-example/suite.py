# DTDetector, algorithms section figure: four tests over two globals, initially x = y = 1.
# Test2 fails only after Test3 (x = 0) then Test1 (y = 0), with no Test4 in between.


def x(s):
    return s.get("x", 1)


@test("Test1")
def test1(s):
    if x(s) == 0:
        s.put("y", 0)


@test("Test2")
def test2(s):
    check(s.get("y", 1) == 1)


@test("Test3")
def test3(s):
    s.put("x", 0)


@test("Test4")
def test4(s):
    if x(s) == 0:
        s.put("y", 1)
