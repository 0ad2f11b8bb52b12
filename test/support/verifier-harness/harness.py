"""Runs verify_signature from the README's Python snippet (argv[1]) on every case of argv[2]."""
import base64
import importlib.util
import json
import sys

spec = importlib.util.spec_from_file_location("verifier", sys.argv[1])
verifier = importlib.util.module_from_spec(spec)
spec.loader.exec_module(verifier)

with open(sys.argv[2], encoding="utf-8") as file:
    cases = json.load(file)
for case in cases:
    ok = verifier.verify_signature(base64.b64decode(case["body"]), case["header"], case["secret"])
    print(f"{case['name']}\t{str(ok).lower() if isinstance(ok, bool) else 'not a bool: ' + repr(ok)}")
