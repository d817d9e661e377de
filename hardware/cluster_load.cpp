// Loading a cluster description (see cluster_spec.h): a preset under hardware/clusters/ (built
// into the binary) or a path. The cluster names its GPU; the GPU's architecture picks the
// collective model's defaults (hardware/collectives/<architecture>.json, validated on their
// own); the cluster file's optional "collective_model" object overrides some of them. Errors
// name the file and JSON path at fault, as the GPU loader's do.
#include "common/errors.h"
#include "common/json_reader.h"
#include "common/name_table.h"
#include "common/presets.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_load.h"
#include "hardware/gpu_parse.h"

#include <cstdio>

namespace ridgeline {

namespace {

constexpr std::string_view kClusterDir = "hardware/clusters/";
constexpr std::string_view kDefaultsDir = "hardware/collectives/";

const NameTable<ScaleUpKind>& scale_up_kinds() {
  static const NameTable<ScaleUpKind> t = {{ScaleUpKind::NvSwitch, "nvswitch"},
                                           {ScaleUpKind::Pcie, "pcie"},
                                           {ScaleUpKind::None, "none"}};
  return t;
}

void read_collective_model(JsonReader& r, CollectiveModelParams& p) {
  visit_collective_fields(
      p, [&](const std::string& path, Fact& f, FieldRule rule) { read_fact(r, path, rule, f); });
  p.nvls_enabled = r.boolean("nvls_enabled");
}

// The architecture's complete "collective_model" object, checked on its own so that any later
// error is the cluster file's.
nlohmann::json default_collective_model(const std::string& arch, const std::string& label) {
  const EmbeddedFile* f = find_preset(kDefaultsDir, arch);
  if (!f) {
    throw InputError(located(label, "/gpu: no collective-model defaults for architecture \"" +
                                        arch +
                                        "\"; known: " + joined_names(preset_names(kDefaultsDir))));
  }
  std::string defaults_label(f->path);
  nlohmann::json doc = parse_json_text(std::string(f->text), defaults_label);
  JsonReader r(doc, defaults_label);
  r.string("architecture");
  r.string("about");
  CollectiveModelParams p;
  read_collective_model(r.child("collective_model"), p);
  r.finish();
  return doc["collective_model"];
}

void read_scale_up(JsonReader& r, ScaleUpSpec& s) {
  s.kind = *scale_up_kinds().parse(r.one_of("kind", scale_up_kinds().names()));
  read_fact(r, "nvlink_generation", FieldRule::NonNegative, s.nvlink_generation);
  read_fact(r, "links_per_gpu", FieldRule::NonNegative, s.links_per_gpu);
  read_fact(r, "link_GBps_per_direction", FieldRule::NonNegative, s.link_GBps_per_direction);
  read_fact(r, "domain_gpus", FieldRule::PositiveInteger, s.domain_gpus);
  read_fact(r, "pcie_GBps_per_direction", FieldRule::Positive, s.pcie_GBps_per_direction);
  s.nvls_available = r.boolean("nvls_available");
}

void read_scale_out(JsonReader& r, ScaleOutSpec& s) {
  read_fact(r, "nics_per_node", FieldRule::NonNegative, s.nics_per_node);
  read_fact(r, "nic_Gbps", FieldRule::NonNegative, s.nic_Gbps);
  read_fact(r, "latency_us", FieldRule::NonNegative, s.latency_us);
  s.rail_optimized = r.boolean("rail_optimized");
}

// Figures that tie together, each checked against the others.
void check_cluster(JsonReader& r, const ClusterSpec& c) {
  const ScaleUpSpec& u = c.scale_up;
  const CollectiveModelParams& m = c.collective;
  double nvlink_GBps = u.links_per_gpu.value * u.link_GBps_per_direction.value;
  if (u.kind == ScaleUpKind::None && c.gpus_per_node.value != 1)
    r.fail_at("scale_up/kind", "\"none\" needs gpus_per_node 1");
  if (u.domain_gpus.value > c.gpus_per_node.value)
    r.fail_at("scale_up/domain_gpus/value", "larger than gpus_per_node");
  if (u.kind == ScaleUpKind::NvSwitch && nvlink_GBps <= 0)
    r.fail_at("scale_up/links_per_gpu/value", "an NVSwitch fabric needs NVLink links and GB/s");
  if (u.kind == ScaleUpKind::NvSwitch && u.domain_gpus.value != c.gpus_per_node.value)
    r.fail_at("scale_up/domain_gpus/value", "an NVSwitch joins every GPU of the node");
  if (u.nvls_available && u.kind != ScaleUpKind::NvSwitch)
    r.fail_at("scale_up/nvls_available", "NVLink SHARP needs an NVSwitch fabric");
  if (m.nvls_enabled && !u.nvls_available)
    r.fail_at("collective_model/nvls_enabled", "true, but the fabric has no NVLink SHARP");
  double ring_GBps = m.ring_channels.value * m.channel_GBps.value;
  if (nvlink_GBps > 0 && ring_GBps > nvlink_GBps * 1.001) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%g channels x %g GB/s = %g GB/s exceeds the GPU's NVLink (%g links x %g GB/s "
                  "= %g GB/s)",
                  m.ring_channels.value, m.channel_GBps.value, ring_GBps, u.links_per_gpu.value,
                  u.link_GBps_per_direction.value, nvlink_GBps);
    r.fail_at("collective_model/channel_GBps/value", buf);
  }
  if (m.hierarchical_overlap.value > 1)
    r.fail_at("collective_model/hierarchical_overlap/value", "must be between 0 and 1");
  if (c.max_nodes.value > 1 &&
      (c.scale_out.nics_per_node.value <= 0 || c.scale_out.nic_Gbps.value <= 0))
    r.fail_at("scale_out/nics_per_node/value", "several nodes need NICs with a line rate");
}

}  // namespace

const NameTable<CollectiveProtocol>& collective_protocols() {
  static const NameTable<CollectiveProtocol> t = {{CollectiveProtocol::Ll, "ll"},
                                                  {CollectiveProtocol::Ll128, "ll128"},
                                                  {CollectiveProtocol::Simple, "simple"}};
  return t;
}

const char* protocol_name(CollectiveProtocol p) {
  return collective_protocols().name(p);
}

const char* scale_up_kind_name(ScaleUpKind k) {
  return scale_up_kinds().name(k);
}

std::vector<std::string> cluster_names() {
  return preset_names(kClusterDir);
}

ClusterSpec load_cluster_text(const std::string& text, const std::string& label) {
  nlohmann::json doc = parse_json_text(text, label);
  if (!doc.is_object()) throw InputError(located(label, "/: expected an object"));
  if (!doc.contains("gpu") || !doc["gpu"].is_string())
    throw InputError(located(label, "/gpu: missing; expected a GPU preset name or path"));
  GpuSpec gpu = load_gpu(doc["gpu"].get<std::string>(), {}, "none");
  nlohmann::json model = default_collective_model(gpu.architecture, label);
  if (doc.contains("collective_model"))
    merge_strict(model, doc["collective_model"], label, "/collective_model");
  doc["collective_model"] = model;
  JsonReader r(doc, label);
  ClusterSpec c;
  c.file = label;
  c.name = r.string("name");
  if (c.name.empty()) r.fail("name", "must not be empty");
  c.full_name = r.string("full_name");
  c.gpu = r.string("gpu");
  c.architecture = gpu.architecture;
  read_fact(r, "gpus_per_node", FieldRule::PositiveInteger, c.gpus_per_node);
  read_fact(r, "max_nodes", FieldRule::PositiveInteger, c.max_nodes);
  read_scale_up(r.child("scale_up"), c.scale_up);
  read_scale_out(r.child("scale_out"), c.scale_out);
  read_collective_model(r.child("collective_model"), c.collective);
  r.finish();
  check_cluster(r, c);
  return c;
}

nlohmann::json cluster_document(const std::string& name_or_path) {
  if (looks_like_path(name_or_path)) return read_json_file(name_or_path);
  load_cluster(name_or_path);  // an unknown name is the flag's error
  const EmbeddedFile* f = find_preset(kClusterDir, name_or_path);
  return parse_json_text(std::string(f->text), std::string(f->path));
}

ClusterSpec load_cluster(const std::string& name_or_path) {
  if (!looks_like_path(name_or_path)) {
    const EmbeddedFile* f = find_preset(kClusterDir, name_or_path);
    if (!f) {
      throw InputError(located("--cluster", "unknown cluster \"" + name_or_path +
                                                "\"; presets: " + joined_names(cluster_names()) +
                                                " (or give a path to a .json file)"));
    }
    return load_cluster_text(std::string(f->text), std::string(f->path));
  }
  nlohmann::json probe = read_json_file(name_or_path);
  return load_cluster_text(probe.dump(), name_or_path);
}

}  // namespace ridgeline
