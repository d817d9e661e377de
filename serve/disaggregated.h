// Disaggregated prefill/decode serving: P prefill replicas and D decode replicas of the same
// engine and step model (each tp GPUs), as Dynamo, llm-d and vLLM's P/D connectors run them.
//  1. Requests go to the prefill replicas round-robin in arrival order; each replica's run is
//     the engine's own loop over prompts with one output token (vLLM's prefill worker runs
//     max_tokens = 1), so queueing, chunking and batching of prefills are the engine's.
//  2. When a prompt's prefill ends, its KV cache (prompt tokens x KV bytes a token, on each of
//     the tp GPUs, every GPU sending its shard to its peer at once) crosses to a decode replica
//     over the cluster's link between them: NVLink when both replicas are in one node, the
//     inter-node network otherwise (serve/disaggregated.cpp's cluster_kv_transfer: NCCL's
//     send/recv model). Replicas take GPUs in order, prefill ones first, tp each, gpus_per_node
//     a node. A prefill replica sends one KV cache at a time (its links are busy until it is
//     through); different replicas' transfers do not slow each other.
//  3. Decode replicas take requests round-robin in the order their KV became ready; a request
//     joins its decode replica's queue when its KV has arrived (simulator.h's Handoff: KV blocks
//     for the prompt at admission, then decodes only).
// TTFT = prefill queue + prefill + transfer (the first token is streamed once the KV is on the
// decode side, so a single request's TTFT is its prefill plus its transfer); TPOT and ITL from the
// decode replica (the first gap starts at TTFT). Throughput per GPU divides by (P + D) x tp.
// Open-loop arrivals only (a closed loop across two pools is not simulated); no warm-up.
#pragma once

#include "hardware/cluster_spec.h"
#include "serve/serve_run.h"

#include <functional>

namespace ridgeline {

struct DisaggSpec {
  int64_t prefill = 1, decode = 1;
  int64_t gpus_per_replica = 1, gpus_per_node = 1;
  // Seconds to move `bytes` from one GPU to its peer, inside a node or across nodes.
  std::function<double(double bytes, bool same_node)> transfer_s;
};

// "P:D" (both >= 1) of `flag`; InputError naming the flag otherwise.
DisaggSpec parse_disaggregate(const std::string& flag, const std::string& text);

// The KV transfer price on `cluster`: a send/recv of the bytes (model/collective_cost.h), two
// ranks in a node or one a node.
std::function<double(double, bool)> cluster_kv_transfer(const ClusterSpec& cluster);

// Whether prefill replica `p` and decode replica `d` share a node under `spec`'s placement.
bool same_node(const DisaggSpec& spec, int64_t p, int64_t d);

// run_serving with setup.disaggregate set comes here.
ServeRun run_disaggregated(Workload workload, const ServeSetup& setup, const KvSizing& kv);

}  // namespace ridgeline
