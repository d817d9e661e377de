"""The Python API returns what the CLI's --format json prints for the same inputs, and raises
ridgeline.InputError with the CLI's message for bad input."""

import json
import math

import pytest

import ridgeline

DECODE = dict(gpu="h100-sxm", model="llama-3-8b", phase="decode", batch=32, kv_len=2048)


def test_predict_equals_cli_json(cli_json):
    got = ridgeline.predict(**DECODE)
    want = cli_json("predict", "--gpu", "h100-sxm", "--model", "llama-3-8b", "--phase", "decode",
                    "--batch", "32", "--kv-len", "2048", "--format", "json")
    assert got == want
    assert got["total_us"] > 0


def test_predict_switches_and_lists_become_flags(cli_json):
    got = ridgeline.predict(gpu="h100-sxm", model="llama-3-8b", phase="prefill", batch=1,
                            seq=4096, blocks=2, launch="eager", ignore_memory=True,
                            set={"memory/hbm/bandwidth_GBps": "+10%"})
    want = cli_json("predict", "--gpu", "h100-sxm", "--model", "llama-3-8b", "--phase", "prefill",
                    "--batch", "1", "--seq", "4096", "--blocks", "2", "--launch", "eager",
                    "--ignore-memory", "--set", "memory/hbm/bandwidth_GBps=+10%",
                    "--format", "json")
    assert got == want


def test_predict_generate_equals_cli_json(cli_json):
    got = ridgeline.predict(gpu="h200-sxm", model="llama-3-8b", phase="generate", seq=512,
                            new_tokens=64, runtime="hf-transformers", launch="eager")
    want = cli_json("predict", "--gpu", "h200-sxm", "--model", "llama-3-8b", "--phase",
                    "generate", "--seq", "512", "--new-tokens", "64", "--runtime",
                    "hf-transformers", "--launch", "eager", "--format", "json")
    assert got == want
    assert got["total_us"] == pytest.approx(got["ttft_us"] + 63 * got["per_token_us"])


def test_predict_master_weights_and_grad_scaler_become_flags(cli_json):
    got = ridgeline.predict(gpu="h200-sxm", model="llama-3-8b", phase="train", seq=2048,
                            weights="fp16", activations="fp16", master_weights="fp32",
                            optimizer="adamw", grad_scaler=True, ignore_memory=True)
    want = cli_json("predict", "--gpu", "h200-sxm", "--model", "llama-3-8b", "--phase", "train",
                    "--seq", "2048", "--weights", "fp16", "--activations", "fp16",
                    "--master-weights", "fp32", "--optimizer", "adamw", "--grad-scaler",
                    "--ignore-memory", "--format", "json")
    assert got == want
    assert got["inputs"]["master_weights"] == "fp32"
    assert got["inputs"]["grad_scaler"] is True


def test_predict_on_a_cluster_equals_cli_json(cli_json):
    got = ridgeline.predict(cluster="dgx-h100", model="llama-3-70b", phase="train", gpus=16,
                            tp=8, pp=2, microbatch=1, global_batch=16, seq=2048)
    want = cli_json("predict", "--cluster", "dgx-h100", "--model", "llama-3-70b", "--phase",
                    "train", "--gpus", "16", "--tp", "8", "--pp", "2", "--microbatch", "1",
                    "--global-batch", "16", "--seq", "2048", "--format", "json")
    assert got == want


def test_op_equals_cli_jsonl(cli):
    with open("tests/golden/ops.jsonl") as f:
        lines = [line for line in f if line.strip()]
    status, out, _ = cli("op", "--gpu", "h100-sxm", "--input", "tests/golden/ops.jsonl")
    want = [json.loads(line) for line in out.splitlines()]
    ops = [json.loads(line) for line in lines if line.startswith("{")]
    got = ridgeline.op(ops, gpu="h100-sxm", errors="keep")
    good = [r for r in want if "error" not in r]
    assert [r for r in got if "error" not in r] == good
    assert len(good) == 16 and status == 1
    assert ridgeline.op(ops[0]) == want[0]  # one dict in, one dict out


def test_sweep_equals_cli_json(cli_json):
    got = ridgeline.sweep(model="llama-3-8b", phase="decode", kv_len=2048, batches=[1, 16, 64],
                          weight_dtypes=["bf16", "fp8"])
    want = cli_json("sweep", "--model", "llama-3-8b", "--phase", "decode", "--kv-len", "2048",
                    "--batches", "1,16,64", "--weight-dtypes", "bf16,fp8", "--format", "json")
    assert got == want
    assert len(got["points"]) == 6


def test_collective_equals_cli_json(cli_json):
    got = ridgeline.collective(cluster="dgx-h100", op="all_reduce", gpus=8, bytes="256MiB")
    want = cli_json("collective", "--cluster", "dgx-h100", "--op", "all_reduce", "--gpus", "8",
                    "--bytes", "256MiB", "--format", "json")
    assert got == want


def test_serve_equals_cli_json(cli_json):
    got = ridgeline.serve(gpu="h200-sxm", model="llama-3.1-8b", engine="vllm", input_len=512,
                          output_len=64, rate=math.inf, requests=50)
    want = cli_json("serve", "--gpu", "h200-sxm", "--model", "llama-3.1-8b", "--engine", "vllm",
                    "--input-len", "512", "--output-len", "64", "--rate", "inf", "--requests",
                    "50", "--format", "json")
    assert got == want
    assert got["throughput"]["output_tokens_per_s"] > 0


def test_search_and_validate_return_dicts():
    s = ridgeline.search(model="llama-3-8b", cluster="dgx-h100", gpus=16, global_batch=64,
                         seq=4096, max_microbatch=2, top=3)
    assert len(s["ranked"]) == 3
    v = ridgeline.validate(gpu="h100-sxm", data=["validate/data/h100-sxm-norms-2026-11-29.json"])
    assert isinstance(v, dict) and v


def test_an_input_error_is_a_value_error_with_the_cli_message(cli):
    with pytest.raises(ridgeline.InputError) as e:
        ridgeline.predict(gpu="h100-sxm", model="no-such-model", phase="decode", kv_len=8)
    status, _, err = cli("predict", "--gpu", "h100-sxm", "--model", "no-such-model", "--phase",
                         "decode", "--kv-len", "8", "--format", "json")
    assert status == 1
    assert str(e.value) == err.strip().removeprefix("ridgeline: error: ")
    assert isinstance(e.value, ValueError)


def test_an_unknown_keyword_is_the_cli_s_unknown_flag():
    with pytest.raises(ridgeline.InputError, match="--no-such-flag"):
        ridgeline.predict(no_such_flag=3, **DECODE)


def test_a_bad_op_raises_with_its_index():
    with pytest.raises(ridgeline.InputError, match=r"^op\[1\]: /dtype: unknown dtype"):
        ridgeline.op([{"op": "gemm", "m": 1, "n": 1, "k": 1, "dtype": "bf16"},
                      {"op": "gemm", "m": 1, "n": 1, "k": 1, "dtype": "tf16"}])
    kept = ridgeline.op({"op": "gemm", "m": 1, "dtype": "bf16"}, errors="keep")
    assert kept["error"].startswith("op: /n: missing")


def test_op_errors_takes_raise_or_keep():
    with pytest.raises(ValueError, match='errors: "raise" or "keep"'):
        ridgeline.op({"op": "gemm"}, errors="ignore")


def test_format_is_not_a_keyword():
    with pytest.raises(TypeError, match="format: the Python API returns dicts"):
        ridgeline.predict(format="table", **DECODE)


def test_a_switch_inside_a_list_is_an_error():
    with pytest.raises(ridgeline.InputError, match="a switch takes True or False"):
        ridgeline.sweep(model="llama-3-8b", phase="decode", kv_len=8, batches=[True])


def test_to_dataframe():
    pandas = pytest.importorskip("pandas")
    df = ridgeline.to_dataframe(ridgeline.predict(**DECODE))
    assert isinstance(df, pandas.DataFrame) and "time_us" in df.columns
    ops = ridgeline.to_dataframe(ridgeline.op([{"op": "gemm", "m": 8, "n": 8, "k": 8,
                                                "dtype": "bf16"}]))
    assert "bytes.hbm" in ops.columns
    with pytest.raises(ValueError, match="no table in this result"):
        ridgeline.to_dataframe({"total_us": 1})
