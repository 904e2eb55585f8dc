"""Every code snippet a finding prints pastes as written (issue 30 item 3): `whyslow explain --json`
over every committed fixture trace (tests/fixtures/**.json.gz), each findings[].code[] entry in
Python must compile(); a try line must hold no multi-line code (code goes in `code`, printed
verbatim, never re-wrapped).

Usage: snippets_test.py WHYSLOW_BINARY FIXTURES_DIR"""
import glob
import json
import os
import subprocess
import sys


def main():
    binary, fixtures = sys.argv[1], sys.argv[2]
    traces = sorted(glob.glob(os.path.join(fixtures, "**", "*.json.gz"), recursive=True))
    snippets, errors = 0, []
    for path in traces:
        run = subprocess.run([binary, "explain", "--json", path], capture_output=True, text=True)
        if run.returncode not in (0, 3):  # 3: nothing recorded, still reported; others are bad fixtures
            continue
        for f in json.loads(run.stdout)["findings"]:
            for t in f["try"]:
                if "\n" in t:
                    errors.append(f"{path}: {f['id']}: a try line holds code over several lines: {t!r}")
            for c in f.get("code", []):
                if c["language"] != "python":
                    continue
                snippets += 1
                try:
                    compile(c["text"], f"{f['id']} snippet", "exec")
                except SyntaxError as e:
                    errors.append(f"{path}: {f['id']}: {c['caption']!r} does not compile: {e}")
    print(f"{len(traces)} traces, {snippets} Python snippets")
    for e in errors:
        print(e)
    if snippets == 0:
        errors.append("no snippet found: the fixtures no longer exercise the findings that print code")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
