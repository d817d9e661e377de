// Op parsing; see op_parse.h.
#include "workloads/op_parse.h"

#include "common/errors.h"
#include "common/json_reader.h"
#include "workloads/op_parse_rules.h"

namespace ridgeline {

namespace {

// JsonReader with the one read the rules need beyond its own: the op's id as text.
class OpJsonReader : public JsonReader {
 public:
  using JsonReader::JsonReader;
  std::string op_id(const std::string& key) {
    const auto& id = raw(key);
    if (id.is_string()) return id.get<std::string>();
    if (id.is_number_integer()) return std::to_string(id.get<long long>());
    fail(key, "expected a string or an integer, got " + describe_json(id));
  }
};

}  // namespace

Op parse_op(const nlohmann::json& object, const std::string& label,
            const std::string& fallback_id) {
  OpJsonReader r(object, label);
  return op_rules::read_op(r, fallback_id);
}

}  // namespace ridgeline
