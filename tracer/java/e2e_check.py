#!/usr/bin/env python3
"""Checks of tracer/java/e2e.sh: reads `paf rank --format json` output and the bundles.

usage: e2e_check.py motivating RANK.json [static]
       e2e_check.py library RANK.json TRUTH.csv
       e2e_check.py static-state BUNDLE ALONE.jsonl AFTER.jsonl RANK.json
       e2e_check.py robustness BUNDLE
       e2e_check.py cases SRC EXPECTED.json RANK.json BUNDLE
Prints what it checked; exits 1 on the first failed check.
"""
import csv
import gzip
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


def short(test):
    return test.rsplit(".", 1)[-1]


def motivating(rank_path, static=False):
    """PAF Table 1. With static DUAs (a bundle `paf trace java` wrote), theta of fTest1 also holds
    (48, 47, e): `e = e.prev` on line 48 reaches line 47 through the loop, a def-clear path the
    paper's Table 1 leaves out; no passing test covers either DUA, so the likelihood stays 0."""
    d = json.load(open(rank_path))
    fs = d["flow_sets"]
    if len(fs) != 2:
        fail("motivating: expected 2 flow-sets, got %d" % len(fs))
    a, b = fs
    got = [short(t) for t in a["tests"]], a["locality"], a["crash"]["origin"]["line"], a["likelihood"]
    if got != (["fTest1"], "local", 45, 0.0):
        fail("motivating rank 1: expected fTest1, local, origin line 45, likelihood 0; got %r" % (got,))
    th = [(t["def"]["line"], t["use"]["line"], t["var"]) for t in a["theta"]]
    want = [(45, 47, "e"), (48, 47, "e")] if static else [(45, 47, "e")]
    if th != want:
        fail("motivating rank 1: expected theta %r, got %r" % (want, th))
    if any(t["covered_by"] for t in a["theta"]):
        fail("motivating rank 1: theta must be covered by no passing test")
    ok("motivating rank 1: fTest1, local, origin line 45, theta {%s} uncovered, likelihood 0"
       % ", ".join("(%d,%d,%s)" % x for x in want))
    got = [short(t) for t in b["tests"]], b["locality"], b["crash"]["origin"]["line"], b["likelihood"]
    if got != (["fTest2"], "non-local", 32, 1.0):
        fail("motivating rank 2: expected fTest2, non-local, origin line 32, likelihood 1; got %r" % (got,))
    th = [(t["def"]["line"], t["use"]["line"], t["var"].endswith("getProject()")) for t in b["theta"]]
    if th != [(56, 59, True)]:
        fail("motivating rank 2: expected theta {(56,59,getProject())}, got %r" % b["theta"])
    cov = sorted(short(t) for t in b["theta"][0]["covered_by"])
    if cov != ["pTest1", "pTest2"]:
        fail("motivating rank 2: (56,59) must be covered by pTest1 and pTest2, got %r" % cov)
    ok("motivating rank 2: fTest2, non-local, origin line 32, theta {(56,59,getProject())} covered by pTest1 pTest2, likelihood 1")


def library(rank_path, truth_path):
    d = json.load(open(rank_path))
    truth = {}
    with open(truth_path) as f:
        for row in csv.DictReader(f):
            truth[row["test"]] = row["fault"]
    fs = d["flow_sets"]
    kinds = []
    for s in fs:
        faults = sorted({truth[t] for t in s["tests"] if t in truth})
        mixed = any(t not in truth for t in s["tests"]) and faults
        kinds.append((s["rank"], faults, bool(mixed)))
    n_fault_sets = sum(1 for _, f, _ in kinds if f)
    if n_fault_sets == 0:
        fail("library: no flow-set holds a fault-revealing test")
    # PAF orders by (locality, likelihood) and shuffles equal keys (docs/algorithm.md, phase 4):
    # a flow-set of no fault may come before a fault's only when its key equals that fault's.
    key = lambda s: (s["locality"] != "local", s["likelihood_ratio"])
    last = max(i for i, (_, f, _) in enumerate(kinds) if f)
    tied = []
    for i in range(last):
        if kinds[i][1]:
            continue
        if not any(kinds[j][1] and key(fs[j]) == key(fs[i]) for j in range(i + 1, last + 1)):
            fail("library: the real faults' flow-sets are not ranked first: %r" % kinds)
        tied.append(i)
    for i in tied:
        print("note: library: flow-set rank %d (%s, %s %s) ties with a fault's flow-set (same locality "
              "and likelihood); the seed decides their order" % (fs[i]["rank"], fs[i]["crash"]["exception"],
                                                                   fs[i]["locality"], fs[i]["likelihood_ratio"]))
    first = [k for i, k in enumerate(kinds[:last + 1]) if i not in tied]
    found = sorted({x for _, f, _ in first for x in f})
    expected = sorted(set(truth.values()))
    if found != expected:
        fail("library: faults %r found in flow-sets, expected %r" % (found, expected))
    ranked = {t["test"]: t["rank"] for t in d["tests"]}
    missing = [t for t in truth if t not in ranked]
    if missing:
        fail("library: fault-revealing tests not ranked: %r" % missing)
    for _, f, mixed in first:
        if mixed:
            print("note: a fault flow-set also holds tests that truth.csv does not list")
    ok("library: %d flow-sets; the %d holding real faults %s are ranks 1..%d%s; %d failing tests ranked, %d unanalyzed"
       % (len(fs), n_fault_sets, ",".join(found), last + 1,
          " with %d tied flow-set(s) of no fault" % len(tied) if tied else "", len(d["tests"]), len(d["unanalyzed"])))


def read_lines(path):
    for name in ("tests.jsonl", "tests.jsonl.gz", "tests.jsonl.zst"):
        p = os.path.join(path, name)
        if os.path.exists(p):
            for line in open_text(p):
                if line.strip():
                    yield json.loads(line)
            return
    fail("no tests.jsonl in %s" % path)


def open_text(p):
    """The lines of a bundle file, plain, gzip or zstd (paf trace java's default; Python has no
    zstd module, so the zstd tool that tracer/java/install.sh installs decompresses it)."""
    if p.endswith(".zst"):
        out = subprocess.run(["zstd", "-dcq", p], check=True, stdout=subprocess.PIPE).stdout
        return out.decode("utf-8").splitlines(True)
    op = gzip.open if p.endswith(".gz") else open
    with op(p, "rt", encoding="utf-8") as f:
        return f.readlines()


def ends(bundle):
    return {r["test"]: r for r in read_lines(bundle) if r["k"] == "end"}


def static_state(bundle, alone, after, rank_path):
    e = ends(bundle)
    for t in ("ErrorTest0.test1", "ErrorTest0.test2"):
        if t not in e or e[t]["outcome"] != "fail":
            fail("static-state: %s must fail in the traced suite run" % t)
    f1, f2 = e["ErrorTest0.test1"], e["ErrorTest0.test2"]
    w1, w3 = e.get("RegressionTest0.test1"), e.get("RegressionTest0.test3")
    if "org.cli.OptionBuilder.required" not in f1.get("statics", {}).get("read", []):
        fail("static-state: ErrorTest0.test1 must read org.cli.OptionBuilder.required, end record: %r" % f1)
    if not w1 or "org.cli.OptionBuilder.required" not in w1.get("statics", {}).get("written", []):
        fail("static-state: RegressionTest0.test1 must write org.cli.OptionBuilder.required")
    ok("static-state: ErrorTest0.test1 fails in the suite and reads OptionBuilder.required, which RegressionTest0.test1 wrote")
    if "org.cli.Defaults.OPTIONS" not in f2.get("statics", {}).get("reachable_read", []):
        fail("static-state: ErrorTest0.test2 must read state reachable from org.cli.Defaults.OPTIONS: %r" % f2)
    if not w3 or "org.cli.Defaults.OPTIONS" not in w3.get("statics", {}).get("reachable_written", []):
        fail("static-state: RegressionTest0.test3 must write state reachable from org.cli.Defaults.OPTIONS")
    ok("static-state: ErrorTest0.test2 fails in the suite and reads the list reachable from Defaults.OPTIONS, "
       "which RegressionTest0.test3 changed")
    a = [json.loads(l) for l in open(alone) if l.strip()]
    if [(r["test"], r["outcome"]) for r in a] != [("ErrorTest0.test1", "pass"), ("ErrorTest0.test2", "pass")]:
        fail("static-state: run without the polluting tests, ErrorTest0.test1 and test2 must pass: %r" % a)
    b = [json.loads(l) for l in open(after) if l.strip()]
    want = [("RegressionTest0.test1", "pass", None), ("ErrorTest0.test1", "fail", "org.cli.MissingOptionException"),
            ("RegressionTest0.test3", "pass", None), ("ErrorTest0.test2", "fail", "org.cli.MissingOptionException")]
    if [(r["test"], r["outcome"], r["exception"]) for r in b] != want:
        fail("static-state: after the polluting tests, ErrorTest0.test1 and test2 must fail: %r" % b)
    ok("static-state: order runner: alone both pass; each after its polluter fails with %s at %s:%s"
       % (b[1]["exception"], b[1]["class"], b[1]["line"]))
    d = json.load(open(rank_path))
    fs = d["flow_sets"]
    if len(fs) != 1 or fs[0]["locality"] != "non-local" or not fs[0]["crash"]["origin"].get("untraced"):
        fail("static-state: expected one non-local flow-set with an untraced origin: %r" % fs)
    ok("static-state: paf rank: one non-local flow-set %s, crash variable %s, origin untraced (set by an earlier test)"
       % (sorted(fs[0]["tests"]), fs[0]["crash"]["variables"]))


def robustness(bundle):
    e = ends(bundle)
    names = sorted(short(t) for t in e)
    want = ["test1Passes", "test2KillsTheJvm", "test3Passes", "test4NeverEnds", "test5UsesAnUninstrumentedClass", "test6Fails"]
    if names != want:
        fail("robustness: expected every test in the bundle, got %r" % names)
    for t, r in e.items():
        lost = short(t) in ("test2KillsTheJvm", "test4NeverEnds")
        if lost != bool(r.get("truncated")):
            fail("robustness: %s truncated=%r" % (t, r.get("truncated")))
    kinds = sorted(r["exception"]["type"] for r in e.values() if r.get("truncated"))
    if kinds != ["paf.JvmDied", "paf.Timeout"]:
        fail("robustness: lost tests' kinds %r" % kinds)
    m = json.load(open(os.path.join(bundle, "manifest.json")))
    errs = m["java"]["instrumentation_errors"]
    if not any("org.robust.Broken" in x for x in errs):
        fail("robustness: the uninstrumentable class is not reported in the manifest: %r" % errs)
    ok("robustness: 6/6 tests in the bundle; JVM death and time-out recorded as truncated; "
       "uninstrumentable class reported: %s" % errs[0])


def markers(src):
    """FILE@MARKER -> line, for every `// @MARKER` comment under src (several may share a line)."""
    out = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".java"):
                continue
            with open(os.path.join(root, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    for m in re.findall(r"// ((?:@[a-z0-9-]+ ?)+)", line):
                        for mark in m.split():
                            key = name + mark
                            if key in out:
                                fail("marker %s appears twice" % key)
                            out[key] = n
    return out


def cases(src, expected_path, rank_path, bundle):
    """Checks every failing test of a hand-worked corpus against EXPECTED (see its README)."""
    lines = markers(src)
    exp = json.load(open(expected_path))

    def at(loc):
        if loc == "untraced":
            return loc
        if loc not in lines:
            fail("%s: unknown marker %s" % (expected_path, loc))
        return "%s:%d" % (loc.split("@")[0], lines[loc])

    def where(p):
        return "untraced" if p is None or p.get("untraced") else "%s:%s" % (p["file"], p["line"])

    d = json.load(open(rank_path))
    e = ends(bundle)
    by_test = {t: fs for fs in d["flow_sets"] for t in fs["tests"]}
    unanalyzed = {u["test"]: u for u in d["unanalyzed"]}
    problems = []
    for test in exp["passing"]:
        if test not in e or e[test]["outcome"] != "pass":
            problems.append("%s: expected to pass, got %r" % (test, e.get(test, {}).get("outcome")))
    for test, want in sorted(exp["failing"].items()):
        if test not in e or e[test]["outcome"] != "fail":
            problems.append("%s: expected to fail, got %r" % (test, e.get(test, {}).get("outcome")))
            continue
        end = e[test]
        if end.get("truncated"):
            problems.append("%s: truncated (%s)" % (test, end.get("note")))
        lc = end.get("lifecycle", []) + ([end["exception"]] if end.get("exception", {}).get("phase") else [])
        got_lc = sorted((x.get("phase"), x["type"]) for x in lc)
        if sorted(tuple(x) for x in want.get("lifecycle", [])) != got_lc:
            problems.append("%s: lifecycle failures %r, expected %r" % (test, got_lc, want.get("lifecycle", [])))
        if "frames_only" in want:
            frames = end["exception"]["frames"]
            bad = [f["class"] for f in frames if not f["class"].startswith(want["frames_only"])]
            if not frames or bad:
                problems.append("%s: frames must all be in %s: %d frames, others %r"
                                % (test, want["frames_only"], len(frames), sorted(set(bad))[:5]))
        if "unanalyzed" in want:
            u = unanalyzed.get(test)
            if u is None or want["unanalyzed"] not in u["reason"] + " " + str(u.get("exception")):
                problems.append("%s: expected unanalyzed (%s), got %s"
                                % (test, want["unanalyzed"], u["reason"] if u else "flow-set %r" % by_test.get(test, {}).get("rank")))
            continue
        fs = by_test.get(test)
        if fs is None:
            problems.append("%s: not in any flow-set (%s)" % (test, unanalyzed.get(test, {}).get("reason")))
            continue
        c = fs["crash"]
        got = {
            "vars": sorted(c["variables"]),
            "origin": sorted({where(o["origin"]) for o in c["origins"]}),
            "locality": fs["locality"],
            "theta": sorted((where(t["def"]), where(t["use"]), t["var"]) for t in fs["theta"]),
            "likelihood": fs["likelihood_ratio"],
        }
        origins = want["origin"] if isinstance(want["origin"], list) else [want["origin"]]
        wanted = {
            "vars": sorted(want["vars"]),
            "origin": sorted({at(o) for o in origins}),
            "locality": want["locality"],
            "theta": sorted((at(a), at(b), v) for a, b, v in want["theta"]),
            "likelihood": want["likelihood"],
        }
        if "mut" in want:
            got["mut"], wanted["mut"] = c["mut"], want["mut"]
        if "contract" in want:
            got["contract"], wanted["contract"] = c.get("contract"), want["contract"]
        if "flow_set" in want:
            # the whole flow-set: every test that must share it (one alarm), this one included
            got["flow_set"], wanted["flow_set"] = sorted(fs["tests"]), sorted(want["flow_set"])
        for k in wanted:
            if got[k] != wanted[k]:
                problems.append("%s: %s is %r, expected %r" % (test, k, got[k], wanted[k]))
    m = json.load(open(os.path.join(bundle, "manifest.json")))
    if "jvms" in exp and m["java"]["jvms"] != exp["jvms"]:
        problems.append("%d worker JVMs, expected %d" % (m["java"]["jvms"], exp["jvms"]))
    if problems:
        for p in problems:
            print("FAIL: " + p)
        sys.exit(1)
    ok("%s: %d failing tests as derived by hand (crash variables, origin, locality, theta, likelihood), %d passing"
       % (os.path.basename(os.path.dirname(os.path.abspath(expected_path))), len(exp["failing"]), len(exp["passing"])))


def maven(rank_path):
    """testdata/maven/mini/README.md: the two failures of RegistryTest, derived by hand."""
    d = json.load(open(rank_path))
    got = [(short(s["tests"][0]), s["locality"], s["crash"]["statement"]["line"], s["crash"]["origin"]["line"],
            s["likelihood"]) for s in d["flow_sets"]]
    want = [("aliasOfNothing", "local", 24, 24, 1.0), ("noAliasYet", "non-local", 23, 9, 0.5)]
    if got != want:
        fail("maven: expected %r, got %r" % (want, got))
    ok("maven: aliasOfNothing local at 24 (likelihood 1), noAliasYet non-local from the field "
       "default on line 9 (likelihood 1/2)")


def randoop_order(bundle):
    """--randoop runs RegressionTest0..N, then ErrorTest0..N, by number."""
    classes = []
    for r in read_lines(bundle):
        if r.get("k") == "begin" and (not classes or classes[-1] != r["class"]):
            classes.append(r["class"])
    want = ["RegressionTest0", "RegressionTest1", "RegressionTest2", "RegressionTest3",
            "ErrorTest0", "ErrorTest1"]
    if classes != want:
        fail("randoop: classes ran in the order %r, expected %r" % (classes, want))
    ok("randoop: the classes ran in Randoop's order: " + ", ".join(classes))


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "motivating":
        motivating(sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "static")
    elif kind == "library":
        library(sys.argv[2], sys.argv[3])
    elif kind == "static-state":
        static_state(*sys.argv[2:6])
    elif kind == "robustness":
        robustness(sys.argv[2])
    elif kind == "maven":
        maven(sys.argv[2])
    elif kind == "randoop-order":
        randoop_order(sys.argv[2])
    elif kind == "cases":
        cases(*sys.argv[2:6])
    else:
        fail("unknown check " + kind)
