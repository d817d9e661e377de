"""ridgeline from Python: GPU kernel and transformer performance predictions as dicts.

Each function mirrors a `ridgeline` subcommand: keyword arguments are its flags with
underscores for dashes (``kv_len=2048`` is ``--kv-len 2048``), and the dict it returns is the
command's ``--format json`` output read with ``json.loads``. The compiled module
``_ridgeline`` runs the command in-process through the same C++ functions as the CLI, so
there is one implementation of every flag and every number.

    >>> import ridgeline
    >>> p = ridgeline.predict(gpu="h100-sxm", model="llama-3-8b", phase="decode",
    ...                       batch=32, kv_len=2048)
    >>> round(p["total_us"])
    10771

Values: ``True`` gives a switch (``ignore_memory=True``), ``False`` or ``None`` leaves the
flag out; a list is comma-joined for a list flag (``batches=[1, 16, 64]``) and repeated for a
repeatable one (``set=[...]``, ``data=[...]``); ``set`` also takes a dict of PATH: VALUE.
Bad input raises ``ridgeline.InputError`` (a ``ValueError``) with the message the CLI prints.
"""

import json

from ._ridgeline import InputError, InternalError  # noqa: F401 (re-exported)
from . import _ridgeline

__all__ = [
    "InputError", "InternalError", "predict", "sweep", "op", "validate", "collective",
    "serve", "capacity", "search", "compare", "gpus", "models", "clusters", "to_dataframe",
]


def _text(value):
    if isinstance(value, bool):
        raise InputError("a switch takes True or False, not inside a list")
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same float; inf as "inf"
    return str(value)


def _args(kwargs):
    """(flag, [values]) pairs for _ridgeline.run_command; a switch has no values."""
    args = []
    for key, value in kwargs.items():
        if key == "format":
            raise TypeError("format: the Python API returns dicts (the JSON view); "
                            "use the CLI for table or csv")
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append((flag, []))
        elif isinstance(value, dict):
            args.append((flag, [f"{k}={_text(v)}" for k, v in value.items()]))
        elif isinstance(value, (list, tuple)):
            args.append((flag, [_text(v) for v in value]))
        else:
            args.append((flag, [_text(value)]))
    return args


def _strip(stderr):
    lines = [line.removeprefix("ridgeline: error: ").removeprefix("ridgeline: ")
             for line in stderr.splitlines() if line.strip()]
    return "\n".join(lines)


def _run(name, kwargs, fmt="json"):
    status, out, err = _ridgeline.run_command(name, _args(kwargs) + [("--format", [fmt])])
    if status != 0:
        raise InputError(_strip(err) or f"ridgeline {name} exited with status {status}")
    if fmt == "jsonl":
        return [json.loads(line) for line in out.splitlines() if line.strip()]
    return json.loads(out)


def predict(**kwargs):
    """A model's step on one GPU or, with cluster=..., tp=..., pp=..., on many."""
    return _run("predict", kwargs)


def sweep(**kwargs):
    """``ridgeline sweep``: batch x length x precision; the points are under "points"."""
    return _run("sweep", kwargs)


def validate(**kwargs):
    """``ridgeline validate``: a scorecard of predictions against measurements."""
    return _run("validate", kwargs)


def collective(**kwargs):
    """One collective from flags (a dict), or input="file.jsonl" (a list, one dict a line)."""
    return _run("collective", kwargs, "jsonl" if kwargs.get("input") else "json")


def serve(**kwargs):
    """``ridgeline serve``: a serving simulation; per-request rows under "requests"."""
    return _run("serve", kwargs)


def capacity(**kwargs):
    """``ridgeline capacity``: replicas (or rate) that meet an SLO."""
    return _run("capacity", kwargs)


def search(**kwargs):
    """``ridgeline search``: training strategies ranked; rows under "ranked"."""
    return _run("search", kwargs)


def compare(**kwargs):
    """``ridgeline compare``: strategies (strategy=["tp=8,pp=2", ...]) side by side."""
    return _run("compare", kwargs)


def gpus():
    """The GPU presets and how each is calibrated."""
    return _run("gpus", {})


def models():
    """The model presets."""
    return _run("models", {})


def clusters():
    """The cluster presets."""
    return _run("clusters", {})


def op(ops, gpu="h100-sxm", set=None, profile=None, errors="raise"):
    """One op (a dict in the `ridgeline op` JSONL contract) or a list of them.

    Returns a dict for a dict and a list for a list: each the line `ridgeline op --format jsonl`
    prints for it. A bad op is labelled "op" (or "op[i]" in a list) in its message; with
    errors="raise" (default) the first one raises InputError, with errors="keep" it stays in
    the list as {"id", "error"}, as in the CLI's output.
    """
    if errors not in ("raise", "keep"):
        raise ValueError(f'errors: "raise" or "keep", not {errors!r}')
    if isinstance(set, dict):
        set = [f"{k}={_text(v)}" for k, v in set.items()]
    results = json.loads(_ridgeline.op_json(json.dumps(ops), gpu, list(set or []), profile or ""))
    if errors == "raise":
        for r in results:
            if "error" in r:
                raise InputError(r["error"])
    return results[0] if isinstance(ops, dict) else results


# The list in each result that makes a table: predict's kernels, sweep's points, ...
_TABLE_KEYS = ("ops", "points", "ranked", "strategies", "requests", "cases", "results")


def to_dataframe(result, key=None):
    """A pandas DataFrame of a result: a list of dicts (op, collective input=...) as rows, or a
    dict's table (key, or the first of ops, points, ranked, strategies, requests, cases).
    Nested dicts become dotted columns ("bytes.hbm")."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("to_dataframe needs pandas (apt-get install python3-pandas)") from e
    if isinstance(result, dict):
        if key is None:
            key = next((k for k in _TABLE_KEYS if isinstance(result.get(k), list)), None)
            if key is None:
                raise ValueError("to_dataframe: no table in this result; name one with key=")
        result = result[key]
    return pandas.json_normalize(result)
