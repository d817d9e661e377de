// Disaggregated prefill/decode pools (see disaggregated.h).
#include "serve/disaggregated.h"

#include "common/errors.h"
#include "model/collective_cost.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace ridgeline {

DisaggSpec parse_disaggregate(const std::string& flag, const std::string& text) {
  DisaggSpec d;
  size_t colon = text.find(':');
  auto number = [&](const std::string& s) {
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() || v < 1)
      throw InputError(flag + " " + text +
                       ": expected P:D, prefill and decode replicas (integers >= 1), e.g. 1:3");
    return (int64_t)v;
  };
  if (colon == std::string::npos) number("");
  d.prefill = number(text.substr(0, colon));
  d.decode = number(text.substr(colon + 1));
  return d;
}

std::function<double(double, bool)> cluster_kv_transfer(const ClusterSpec& cluster) {
  return [cluster](double bytes, bool same) {
    if (bytes <= 0) return 0.0;
    CollectiveOp op{CollectiveKind::SendRecv, bytes, 2, same ? 2 : 1, DType::Bf16};
    return collective_cost(op, cluster).time_us * 1e-6;
  };
}

bool same_node(const DisaggSpec& s, int64_t p, int64_t d) {
  int64_t g = s.gpus_per_replica, n = s.gpus_per_node;
  int64_t a = p * g, b = (s.prefill + d) * g;
  return a / n == (a + g - 1) / n && b / n == (b + g - 1) / n && a / n == b / n;
}

namespace {

void add_steps(SimResult& into, const SimResult& s) {
  into.step_count += s.step_count;
  into.preemptions += s.preemptions;
  into.steps.insert(into.steps.end(), s.steps.begin(), s.steps.end());
}

}  // namespace

ServeRun run_disaggregated(Workload input, const ServeSetup& setup, const KvSizing& kv) {
  const DisaggSpec& spec = *setup.disaggregate;
  if (setup.arrivals.kind == ArrivalSpec::Kind::ClosedLoop)
    throw InputError(
        "--disaggregate: needs open-loop arrivals (--rate or a --workload trace); a closed loop "
        "across two pools is not simulated");
  require_invariant(spec.prefill >= 1 && spec.decode >= 1 && spec.transfer_s != nullptr,
                    "a disaggregated layout");
  if (setup.warmup_requests > 0)
    throw InputError("--warmup: not with --disaggregate (each pool runs its own requests)");
  ServeRun run;
  run.engine = replica_engine(*setup.engine, *setup.model);
  run.kv = kv;
  run.arrivals = setup.arrivals;
  run.workload = prepare_workload(std::move(input), setup, kv);
  const std::vector<Request>& reqs = run.workload.requests;
  const size_t n = reqs.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return reqs[a].arrival_s < reqs[b].arrival_s; });
  SimOptions opt;
  opt.arrivals = ArrivalSpec{ArrivalSpec::Kind::Trace, 0, 1, 0};
  opt.kv_blocks = kv.blocks;
  opt.record_steps = setup.record_steps;
  opt.progress = setup.progress;
  SimResult& out = run.sim;
  out.requests.resize(n);
  out.kv_blocks = kv.blocks;
  out.block_size_tokens = run.engine.block_size_tokens;

  // 1. Prefill replicas, round-robin in arrival order, one output token each.
  std::vector<int64_t> prefill_of(n);
  std::vector<std::vector<Request>> pre((size_t)spec.prefill);
  std::vector<std::vector<size_t>> pre_ids((size_t)spec.prefill);
  for (size_t k = 0; k < n; ++k) {
    size_t i = k % (size_t)spec.prefill, idx = order[k];
    Request r = reqs[idx];
    r.id = (int64_t)pre[i].size();
    r.output_tokens = 1;
    pre[i].push_back(r);
    pre_ids[i].push_back(idx);
    prefill_of[idx] = (int64_t)i;
  }
  for (size_t i = 0; i < pre.size(); ++i) {
    if (pre[i].empty()) continue;
    SimResult s = simulate(pre[i], run.engine, *setup.model, opt);
    for (size_t j = 0; j < pre[i].size(); ++j) {
      RequestRecord rec = s.requests[j];
      rec.id = (int64_t)pre_ids[i][j];
      rec.output_tokens = reqs[pre_ids[i][j]].output_tokens;
      out.requests[pre_ids[i][j]] = rec;
    }
    add_steps(out, s);
  }

  // 2. KV transfers in the order prefills end; decode replicas round-robin in that order.
  std::vector<size_t> ready(n);
  std::iota(ready.begin(), ready.end(), 0);
  std::stable_sort(ready.begin(), ready.end(), [&](size_t a, size_t b) {
    return out.requests[a].first_token_s < out.requests[b].first_token_s;
  });
  const double kv_per_token = setup.model->memory().kv_bytes_per_token;
  std::vector<double> link_free((size_t)spec.prefill, 0);
  std::vector<std::vector<Request>> dec((size_t)spec.decode);
  std::vector<std::vector<size_t>> dec_ids((size_t)spec.decode);
  std::vector<Handoff> handoff((size_t)spec.decode);
  DisaggStats st{spec.prefill, spec.decode, spec.gpus_per_replica, 0, 0, 0, 0, 0};
  for (size_t m = 0; m < n; ++m) {
    size_t idx = ready[m], d = m % (size_t)spec.decode;
    RequestRecord& rec = out.requests[idx];
    if (reqs[idx].output_tokens < 2) continue;  // its one token came from the prefill
    auto p = (size_t)prefill_of[idx];
    double bytes = (double)reqs[idx].input_tokens * kv_per_token;
    bool near = same_node(spec, (int64_t)p, (int64_t)d);
    double start = std::max(rec.first_token_s, link_free[p]);
    double end = start + spec.transfer_s(bytes, near);
    link_free[p] = end;
    double ms = (end - rec.first_token_s) * 1e3;
    st.transfers += 1;
    st.cross_node_transfers += near ? 0 : 1;
    st.transfer_ms_mean += ms;
    st.transfer_ms_max = std::max(st.transfer_ms_max, ms);
    st.kv_MB_mean += bytes / 1e6;
    rec.first_token_s = rec.finish_s = end;
    Request r = reqs[idx];
    r.id = (int64_t)dec[d].size();
    r.arrival_s = end;
    dec[d].push_back(r);
    dec_ids[d].push_back(idx);
    handoff[d].first_token_s.push_back(end);
  }

  if (st.transfers > 0) {
    st.transfer_ms_mean /= (double)st.transfers;
    st.kv_MB_mean /= (double)st.transfers;
  }

  // 3. Decode replicas from the KV's arrival.
  double kv_mean = 0;
  int64_t pools = 0;
  for (size_t d = 0; d < dec.size(); ++d) {
    if (dec[d].empty()) continue;
    SimResult s = simulate(dec[d], run.engine, *setup.model, opt, handoff[d]);
    for (size_t j = 0; j < dec[d].size(); ++j) {
      RequestRecord& rec = out.requests[dec_ids[d][j]];
      rec.finish_s = s.requests[j].finish_s;
      rec.max_itl_s = s.requests[j].max_itl_s;
      rec.preemptions += s.requests[j].preemptions;
    }
    out.itl_gaps.insert(out.itl_gaps.end(), s.itl_gaps.begin(), s.itl_gaps.end());
    out.kv_used_max = std::max(out.kv_used_max, s.kv_used_max);
    kv_mean += s.kv_used_mean;
    ++pools;
    add_steps(out, s);
  }
  out.kv_used_mean = pools > 0 ? kv_mean / (double)pools : 0;
  double first = 1e300, last = 0;
  for (const RequestRecord& r : out.requests) {
    first = std::min(first, r.arrival_s);
    last = std::max(last, r.finish_s);
  }
  out.duration_s = last - first;
  run.report = make_report(out, setup.gpus(), setup.slo, 0);
  run.disaggregated = st;
  return run;
}

}  // namespace ridgeline
