"""What moe_block.py's MoE blocks did and which transformers code they ran: the routing each layer
chose (RoutingRecorder, routing_summary), transformers' experts implementation and its source
(transformers_info), and how often the experts function was called (CallCounter,
experts_call_counter). Imported by moe_block.py (its names stay there too).
"""

import inspect

import torch


def _moe_mlp():
    from moe_block import MoeMLP  # late: moe_block imports this module
    return MoeMLP


class RoutingRecorder:
    """Forward pre-hooks on every MoeMLP.experts: top_k_index per layer per call."""

    def __init__(self, model):
        self.calls = []
        self.handles = []
        layers = [m for m in model.modules() if isinstance(m, _moe_mlp())]
        for i, mlp in enumerate(layers):
            try:
                handle = mlp.experts.register_forward_pre_hook(self._hook(i), with_kwargs=True)
            except TypeError:     # torch < 2.0: positional arguments only
                handle = mlp.experts.register_forward_pre_hook(self._hook(i))
            self.handles.append(handle)

    def _hook(self, layer):
        def hook(module, args, kwargs=None):
            top_k_index = args[1] if len(args) > 1 else kwargs["top_k_index"]
            e = module.gate_up_proj.shape[0]
            counts = torch.bincount(top_k_index.reshape(-1), minlength=e).tolist()
            self.calls.append({"layer": layer, "tokens": int(top_k_index.shape[0]),
                               "distinct_experts": sum(1 for c in counts if c > 0),
                               "max_tokens_per_expert": max(counts),
                               "tokens_per_expert": counts})
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []


def routing_summary(calls):
    if not calls:
        return {}
    distinct = [c["distinct_experts"] for c in calls]
    return {"routing_per_layer": calls,
            "distinct_experts_per_layer": distinct,
            "distinct_experts_mean": sum(distinct) / len(distinct),
            "max_tokens_per_expert_per_layer": [c["max_tokens_per_expert"] for c in calls]}


# ---------------------------------------------------------------------------
# What transformers runs (for the meta)
# ---------------------------------------------------------------------------

def _source(obj):
    try:
        return inspect.getsource(obj)
    except Exception as exc:
        return f"unavailable: {type(exc).__name__}: {exc}"


def transformers_info(device="cuda"):
    """Version, the default experts implementation a Mixtral model resolves to, and the
    source of the functions that run (what 'grouped_mm' means in this version)."""
    info = {}
    try:
        import transformers
        info["version"] = transformers.__version__
        from transformers import MixtralConfig, MixtralForCausalLM
        from transformers.integrations import moe as hf_moe
        from transformers.models.mixtral import modeling_mixtral as mm
        fresh = MixtralConfig()
        info["mixtral_config_experts_implementation_unset"] = repr(
            getattr(fresh, "_experts_implementation", "<no attribute>"))
        tiny = MixtralConfig(hidden_size=64, intermediate_size=128, num_local_experts=4,
                             num_experts_per_tok=2, num_attention_heads=4, num_key_value_heads=2,
                             num_hidden_layers=1, vocab_size=128)
        try:
            with torch.device(device):
                model = MixtralForCausalLM(tiny)
            info["default_experts_implementation"] = model.config._experts_implementation
            info["default_resolved_on"] = f"MixtralForCausalLM(tiny config) on {device}"
            del model
        except Exception as exc:
            info["default_experts_implementation_error"] = f"{type(exc).__name__}: {exc}"
        funcs = getattr(hf_moe, "ALL_EXPERTS_FUNCTIONS", None)
        with_keys = getattr(funcs, "keys", None)
        if with_keys is not None:
            info["registered_experts_functions"] = sorted(with_keys())
        info["source"] = {
            "grouped_mm_experts_forward": _source(getattr(hf_moe, "grouped_mm_experts_forward",
                                                          None)),
            "_grouped_linear": _source(getattr(hf_moe, "_grouped_linear", None)),
            "_default_apply_gate": _source(getattr(hf_moe, "_default_apply_gate", None)),
            "MixtralSparseMoeBlock": _source(mm.MixtralSparseMoeBlock),
            "MixtralTopKRouter": _source(getattr(mm, "MixtralTopKRouter", None)),
            "MixtralExperts": _source(getattr(mm, "MixtralExperts", None)),
        }
        try:
            from transformers.modeling_utils import PreTrainedModel
            info["source"]["get_correct_experts_implementation"] = _source(
                PreTrainedModel.get_correct_experts_implementation)
        except Exception as exc:
            info["source"]["get_correct_experts_implementation"] = f"unavailable: {exc}"
    except Exception as exc:
        info["error"] = f"{type(exc).__name__}: {exc}"
    return info


class CallCounter:
    """Counts calls of transformers' registered experts function `name` while active."""

    def __init__(self, name="grouped_mm"):
        self.name = name
        self.count = 0
        self.mapping = None
        self.original = None

    def __enter__(self):
        from transformers.integrations import moe as hf_moe
        funcs = hf_moe.ALL_EXPERTS_FUNCTIONS
        mapping = getattr(funcs, "_global_mapping", None)
        if mapping is None or self.name not in mapping:
            raise RuntimeError(f"no {self.name!r} in transformers' ALL_EXPERTS_FUNCTIONS")
        self.mapping = mapping
        self.original = mapping[self.name]

        def counted(*args, **kwargs):
            self.count += 1
            return self.original(*args, **kwargs)
        mapping[self.name] = counted
        return self

    def __exit__(self, *exc):
        self.mapping[self.name] = self.original
        return False


class _NoCounter:
    count = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def experts_call_counter(model):
    """A CallCounter for the experts function the model's transformers blocks dispatch to
    (a context manager whose .count stays None for a local or dense model), and the path."""
    mlps = [m for m in model.modules() if isinstance(m, _moe_mlp())]
    if not mlps or mlps[0].spec.impl != "transformers":
        return _NoCounter(), (mlps[0].path if mlps else None)
    return CallCounter(mlps[0].spec.experts_implementation), mlps[0].path
