#!/usr/bin/env python3
"""Traces one prepared real Randoop suite (a directory laid out as /work/suites/README.txt
describes: classes/, test-classes/, tests.txt, info.txt, optional extra-cp.txt and jvm-opts.txt)
with `paf trace java`, checks the bundle with `paf validate` and ranks it, and prints the figures
docs/java.md reports: tests, events, bundle size, trace time against a plain JUnit run of the
same classes, and how many failing tests end in a flow-set with a traced origin.

usage: suite.py SUITE_DIR OUTDIR [--paf PAF] [--runs N] [--include PKG] [--sourcepath DIRS]
                [--json FILE] [--fixed FILE] [--class-cache off|warm] [--floor]
--fixed FILE lists the failing tests the library's developers fixed (one per line, `Class.method`
or JUnit's `method(Class)`): where they rank is printed too (flow-set rank, test rank, locality)
--floor times a third run in each round, the traced one with `--max-events 1`: every test stops
being recorded at its first event, so what is left is the tracer's fixed costs and the
instrumented code (docs/performance.md, "Fourteenth round")
No third-party code is copied anywhere: the suite is read where it is, the bundle goes to OUTDIR.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEBIAN = "/usr/share/java"


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def include_of(info):
    for line in read_lines(info):
        if line.startswith("package prefix (--include):"):
            return line.split(":", 1)[1].split()[0]
    sys.exit("suite.py: %s names no package prefix; pass --include" % info)


def sourcepath_of(suite):
    found = [d for d in (os.path.join(suite, "src", "src", "main", "java"),
                         os.path.join(suite, "src", "lib", "src", "main", "java")) if os.path.isdir(d)]
    found += sorted(glob.glob(os.path.join(suite, "..", "_src", "*", "src", "main", "java")))
    return ":".join(os.path.abspath(d) for d in found)


def timed(cmd, **kw):
    t0 = time.monotonic()
    p = subprocess.run(cmd, **kw)
    return time.monotonic() - t0, p


def size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def test_id(line):
    """`Class.method` from `method(Class)` (JUnit's spelling) or `Class.method`."""
    line = line.strip()
    if line.endswith(")") and "(" in line:
        method, cls = line[:-1].split("(", 1)
        return cls + "." + method
    return line


def fixed_ranks(d, path):
    """Where the tests the developers fixed rank: for each, its flow-set's rank and locality and its
    own rank in the individual-test order (None: unanalyzed), and the best flow-set rank."""
    wanted = [test_id(l) for l in read_lines(path)]
    by_id = {t["test"]: t for t in d["tests"]}
    # test ids in a bundle are Class.method with the class as the runner names it; match by suffix
    def find(t):
        if t in by_id:
            return by_id[t]
        hits = [v for k, v in by_id.items() if k.endswith("." + t) or t.endswith("." + k)]
        return hits[0] if len(hits) == 1 else None
    rows = []
    for t in wanted:
        r = find(t)
        fs = d["flow_sets"][r["flow_set_rank"] - 1] if r and r.get("flow_set_rank") else None
        rows.append({"test": t, "test_rank": r["rank"] if r else None,
                     "flow_set_rank": r.get("flow_set_rank") if r else None,
                     "locality": fs["locality"] if fs else None})
    ranks = [x["flow_set_rank"] for x in rows if x["flow_set_rank"]]
    return {"tests": rows, "best_flow_set_rank": min(ranks) if ranks else None,
            "flow_sets": len(d["flow_sets"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite")
    ap.add_argument("out")
    ap.add_argument("--paf", default=os.path.join(ROOT, "target", "release", "paf"))
    ap.add_argument("--runs", type=int, default=3, help="runs of each timing (the median is reported)")
    ap.add_argument("--include")
    ap.add_argument("--sourcepath")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--fixed", help="failing tests the developers fixed, one per line")
    ap.add_argument("--class-cache", choices=["off", "warm"], default="off",
                    help="off: every traced run instruments every class (--no-class-cache); warm: one "
                         "untimed traced run records the class cache first, and the timed runs replay it")
    ap.add_argument("--floor", action="store_true",
                    help="also time the traced run with --max-events 1 (the tracer's floor), in turn with the others")
    a = ap.parse_args()
    suite = os.path.abspath(a.suite)
    name = os.path.basename(suite.rstrip("/"))
    os.makedirs(a.out, exist_ok=True)
    tests = read_lines(os.path.join(suite, "tests.txt"))
    extra = read_lines(os.path.join(suite, "extra-cp.txt"))
    jvm = " ".join(read_lines(os.path.join(suite, "jvm-opts.txt"))).split()
    cp = ":".join([os.path.join(suite, "classes"), os.path.join(suite, "test-classes")] + extra)
    include = a.include or include_of(os.path.join(suite, "info.txt"))
    sourcepath = a.sourcepath if a.sourcepath is not None else sourcepath_of(suite)

    junit = "%s/junit4.jar:%s/hamcrest-core.jar" % (DEBIAN, DEBIAN)
    plain_cmd = ["java"] + jvm + ["-XX:-OmitStackTraceInFastThrow", "-cp", cp + ":" + junit,
                                  "org.junit.runner.JUnitCore"] + tests
    bundle = os.path.join(a.out, name)
    trace_cmd = [a.paf, "trace", "java", "--quiet", "--classpath", cp, "--include", include,
                 "--tests", ",".join(tests), "-o", bundle]
    if sourcepath:
        trace_cmd += ["--sourcepath", sourcepath]
    for j in jvm:
        trace_cmd += ["--jvm-arg", j]
    if a.class_cache == "off":
        trace_cmd += ["--no-class-cache"]
    floor_bundle = bundle + ".floor"
    floor_cmd = [x if x != bundle else floor_bundle for x in trace_cmd] + ["--max-events", "1"]
    if a.class_cache == "warm":
        # the cap is one of the agent's options, so the floor's runs have a cache of their own
        for cmd in [trace_cmd] + ([floor_cmd] if a.floor else []):
            p = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                sys.exit("suite.py: paf trace java failed (%d):\n%s" % (p.returncode, p.stderr))
    # plain and traced runs (and the floor's) take turns, the first of each round rotating, so that
    # all see the machine's same minutes; the bundle of the last run is removed (and the kernel's
    # writing of it waited for) before the next, so that no run pays for another's files
    # (docs/performance.md, "Twenty-second round")
    kinds = ["plain", "traced"] + (["floor"] if a.floor else [])
    plain, plain_out, traced, floor = [], None, [], []
    for r in range(a.runs):
        for kind in kinds[r % len(kinds):] + kinds[:r % len(kinds)]:
            if kind == "plain":
                # into a file, as a user's run would log it: a pipe read by this script slowed
                # the suites that print thousands of failures (hashmap's plain run 1.63 against
                # 1.23 s)
                log = os.path.join(a.out, name + ".plain.log")
                with open(log, "w") as f:
                    t, p = timed(plain_cmd, stdout=f, stderr=subprocess.STDOUT)
                plain.append(t)
                with open(log, encoding="utf-8", errors="replace") as f:
                    plain_out = f.read()
                continue
            cmd, dest = (trace_cmd, bundle) if kind == "traced" else (floor_cmd, floor_bundle)
            shutil.rmtree(dest, ignore_errors=True)
            os.sync()
            t, p = timed(cmd, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                sys.exit("suite.py: paf trace java%s failed (%d):\n%s"
                         % (" --max-events 1" if kind == "floor" else "", p.returncode, p.stderr))
            if kind == "traced":
                traced.append(t)
                trace_err = p.stderr
            else:
                floor.append(t)
    shutil.rmtree(floor_bundle, ignore_errors=True)
    plain_summary = [l for l in plain_out.splitlines() if l.startswith("Tests run") or l.startswith("OK (")]
    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    v = subprocess.run([a.paf, "validate", bundle], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rank_path = os.path.join(a.out, name + ".rank.json")
    t_rank, r = timed([a.paf, "rank", bundle, "--format", "json", "-o", rank_path],
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("suite.py: paf rank failed:\n" + r.stdout)
    d = json.load(open(rank_path))
    failing = d["summary"]["failing"]
    traced_origin = sum(len(fs["tests"]) for fs in d["flow_sets"]
                        if all(not (o["origin"] or {}).get("untraced") for o in fs["crash"]["origins"]))
    reasons = {}
    for u in d["unanalyzed"]:
        key = u["reason"].split(":")[0]
        reasons[key] = reasons.get(key, 0) + 1
    static = 0
    for f in ("static-duas.jsonl", "static-duas.jsonl.gz", "static-duas.jsonl.zst"):
        p = os.path.join(bundle, f)
        if os.path.exists(p) and f.endswith(".zst"):  # paf trace java's default; the zstd tool reads it
            static = subprocess.run(["zstd", "-dcq", p], check=True, stdout=subprocess.PIPE).stdout.count(b"\n")
        elif os.path.exists(p):
            static = sum(1 for _ in (__import__("gzip").open(p, "rt") if f.endswith(".gz") else open(p)))
    fig = {
        "suite": name,
        "include": include,
        "tests": d["summary"]["tests"],
        "failing": failing,
        "events": d["summary"]["events"],
        "bundle_bytes": size(bundle),
        # milliseconds, and the ratio of the medians before any rounding: a suite of 0.2 s
        # would otherwise carry an error of 5% into its overhead
        "plain_s": round(statistics.median(plain), 3),
        "trace_s": round(statistics.median(traced), 3),
        "overhead": round(statistics.median(traced) / statistics.median(plain), 2),
        "floor_s": round(statistics.median(floor), 3) if floor else None,
        "floor_overhead": round(statistics.median(floor) / statistics.median(plain), 2) if floor else None,
        "class_cache": a.class_cache,
        "supervisor_s": round(manifest["java"]["wall_ms"] / 1000, 2),
        "jvms": manifest["java"]["jvms"],
        "classes_instrumented": manifest["java"]["classes_instrumented"],
        "instrumentation_errors": len(manifest["java"]["instrumentation_errors"]),
        "static_duas": static,
        "validate": v.stdout.strip().splitlines()[-1],
        "flow_sets": d["summary"]["flow_sets"],
        "failing_in_flow_set_with_traced_origin": traced_origin,
        "unanalyzed": reasons,
        "traced_origin_share": round(traced_origin / failing, 3) if failing else None,
        "fixed": fixed_ranks(d, a.fixed) if a.fixed else None,
        "rank_s": round(t_rank, 2),
        "plain_junit": plain_summary,
        "tracer_summary": [l for l in trace_err.splitlines() if l.startswith("paf trace:")],
    }
    print(json.dumps(fig, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(fig, f, indent=1)
    if v.returncode != 0:
        sys.exit("suite.py: paf validate rejects the bundle:\n" + v.stdout)


if __name__ == "__main__":
    main()
