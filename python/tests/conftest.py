"""pytest setup for the ridgeline package: the CLI binary the results are compared with
(RIDGELINE_BIN, set by ctest's python.api) and the source tree (the tests run from it)."""

import json
import os
import subprocess

import pytest

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def cli():
    """Runs `ridgeline ARGS...` from the source tree: (exit status, stdout, stderr)."""
    binary = os.environ.get("RIDGELINE_BIN")
    if not binary:
        pytest.skip("RIDGELINE_BIN (the ridgeline binary) not set; ctest sets it")

    def run(*args):
        p = subprocess.run([binary, *args], capture_output=True, text=True, cwd=SOURCE_DIR)
        return p.returncode, p.stdout, p.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    def run(*args):
        status, out, err = cli(*args)
        assert status == 0, err
        return json.loads(out)

    return run


@pytest.fixture(autouse=True)
def in_source_dir(monkeypatch):
    monkeypatch.chdir(SOURCE_DIR)
