# A test that pollutes its own state: it registers a name in a static registry and asserts
# the name was free, so it passes once per process and fails the second time. No order of
# distinct tests changes its outcome.


@test("Registry.testRegister")
def test_register(s):
    names = s.get("registry", [])
    check("codec" not in names)
    s.put("registry", names + ["codec"])


@test("Registry.testLookup")
def test_lookup(s):
    s.get("registry", [])
