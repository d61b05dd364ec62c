#!/usr/bin/env python3
"""Checks every shipped bundle in traces/ and the Java-traced bundles of testdata/java (or the
directories given) against docs/trace-format.schema.json, and order-dependence reports
(testdata/java/static-state/od.json, or the files given after --od) against
docs/paf.od.schema.json, so the schemas and the readers cannot drift apart.

Usage: check-schema.py [BUNDLE...] [--od REPORT...]"""
import gzip
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
schema = json.load(open(os.path.join(ROOT, "docs", "trace-format.schema.json")))
od_schema = json.load(open(os.path.join(ROOT, "docs", "paf.od.schema.json")))
defs = {"manifest.json": "manifest", "statements.jsonl": "statement",
        "static-duas.jsonl": "staticDua", "tests.jsonl": "testRecord", "isolated.jsonl": "testRecord"}


def validator(name):
    sub = dict(schema)
    sub["$ref"] = "#/$defs/" + name
    del sub["properties"]
    return jsonschema.Draft202012Validator(sub)


def lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                yield n, json.loads(line)


args = sys.argv[1:]
reports = [os.path.join(ROOT, "testdata", "java", "static-state", "od.json")]
if "--od" in args:
    reports = args[args.index("--od") + 1:]
    args = args[:args.index("--od")]
dirs = args or [os.path.join(ROOT, "traces", d) for d in sorted(os.listdir(os.path.join(ROOT, "traces")))
                        if os.path.isfile(os.path.join(ROOT, "traces", d, "manifest.json"))] \
    + [os.path.join(ROOT, "testdata", "java", d, "bundle") for d in ("motivating", "library", "static-state")] \
    + [os.path.join(ROOT, "testdata", "eval", "baselines")]
errors = 0
for d in dirs:
    for file, name in defs.items():
        for path in (os.path.join(d, file), os.path.join(d, file + ".gz")):
            if not os.path.isfile(path):
                continue
            v = validator(name)
            items = [(1, json.load(open(path)))] if file.endswith(".json") else lines(path)
            for n, obj in items:
                for e in v.iter_errors(obj):
                    errors += 1
                    print(f"{os.path.relpath(path, ROOT)}:{n}: {e.message}")
    print(f"{os.path.relpath(d, ROOT)}: checked")
od_validator = jsonschema.Draft202012Validator(od_schema)
for path in reports:
    for e in od_validator.iter_errors(json.load(open(path))):
        errors += 1
        where = "/".join(str(p) for p in e.absolute_path)
        print(f"{os.path.relpath(path, ROOT)}: {where}: {e.message}")
    print(f"{os.path.relpath(path, ROOT)}: checked against docs/paf.od.schema.json")
sys.exit(1 if errors else 0)
