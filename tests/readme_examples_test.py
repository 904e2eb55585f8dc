"""README.md's printed examples held to the binary (issue 30 item 5): every `$ whyslow …` line in
a fenced block is run from the source tree, and each line printed under it must come out of it, in
order. Runs of white space count as one space, so a paragraph excerpted and wrapped anew, or a
table's columns, still match; a printed line may elide with "…", and the pieces between the
ellipses must then come out in order; a line that is only "…" stands for any amount of output. An example
that reads the project's corpus beside the checkout (../shared/) fails: a reader's clone has none, so
each example runs on committed files (issue 46 item 6).
`$ python3 …` lines run too (they make the input of the next example). Every ```python block that is
a program (not an `In [1]:` session) must compile.

Usage: readme_examples_test.py WHYSLOW_BINARY SOURCE_DIR"""
import os
import shlex
import subprocess
import sys
import tempfile

ELLIPSIS = "…"
# The examples' scratch folder: README says /tmp/job; the test writes to a folder of its own.
README_SCRATCH = "/tmp/job"


def blocks(readme):
    """(language, first line number, lines) of every fenced block."""
    out, lang, start, lines = [], None, 0, None
    for number, line in enumerate(readme.splitlines(), 1):
        if line.startswith("```"):
            if lines is None:
                lang, start, lines = line[3:].strip(), number + 1, []
            else:
                out.append((lang, start, lines))
                lines = None
        elif lines is not None:
            lines.append(line)
    return out


def examples(block_lines, start):
    """(line number, command, printed lines) for each `$ ` line of a block."""
    out = []
    for i, line in enumerate(block_lines):
        if line.startswith("$ "):
            out.append([start + i, line[2:], []])
        elif out:
            out[-1][2].append(line)
    return out


def spaced(text):
    return " ".join(text.split())


def matches(printed, output):
    """None when every printed line comes out in order, else the first one that does not."""
    text, at = spaced(output), 0
    for line in printed:
        for piece in (spaced(p) for p in line.split(ELLIPSIS)):
            if not piece:
                continue
            found = text.find(piece, at)
            if found < 0:
                return line
            at = found + len(piece)
    return None


def main():
    binary, source = sys.argv[1], sys.argv[2]
    with open(os.path.join(source, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    failures, ran, compiled = [], 0, 0
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    with tempfile.TemporaryDirectory() as scratch:
        for lang, start, lines in blocks(readme):
            if lang == "python" and not lines[0].startswith("In ["):
                try:
                    compile("\n".join(lines), f"README.md:{start}", "exec")
                    compiled += 1
                except SyntaxError as e:
                    failures.append(f"README.md:{e.lineno}: the python block does not compile: {e.msg}")
                continue
            for number, command, printed in examples(lines, start):
                if not (command.startswith("whyslow ") or command.startswith("python3 ")):
                    continue
                if "../shared/" in command:
                    failures.append(f"README.md:{number}: `{command}` reads ../shared/, which a clone has not: "
                                    "run the example on a committed fixture")
                    continue
                command = command.replace(README_SCRATCH, os.path.join(scratch, "job"))
                if command.startswith("whyslow "):
                    command = shlex.quote(binary) + command[len("whyslow"):]
                p = subprocess.run(command, shell=True, executable="bash", cwd=source, env=env, capture_output=True, text=True)
                ran += 1
                if p.returncode != 0:
                    failures.append(f"README.md:{number}: `{command}` exited {p.returncode}: {p.stderr.strip()}")
                    continue
                missing = matches(printed, p.stdout)
                if missing is not None:
                    failures.append(f"README.md:{number}: `{command}` does not print, in this order:\n    {missing}")
    for f in failures:
        print(f)
    print(f"{ran} examples run, {compiled} python blocks compiled, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
