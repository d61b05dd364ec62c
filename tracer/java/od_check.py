#!/usr/bin/env python3
"""Checks of the order-dependence step of e2e.sh (docs/order-dependence.md, "With the Java runner").

Usage: od_check.py OD_REPORT RANK_JSON

OD_REPORT is the paf.od/1 report of `paf od detect` run on the static-state example through
tracer/java/run-order.sh, with the read/write sets taken from the traced bundle (--bundle);
RANK_JSON is `paf rank BUNDLE --exclude-od OD_REPORT --format json`. Prints one "ok:" line per
check and exits 1 on the first failed one.
"""
import json
import sys

# The two order-caused failures of testdata/java/static-state and the test that pollutes each.
EXPECTED = {
    "ErrorTest0.test1": ("RegressionTest0.test1", "org.cli.OptionBuilder.required"),
    "ErrorTest0.test2": ("RegressionTest0.test3", "org.cli.Defaults.OPTIONS"),
}
EXCEPTION = ("org.cli.MissingOptionException", "org.cli.Parser", 18)


def fail(msg):
    print(f"FAIL: od: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def main(od_path, rank_path):
    with open(od_path) as f:
        od = json.load(f)
    with open(rank_path) as f:
        rank = json.load(f)
    check(od.get("schema") == "paf.od/1", f"{od_path}: schema {od.get('schema')!r}, expected paf.od/1")

    # The verdicts: exactly the two victims, each with its one polluter and a 1-minimal witness.
    verdicts = {v["test"]: v for v in od["verdicts"]}
    check(sorted(verdicts) == sorted(EXPECTED), f"verdicts for {sorted(verdicts)}, expected {sorted(EXPECTED)}")
    for test, (polluter, field) in EXPECTED.items():
        v = verdicts[test]
        check(v["verdict"] == "victim", f"{test}: verdict {v['verdict']}, expected victim")
        check(v["order_caused_failure"], f"{test}: not an order-caused failure")
        check(v["default_outcome"]["outcome"] == "fail", f"{test}: passed in the default order")
        check(v["isolated_outcome"] == {"outcome": "pass"}, f"{test}: alone {v['isolated_outcome']}, expected pass")
        got = (v["witness_outcome"].get("exception"), v["witness_outcome"].get("class"), v["witness_outcome"].get("line"))
        check(got == EXCEPTION, f"{test}: witness outcome {got}, expected {EXCEPTION}")
        check(v["witness"] == [polluter, test], f"{test}: witness {v['witness']}, expected {[polluter, test]}")
        check(v["polluters"] == [polluter], f"{test}: polluters {v['polluters']}, expected {[polluter]}")
        check(all(f["one_minimal"] for f in v["findings"]), f"{test}: a witness is not 1-minimal")
        check(all(c["agreed"] for c in v["confirmation"]), f"{test}: a confirmation re-run disagreed")
        for algo in ("dep-aware", "pradet"):
            check(algo in v["found_by"], f"{test}: not found by {algo} (found by {v['found_by']})")
        print(f"ok: od: {test} is a victim of {polluter} (witness {' '.join(v['witness'])} -> "
              f"{EXCEPTION[0]} at {EXCEPTION[1]}:{EXCEPTION[2]}; alone it passes), {v['runs']} runs")

    # The read/write sets came from the bundle: the data dependencies name the static fields.
    deps = {(d["kind"], d["reader"], d["writer"]): d["fields"] for d in od["dependencies"]["data"]}
    for test, (polluter, field) in EXPECTED.items():
        fields = deps.get(("read-after-write", test, polluter), [])
        check(field in fields, f"no read-after-write dependence {test} -> {polluter} on {field} (got {deps})")
    edges = {(e["dependent"], e["on"]): e["status"] for e in od["dependencies"]["pradet"]}
    for test, (polluter, _) in EXPECTED.items():
        check(edges.get((test, polluter)) == "manifest", f"PRADET edge {test} -> {polluter}: {edges.get((test, polluter))}")
    print("ok: od: the bundle's static read/write sets give the read-after-write dependences "
          + ", ".join(f"{t} -> {p} ({f})" for t, (p, f) in EXPECTED.items()) + "; PRADET finds both manifest")
    runs = ", ".join(f"{a['algo']} {a['runs']}/{a['schedules']}" for a in od["algorithms"])
    check(all(a["complete"] for a in od["algorithms"]), f"an algorithm did not finish: {runs}")
    check(not od["problems"], f"runs with missing results: {od['problems']}")
    print(f"ok: od: runs per algorithm: {runs}; {od['summary']['runs']} runs in all, none without a result")

    # rank --exclude-od: the two failures leave the ranking and are listed apart with the witness.
    ranked = {t["test"] for t in rank["tests"]} | {t for fs in rank["flow_sets"] for t in fs["tests"]}
    ranked |= {u["test"] for u in rank["unanalyzed"]}
    for test in EXPECTED:
        check(test not in ranked, f"rank --exclude-od still ranks {test}")
    excluded = {e["test"]: e for e in rank.get("excluded", [])}
    check(sorted(excluded) == sorted(EXPECTED), f"excluded {sorted(excluded)}, expected {sorted(EXPECTED)}")
    for test, (polluter, _) in EXPECTED.items():
        e = excluded[test]
        check(e["verdict"] == "victim" and e["witness"] == [polluter, test] and e["polluters"] == [polluter],
              f"excluded entry of {test}: {e}")
    check(rank["flow_sets"] == [], f"flow-sets left after excluding both failures: {rank['flow_sets']}")
    print("ok: od: paf rank --exclude-od drops ErrorTest0.test1 and ErrorTest0.test2 from the ranking "
          "(0 flow-sets) and lists them under excluded with their witnesses")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
