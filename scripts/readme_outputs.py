#!/usr/bin/env python3
"""Checks that the command outputs pasted in README.md are what the commands print today, so
they cannot drift; `--update` rewrites them from real output. Run from anywhere; commands run
from the repository root. Python 3 standard library only.

A pasted output is a fenced block right after a marker line:

    <!-- output: ridgeline gpus -->                      runs build/cli/ridgeline gpus
    <!-- output (exit 1): ridgeline predict ... -->      an error: exit status 1 expected
    <!-- output (exit 1, in tests/readme): ridgeline gpus show my-gpu.json -->
                                                         runs in that folder (a fixture's)
    <!-- output: ./quickstart.sh run -->                 the predict command quickstart.sh runs
    <!-- output unchecked: REASON -->                    says why a block is not checked

A marker may also stand right before a Markdown table (no fence): the table's lines are then
the output (as `ridgeline validate --format markdown` prints them).

Output is stdout and stderr together. Inside a block, a leading `$ command` line (continued
with trailing backslashes) is part of the text: it must be the marker's command, and is not
compared with output. A line that is just `...` matches any run of lines (zero or more), so a
block may show an abridged output. Trailing spaces are ignored. Every block that starts with
`$ ridgeline` must have a marker, so a new pasted output cannot skip the check.

--update keeps each block's `...` lines where they are and refreshes the lines around them:
the lines before the first `...` from the head of the output, those after the last from its
tail, and each run between from where its first word next appears in the output.

Usage: scripts/readme_outputs.py [--bin build/cli/ridgeline] [--readme README.md] [--update]
Exit status: 0 all match, 1 a block differs (a diff is printed), 2 a malformed README."""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
from functools import lru_cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!-- output(?: \((?P<opts>[^)]*)\))?: (?P<cmd>.+?) -->$")
UNCHECKED = re.compile(r"^<!-- output unchecked: .+ -->$")


class ReadmeError(Exception):
    pass


def quickstart_command():
    """The ridgeline command line of quickstart.sh's `run)` case."""
    lines = open(os.path.join(ROOT, "quickstart.sh")).read().split("\n")
    start = next((i for i, l in enumerate(lines) if l.strip() == "run)"), None)
    for line in lines[start + 1 if start is not None else len(lines):]:
        if line.strip() == ";;":
            break
        if line.strip().startswith("build/cli/ridgeline "):
            return line.strip()[len("build/cli/"):]
    raise ReadmeError("quickstart.sh: no `build/cli/ridgeline ...` line in its run) case")


def parse_options(text, where):
    exit_code, folder = 0, "."
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        if re.fullmatch(r"exit \d+", part):
            exit_code = int(part.split()[1])
        elif part.startswith("in "):
            folder = part[3:].strip()
        else:
            raise ReadmeError(f"{where}: unknown marker option \"{part}\" (exit N, in DIR)")
    return exit_code, folder


def run(command, exit_code, folder, binary, where):
    shown = quickstart_command() if command == "./quickstart.sh run" else command
    argv = shlex.split(shown)
    if not argv or argv[0] != "ridgeline":
        raise ReadmeError(f"{where}: a marker runs `ridgeline ...` or `./quickstart.sh run`")
    p = subprocess.run([binary] + argv[1:], cwd=os.path.join(ROOT, folder),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != exit_code:
        raise ReadmeError(f"{where}: `{shown}` exited {p.returncode}, the marker expects "
                          f"{exit_code}:\n{p.stdout}")
    return [l.rstrip() for l in p.stdout.rstrip("\n").split("\n")]


def split_prompt(body):
    """(the `$ command` lines, the command they show, the output lines)."""
    if not body or not body[0].startswith("$ "):
        return [], None, body
    n = 1
    while body[n - 1].endswith("\\") and n < len(body):
        n += 1
    shown = " ".join(l.rstrip("\\").strip() for l in body[:n])[2:]
    return body[:n], re.sub(r"\s+#.*$", "", shown), body[n:]


def matches(expected, actual):
    @lru_cache(maxsize=None)
    def m(i, j):
        if i == len(expected):
            return j == len(actual)
        if expected[i] == "...":
            return any(m(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and expected[i].rstrip() == actual[j] and m(i + 1, j + 1)
    return m(0, 0)


def refresh(expected, actual, where):
    """The block's lines rebuilt from `actual`, keeping its `...` lines (see the docstring)."""
    if "..." not in expected:
        return actual
    runs, current = [], []
    for line in expected + ["..."]:
        if line == "...":
            runs.append(current)
            current = []
        else:
            current.append(line)
    out, pos = [], 0
    for i, run_lines in enumerate(runs):
        if i > 0:
            out.append("...")
        n = len(run_lines)
        if n == 0:
            continue
        if i == 0:
            start = 0
        elif i == len(runs) - 1:
            start = max(pos, len(actual) - n)
        else:
            key = run_lines[0].split()[:1]
            start = next((k for k in range(pos, len(actual)) if actual[k].split()[:1] == key),
                         None)
            if start is None:
                raise ReadmeError(f"{where}: --update cannot place the run that starts "
                                  f"\"{run_lines[0].strip()}\" in the new output")
        out.extend(actual[start:start + n])
        pos = start + n
    return out


def blocks(lines):
    """(index of the line before the block, first body line, end of the body (exclusive)) of
    every fenced block, and of every Markdown table right after an output marker."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            end = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("```")), None)
            if end is None:
                raise ReadmeError(f"README.md line {i + 1}: unclosed code block")
            yield i - 1, i + 1, end
            i = end + 1
        elif MARKER.match(lines[i]) and i + 1 < len(lines) and lines[i + 1].startswith("|"):
            end = next((k for k in range(i + 1, len(lines)) if not lines[k].startswith("|")),
                       len(lines))
            yield i, i + 1, end
            i = end
        else:
            i += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/cli/ridgeline"))
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    ap.add_argument("--update", action="store_true", help="rewrite the blocks from real output")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    lines = open(args.readme).read().split("\n")
    new_lines, last, failed, checked = [], 0, 0, 0
    for mark, start, end in list(blocks(lines)):
        where = f"README.md line {start}"
        marker = lines[mark] if mark >= 0 else ""
        body = lines[start:end]
        m = MARKER.match(marker)
        if not m:
            if body and body[0].startswith("$ ridgeline") and not UNCHECKED.match(marker):
                raise ReadmeError(f"{where}: a pasted `$ ridgeline` output without an "
                                  "`<!-- output: ... -->` (or `output unchecked:`) marker")
            continue
        exit_code, folder = parse_options(m.group("opts"), where)
        prompt, shown, expected = split_prompt(body)
        if shown is not None and shown.split() != m.group("cmd").split():
            raise ReadmeError(f"{where}: the block shows `$ {shown}` but the marker runs "
                              f"`{m.group('cmd')}`")
        actual = run(m.group("cmd"), exit_code, folder, binary, where)
        checked += 1
        if args.update:
            new_lines += lines[last:start] + prompt + refresh(expected, actual, where)
            last = end
        elif not matches(expected, actual):
            failed += 1
            print(f"{where}: the output of `{m.group('cmd')}` differs (- README, + today; "
                  "--update writes it):")
            try:  # what --update would write, so that an abridged block diffs line by line
                today = refresh(expected, actual, where)
            except ReadmeError:
                today = actual
            sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(
                [l.rstrip() for l in expected], today, "README.md", "output", lineterm="", n=1))
    if args.update:
        new_lines += lines[last:]
        open(args.readme, "w").write("\n".join(new_lines))
        print(f"readme_outputs: {checked} blocks rewritten from real output; review the diff")
        return 0
    print(f"readme_outputs: {checked - failed} of {checked} pasted outputs match")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ReadmeError, OSError) as e:
        print(f"readme_outputs: {e}", file=sys.stderr)
        sys.exit(2)
