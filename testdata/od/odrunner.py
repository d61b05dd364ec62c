#!/usr/bin/env python3
"""A tiny test runner for the order-dependence examples (docs/order-dependence.md).

Usage: odrunner.py SUITE TESTS_FILE [-o RESULTS]
       odrunner.py SUITE --batch SCHEDULES -o RESULTS

SUITE is a Python file whose "tests" are functions registered with @test("Class.method").
Each test gets a State whose values are files in a per-schedule state directory
($PAF_OD_SCRATCH, which paf makes fresh for every schedule; a temporary directory otherwise),
so state survives from one test to the next in one run and never from one run to the next:
the analogue of static fields in one JVM. The runner runs the listed ids in order and writes
one JSON line per test: {"test", "outcome", "exception", "class", "line"}, the exception's
type and the suite function and line it was raised at.

With --batch (paf od detect --batch N), SCHEDULES holds several schedules, one test id per
line, separated by blank lines; each runs with a state directory of its own (a subdirectory of
$PAF_OD_SCRATCH), as the Java runner gives each a class loader of its own, and each result line
carries "schedule": K, the schedule's 0-based number.
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


def run_test(tid, state, suite):
    """One test's result record."""
    record = {"test": tid, "outcome": "pass", "exception": None, "class": None, "line": None}
    fn = TESTS.get(tid)
    if fn is None:
        record.update(outcome="fail", exception="NoSuchTest")
        return record
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
    return record


def read_schedules(path, batch):
    """The schedules of a tests file: one, or (batch) blocks separated by blank lines."""
    schedules, current = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                if batch and current:
                    schedules.append(current)
                    current = []
            elif not line.startswith("#"):
                current.append(line)
    if current or not batch:
        schedules.append(current)
    return schedules


def main(argv):
    args = argv[1:]
    out = None
    if "-o" in args:
        i = args.index("-o")
        out = args[i + 1]
        del args[i : i + 2]
    batch = "--batch" in args
    if batch:
        args.remove("--batch")
    if len(args) != 2:
        sys.stderr.write("usage: odrunner.py SUITE TESTS_FILE [-o RESULTS] | SUITE --batch SCHEDULES -o RESULTS\n")
        return 2
    suite, tests_file = args
    module = {"__name__": "suite", "__file__": suite}
    for name in ("test", "deref", "check", "shared_counter", "NullPointerException"):
        module[name] = globals()[name]
    with open(suite) as f:
        exec(compile(f.read(), suite, "exec"), module)
    schedules = read_schedules(tests_file, batch)
    scratch = os.environ.get("PAF_OD_SCRATCH")
    own = None
    if not scratch:
        own = scratch = tempfile.mkdtemp(prefix="odrunner-")
    sink = open(out, "w") if out else sys.stdout
    try:
        for k, ids in enumerate(schedules):
            directory = os.path.join(scratch, str(k)) if batch else scratch
            os.makedirs(directory, exist_ok=True)
            state = State(directory)
            for tid in ids:
                record = run_test(tid, state, suite)
                if batch:
                    record = {"schedule": k, **record}
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
