#!/usr/bin/env python3
"""Checks every shipped bundle in traces/ and the Java-traced testdata/java/motivating/bundle
(or the directories given) against
docs/trace-format.schema.json, so the schema and the reader cannot drift apart."""
import gzip
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
schema = json.load(open(os.path.join(ROOT, "docs", "trace-format.schema.json")))
defs = {"manifest.json": "manifest", "statements.jsonl": "statement",
        "static-duas.jsonl": "staticDua", "tests.jsonl": "testRecord"}


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


dirs = sys.argv[1:] or [os.path.join(ROOT, "traces", d) for d in sorted(os.listdir(os.path.join(ROOT, "traces")))
                        if os.path.isfile(os.path.join(ROOT, "traces", d, "manifest.json"))] \
    + [os.path.join(ROOT, "testdata", "java", d, "bundle") for d in ("motivating", "library")] \
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
sys.exit(1 if errors else 0)
