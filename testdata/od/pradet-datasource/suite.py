# PRADET Figure 2 (Crystal's DataSourceTest): the static field `data` is null until
# testSetField sets it; the other two tests use it. testToString also overwrites the
# cloneString that testSetCloneString expects testSetField to have set.


@test("DataSourceTest.testSetField")
def test_set_field(s):
    s.put("data", {"shortName": "Repository", "cloneString": "path", "kind": "HG"})
    data = s.get("data")
    check(data["shortName"] == "Repository")
    check(data["kind"] == "HG")


@test("DataSourceTest.testSetCloneString")
def test_set_clone_string(s):
    data = deref(s.get("data"))
    check(data["cloneString"] == "path")
    data["cloneString"] = "path_2"
    s.put("data", data)
    check(s.get("data")["cloneString"] == "path_2")


@test("DataSourceTest.testToString")
def test_to_string(s):
    data = deref(s.get("data"))
    data.update(shortName="short_name", kind="HG", cloneString="clone_string")
    s.put("data", data)
    check(s.get("data")["cloneString"] == "clone_string")
