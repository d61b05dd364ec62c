#!/usr/bin/env python3
"""A tiny test runner for the order-dependence examples (docs/order-dependence.md).

Usage: odrunner.py SUITE TESTS_FILE [-o RESULTS]

SUITE is a Python file whose "tests" are functions registered with @test("Class.method").
Each test gets a State whose values are files in a per-schedule state directory
($PAF_OD_SCRATCH, which paf makes fresh for every schedule; a temporary directory otherwise),
so state survives from one test to the next in one run and never from one run to the next:
the analogue of static fields in one JVM. The runner runs the listed ids in order and writes
one JSON line per test: {"test", "outcome", "exception", "class", "line"}, the exception's
type and the suite function and line it was raised at.
"""
import json
import os
import random
import shutil
import sys
import tempfile
import traceback


class NullPointerException(Exception):
    """A read of state nobody set (Java's NPE)."""


class State:
    def __init__(self, directory):
        self.dir = directory

    def _path(self, name):
        return os.path.join(self.dir, name + ".json")

    def get(self, name, default=None):
        try:
            with open(self._path(name)) as f:
                return json.load(f)
        except FileNotFoundError:
            return default

    def put(self, name, value):
        with open(self._path(name), "w") as f:
            json.dump(value, f)


def deref(value):
    if value is None:
        raise NullPointerException()
    return value


def check(condition):
    if not condition:
        raise AssertionError()


def shared_counter(name):
    """State outside the schedule (a clock, the network): the same in every schedule.

    Uses $OD_EXAMPLE_SHARED if set (so tests can make it deterministic), else randomness.
    """
    shared = os.environ.get("OD_EXAMPLE_SHARED")
    if not shared:
        return random.randrange(1 << 30)
    path = os.path.join(shared, name)
    try:
        with open(path) as f:
            n = int(f.read() or "0")
    except FileNotFoundError:
        n = 0
    n += 1
    with open(path, "w") as f:
        f.write(str(n))
    return n


TESTS = {}


def test(test_id):
    def register(fn):
        TESTS[test_id] = fn
        return fn

    return register


def main(argv):
    args = argv[1:]
    out = None
    if "-o" in args:
        i = args.index("-o")
        out = args[i + 1]
        del args[i : i + 2]
    if len(args) != 2:
        sys.stderr.write("usage: odrunner.py SUITE TESTS_FILE [-o RESULTS]\n")
        return 2
    suite, tests_file = args
    module = {"__name__": "suite", "__file__": suite}
    for name in ("test", "deref", "check", "shared_counter", "NullPointerException"):
        module[name] = globals()[name]
    with open(suite) as f:
        exec(compile(f.read(), suite, "exec"), module)
    with open(tests_file) as f:
        ids = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    scratch = os.environ.get("PAF_OD_SCRATCH")
    own = None
    if not scratch:
        own = scratch = tempfile.mkdtemp(prefix="odrunner-")
    state = State(scratch)
    sink = open(out, "w") if out else sys.stdout
    try:
        for tid in ids:
            record = {"test": tid, "outcome": "pass", "exception": None, "class": None, "line": None}
            fn = TESTS.get(tid)
            if fn is None:
                record.update(outcome="fail", exception="NoSuchTest")
            else:
                try:
                    fn(state)
                except Exception as e:
                    frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == suite]
                    where = frames[-1] if frames else None
                    record.update(
                        outcome="fail",
                        exception=type(e).__name__,
                        **{"class": where.name if where else None, "line": where.lineno if where else None},
                    )
            sink.write(json.dumps(record) + "\n")
            sink.flush()
    finally:
        if out:
            sink.close()
        if own:
            shutil.rmtree(own, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
