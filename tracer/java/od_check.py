#!/usr/bin/env python3
"""Checks of the order-dependence step of e2e.sh (docs/order-dependence.md, "With the Java runner").

Usage: od_check.py OD_REPORT RANK_JSON
       od_check.py --same-edges OD_REPORT OTHER_REPORT
       od_check.py --masked RANK_OD_JSON

OD_REPORT is the paf.od/2 report of `paf od detect` run on the static-state example through
tracer/java/run-order.sh, with the read/write sets taken from the traced bundle (--bundle);
RANK_JSON is `paf rank BUNDLE --exclude-od OD_REPORT --format json`. --same-edges checks that
another report (triage, schedules batched in one JVM) has the same confirmed edges; --masked
checks `paf rank BUNDLE --od REPORT --format json` after `paf trace java --isolate`. Prints one
"ok:" line per check and exits 1 on the first failed one.
"""
import json
import sys

# The two order-caused failures of testdata/java/static-state and the test that pollutes each.
EXPECTED = {
    "ErrorTest0.test1": ("RegressionTest0.test1", "org.cli.OptionBuilder.required"),
    "ErrorTest0.test2": ("RegressionTest0.test3", "org.cli.Defaults.OPTIONS"),
}
EXCEPTION = ("org.cli.MissingOptionException", "org.cli.Parser", 18)
# The masked failure: passes in the default order after RegressionTest0.test3 registered a
# default option; alone, a NullPointerException at Parser.java:27.
MASKED = ("RegressionTest0.test4", "RegressionTest0.test3", ("java.lang.NullPointerException", "org.cli.Parser", 27))


def edges(od):
    """The confirmed edges of a report: (dependent, kind, on, witness)."""
    return sorted((e["dependent"], e["kind"], tuple(e["on"]), tuple(e["witness"]))
                  for e in od["dependencies"] if e["confirmed"])


def expected_edges():
    out = [(t, "polluter", (p,), (p, t)) for t, (p, _) in EXPECTED.items()]
    out.append((MASKED[0], "state-setter", (MASKED[1],), (MASKED[1], MASKED[0])))
    return sorted(out)


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
    check(od.get("schema") == "paf.od/2", f"{od_path}: schema {od.get('schema')!r}, expected paf.od/2")

    # The verdicts: the two victims, each with its one polluter and a 1-minimal witness, and
    # the masked failure with its state-setter.
    verdicts = {v["test"]: v for v in od["verdicts"]}
    want = sorted(list(EXPECTED) + [MASKED[0]])
    check(sorted(verdicts) == want, f"verdicts for {sorted(verdicts)}, expected {want}")
    m = verdicts[MASKED[0]]
    check(m["verdict"] == "brittle" and m["masked_failure"] and m["state_setters"] == [MASKED[1]],
          f"{MASKED[0]}: {m['verdict']}, masked {m['masked_failure']}, setters {m['state_setters']}")
    got = tuple(m["isolated_outcome"].get(k) for k in ("exception", "class", "line"))
    check(got == MASKED[2], f"{MASKED[0]} alone: {got}, expected {MASKED[2]}")
    print(f"ok: od: {MASKED[0]} is a masked failure: it passes after {MASKED[1]}, alone "
          f"{MASKED[2][0]} at {MASKED[2][1]}:{MASKED[2][2]}")
    check(edges(od) == expected_edges(), f"edges {edges(od)}, expected {expected_edges()}")
    print(f"ok: od: the dependency graph has the {len(expected_edges())} confirmed edges")
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
    deps = {(d["kind"], d["reader"], d["writer"]): d["fields"] for d in od["candidates"]["data"]}
    for test, (polluter, field) in EXPECTED.items():
        fields = deps.get(("read-after-write", test, polluter), [])
        check(field in fields, f"no read-after-write dependence {test} -> {polluter} on {field} (got {deps})")
    pradet = {(e["dependent"], e["on"]): e["status"] for e in od["candidates"]["pradet"]}
    for test, (polluter, _) in EXPECTED.items():
        check(pradet.get((test, polluter)) == "manifest", f"PRADET edge {test} -> {polluter}: {pradet.get((test, polluter))}")
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


def same_edges(od_path, other_path):
    with open(od_path) as f:
        od = json.load(f)
    with open(other_path) as f:
        other = json.load(f)
    check(edges(other) == edges(od), f"{other_path}: edges {edges(other)}, expected those of {od_path}: {edges(od)}")
    algos = ", ".join(f"{a['algo']} {a['runs']}/{a['schedules']}" for a in other["algorithms"])
    print(f"ok: od: {other_path} ({algos}, batch {other['settings']['batch']}) has the same "
          f"{len(edges(od))} confirmed edges; {other['summary']['runs']} runs")


def masked(rank_path):
    with open(rank_path) as f:
        rank = json.load(f)
    ranked = [t["test"] for t in rank["tests"]]
    check(ranked == [MASKED[0]], f"rank --od ranks {ranked}, expected [{MASKED[0]}]")
    check(rank["tests"][0].get("masked") is True, "the masked failure is not marked masked")
    crash = rank["flow_sets"][0]["crash"]
    check((crash["exception"], crash["statement"]["line"]) == (MASKED[2][0], MASKED[2][2]),
          f"the masked failure's crash: {crash}")
    excluded = sorted(e["test"] for e in rank.get("excluded", []))
    check(excluded == sorted(EXPECTED), f"excluded {excluded}")
    print(f"ok: od: paf rank --od ranks {MASKED[0]} by its isolated trace ({crash['exception']} at "
          f"{crash['statement']['file']}:{crash['statement']['line']}) and excludes {', '.join(excluded)}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--same-edges":
        same_edges(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "--masked":
        masked(sys.argv[2])
    elif len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
