# A test whose outcome depends on the world outside the schedule (here a counter shared by
# every run, standing in for a clock): it passes on odd counts, fails on even ones, whatever
# ran before it. Its outcome changes between orders, but also with the order held fixed.


@test("Clock.testTick")
def test_tick(s):
    check(shared_counter("tick") % 2 == 1)


@test("Clock.testStable")
def test_stable(s):
    s.put("seen", True)


@test("Clock.testReader")
def test_reader(s):
    s.get("seen", False)
