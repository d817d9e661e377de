#!/usr/bin/env python3
"""Re-runs the commands shown in README.md and rewrites their output in place, so the README's
examples stay real output. A code block whose first line is `$ ridgeline ...` (continued with
a trailing backslash) is re-run with the build's binary; a block that trims its output with a
`...` line has the lines before the first `...` refreshed (as many as before) and keeps the rest; the quick
start block follows "`./quickstart.sh run` prints:". Review the diff before committing.
Usage: scripts/update_readme_outputs.py [path/to/ridgeline]"""
import re
import shlex
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/cli/ridgeline"
QUICK = ["predict", "--gpu", "h100-sxm", "--model", "llama-3-8b", "--phase", "decode",
         "--batch", "32", "--kv-len", "2048"]


def run(args):
    p = subprocess.run([BIN] + args, capture_output=True, text=True)
    return (p.stdout + p.stderr).rstrip("\n").split("\n")


def refresh(body, out):
    """New block body: all of `out`, or its head when the old body was trimmed with '...'."""
    if "..." not in body:
        return out
    head = body.index("...")
    return out[:head] + body[head:]


lines = open("README.md").read().split("\n")
i = 0
while i < len(lines):
    if lines[i].startswith("```") and i + 1 < len(lines):
        j = i + 1
        end = next(k for k in range(j, len(lines)) if lines[k].startswith("```"))
        block = lines[j:end]
        if block and block[0].startswith("$ ridgeline "):
            cmd_lines = [block[0]]
            while cmd_lines[-1].endswith("\\"):
                cmd_lines.append(block[len(cmd_lines)])
            cmd = " ".join(l.rstrip("\\").strip() for l in cmd_lines)[len("$ ridgeline "):]
            cmd = re.sub(r"\s+#.*$", "", cmd)
            if "calibrate run" not in cmd and "my-gpu.json" not in cmd and "my-h200" not in cmd:
                body = block[len(cmd_lines):]
                new = refresh(body, run(shlex.split(cmd)))
                lines[j:end] = cmd_lines + new
                end = j + len(cmd_lines) + len(new)
        elif i > 1 and lines[i - 2].startswith("`./quickstart.sh run` prints:"):
            new = run(QUICK)
            lines[j:end] = new
            end = j + len(new)
        i = end + 1
    else:
        i += 1
open("README.md", "w").write("\n".join(lines))
