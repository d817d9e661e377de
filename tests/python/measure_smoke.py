#!/usr/bin/env python3
"""Smoke test of validate/measure (the GPU measurement scripts), run by ctest without a GPU.

The scripts run later on a GPU machine; here every module must compile, import without torch,
name no global it does not define or import (a name lost when code moves between the entry
scripts and the ridgeline_measure package fails here), and every entry script must build its
argument parser (`--help` exits 0). A module that needs torch at import (the model files) is only
compiled and checked where torch is missing. Plain Python, no pytest.

    python3 tests/python/measure_smoke.py [validate/measure]
"""

import builtins
import importlib
import os
import subprocess
import symtable
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", "..", "validate", "measure"))


# What a GPU machine has and this one may not: a module that imports these at load time is checked
# here (compiled, its globals) but not imported.
NEED_GPU_STACK = {"torch", "triton", "transformers"}


def modules():
    for base, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(base, f)


def module_names(table):
    """Names bound at module level: assignments, defs, classes, imports."""
    return {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}


def undefined_globals(path):
    """(function, name) for each global a function reads that the module never binds."""
    with open(path) as f:
        top = symtable.symtable(f.read(), path, "exec")
    known = module_names(top) | set(dir(builtins)) | {"__file__", "__name__", "__doc__"}
    missing = []

    def walk(t):
        for child in t.get_children():
            if child.get_type() == "function":
                for s in child.get_symbols():
                    if s.is_global() and s.is_referenced() and s.get_name() not in known:
                        missing.append((child.get_name(), s.get_name()))
            walk(child)
    walk(top)
    return missing


def main():
    sys.path.insert(0, ROOT)
    failures = []
    paths = list(modules())
    for path in paths:
        rel = os.path.relpath(path, ROOT)
        try:
            with open(path) as f:
                compile(f.read(), path, "exec")
        except SyntaxError as exc:
            failures.append(f"{rel}: does not compile: {exc}")
            continue
        for fn, name in undefined_globals(path):
            failures.append(f"{rel}: {fn}() reads {name}, which the module does not define or import")
        mod = rel[:-3].replace(os.sep, ".")
        if mod.endswith(".__init__"):
            mod = mod[:-9]
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name not in NEED_GPU_STACK:
                failures.append(f"{rel}: import {mod} failed: {exc}")
            continue  # a model file that needs torch at import: compiled and checked above
        except BaseException as exc:  # noqa: BLE001  (SystemExit included)
            failures.append(f"{rel}: import {mod} failed: {type(exc).__name__}: {exc}")
            continue
        with open(path) as f:
            text = f.read()
        if "argparse" in text and "__main__" in text:
            r = subprocess.run([sys.executable, path, "--help"], capture_output=True, text=True,
                               timeout=120, cwd=ROOT)
            if r.returncode != 0 or "usage:" not in r.stdout:
                failures.append(f"{rel}: --help exited {r.returncode}: {r.stderr.strip()[-300:]}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(paths)} modules checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
