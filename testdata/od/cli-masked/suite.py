# DTDetector section 2.2.2, Apache CLI: OptionBuilder.argName is only set to "arg" by reset(),
# which create() calls at its end, so the first client of OptionBuilder sees null. In the
# default order testCreate runs first and masks the fault: the two tests after it pass, and
# fail when run alone.


def create(s):
    # OptionBuilder.create(): builds an option, then reset() sets argName = "arg".
    s.put("argName", "arg")


@test("OptionBuilderTest.testCreate")
def test_create(s):
    create(s)


@test("HelpFormatterTest.testPrintUsage")
def test_print_usage(s):
    name = deref(s.get("argName"))
    check("<" + name + ">" == "<arg>")


@test("OptionsTest.testArgName")
def test_arg_name(s):
    check(deref(s.get("argName")) == "arg")


@test("OptionTest.testClone")
def test_clone(s):
    check(dict(a=1) == {"a": 1})
