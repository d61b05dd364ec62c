#!/usr/bin/env python3
"""The order runner of `paf synth --order-dependent N` bundles, for `paf od detect --runner`.

Usage: synth-od-runner.py OD_TRUTH TESTS_FILE [-o RESULTS]

OD_TRUTH is the bundle's od-truth.json. The runner "runs" the listed test ids in order, as one
fresh process would (docs/order-dependence.md, "Runner protocol"), by the rules paf synth
planted: a polluter sets its static field to null; a victim fails with a NullPointerException
if its field was set to null earlier in the same run and passes otherwise; the bundle's other
failing tests fail the same way in any order; every other test passes. It writes one JSON line
per test: {"test", "outcome", "exception", "class", "line"}.
"""
import json
import sys


def main(argv):
    args = argv[1:]
    out = None
    if "-o" in args:
        i = args.index("-o")
        out = args[i + 1]
        del args[i : i + 2]
    if len(args) != 2:
        sys.stderr.write("usage: synth-od-runner.py OD_TRUTH TESTS_FILE [-o RESULTS]\n")
        return 2
    truth_path, tests_file = args
    with open(truth_path) as f:
        truth = json.load(f)
    if truth.get("schema") != "paf.synth-od/1":
        sys.stderr.write(f"{truth_path}: not a paf.synth-od/1 file\n")
        return 2
    polluters = {p["polluter"]: p for p in truth["pairs"]}
    victims = {p["victim"]: p for p in truth["pairs"]}
    failing = truth["failing"]
    with open(tests_file) as f:
        ids = [line.strip() for line in f if line.strip()]
    nulled = set()
    sink = open(out, "w") if out else sys.stdout
    try:
        for tid in ids:
            record = {"test": tid, "outcome": "pass", "exception": None, "class": None, "line": None}
            if tid in polluters:
                nulled.add(polluters[tid]["static"])
            elif tid in victims:
                pair = victims[tid]
                if pair["static"] in nulled:
                    record.update(
                        outcome="fail",
                        exception="java.lang.NullPointerException",
                        **{"class": pair["class"], "line": pair["line"]},
                    )
            elif tid in failing:
                exception, cls, line = failing[tid]
                record.update(outcome="fail", exception=exception, **{"class": cls, "line": line})
            sink.write(json.dumps(record) + "\n")
    finally:
        if out:
            sink.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
