// The calibration file (docs/mapping.md, "Calibration"): JSON, versioned, read strictly — every
// key is required and no other is allowed, so that a typo cannot silently leave a parameter at
// a default.
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "mapping/calibration.hpp"

namespace meshbench::mapping {

namespace {

using nlohmann::json;

json quality_json(const FitQuality& q) {
  return {{"points", q.points},
          {"median_rel_error", q.median_rel_error},
          {"p90_rel_error", q.p90_rel_error},
          {"rms_log_residual", q.rms_log_residual}};
}

json exponent_json(const std::optional<double>& exponent, const FitQuality& q) {
  return {{"exponent", exponent ? json(*exponent) : json(nullptr)}, {"quality", quality_json(q)}};
}

// Reads the file's values at dotted paths ("links[0].segments[1].alpha_us"); any problem is one
// line naming the file and the path.
class CalibrationReader {
 public:
  explicit CalibrationReader(std::string where) : where_(std::move(where)) {}
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    // `path` holds the file's keys, which may hold line breaks (found by fuzzing): one line still.
    throw InputError(
        one_line("calibration " + where_ + ": '" + path + "' " + what + "; re-run meshbench calibrate (format: docs/mapping.md)"));
  }
  // An object with exactly these keys, and any of the `optional` ones.
  const json& object(const json& j, const std::string& path, std::initializer_list<const char*> keys,
                     std::initializer_list<const char*> optional = {}) const {
    if (!j.is_object()) fail(path.empty() ? "(the file)" : path, "must be a JSON object");
    for (const auto& [key, value] : j.items()) {
      bool known = false;
      for (const char* k : keys) known |= key == k;
      for (const char* k : optional) known |= key == k;
      if (!known) {
        std::string list;
        for (const char* k : keys) list += std::string(list.empty() ? "" : ", ") + k;
        for (const char* k : optional) list += std::string(list.empty() ? "" : ", ") + k;
        fail(join(path, key), "is not a calibration key (use " + list + ")");
      }
    }
    for (const char* k : keys) {
      if (!j.contains(k)) fail(join(path, k), "is missing");
    }
    return j;
  }
  double number(const json& j, const std::string& path, double min, bool above = false) const {
    if (!j.is_number()) fail(path, "must be a number");
    const double v = j.get<double>();
    if (!std::isfinite(v) || v < min || (above && v <= min))
      fail(path, std::string("must be a finite number ") + (above ? "above " : ">= ") + json(min).dump());
    return v;
  }
  // Parsed text holds non-negative integers as unsigned, a document built in memory as signed.
  std::uint64_t unsigned_integer(const json& j, const std::string& path) const {
    if (!j.is_number_integer() || (!j.is_number_unsigned() && j.get<std::int64_t>() < 0)) fail(path, "must be an integer >= 0");
    return j.get<std::uint64_t>();
  }
  int count(const json& j, const std::string& path) const {
    if (unsigned_integer(j, path) > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) fail(path, "must be an integer >= 0");
    return j.get<int>();
  }
  std::string text(const json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "must be a string");
    return j.get<std::string>();
  }
  const json& array(const json& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "must be a list");
    return j;
  }
  static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
  static std::string at(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

 private:
  std::string where_;
};

FitQuality read_quality(const CalibrationReader& r, const json& j, const std::string& path) {
  r.object(j, path, {"points", "median_rel_error", "p90_rel_error", "rms_log_residual"});
  return {r.count(j["points"], path + ".points"), r.number(j["median_rel_error"], path + ".median_rel_error", 0),
          r.number(j["p90_rel_error"], path + ".p90_rel_error", 0), r.number(j["rms_log_residual"], path + ".rms_log_residual", 0)};
}

std::optional<double> read_exponent(const CalibrationReader& r, const json& j, const std::string& path, FitQuality& quality) {
  r.object(j, path, {"exponent", "quality"});
  quality = read_quality(r, j["quality"], path + ".quality");
  if (j["exponent"].is_null()) return std::nullopt;
  return r.number(j["exponent"], path + ".exponent", 0);
}

LinkFit read_link(const CalibrationReader& r, const json& j, const std::string& path) {
  // line_gbps came later within version 1: a file without it fits one line rate per class.
  r.object(j, path, {"link", "family", "segments"}, {"line_gbps"});
  LinkFit fit;
  if (j.contains("line_gbps")) fit.line_gbps = r.number(j["line_gbps"], path + ".line_gbps", 0);
  const std::string link = r.text(j["link"], path + ".link");
  const auto c = topology::parse_link_class(link);
  if (!c) r.fail(path + ".link", "names no link class: '" + link + "' (use LOC NVL NVB PIX PXB PHB SYS NET)");
  fit.link = *c;
  const std::string family = r.text(j["family"], path + ".family");
  const auto f = ops::parse_family(family);
  if (!f) r.fail(path + ".family", "names no op family: '" + family + "' (use ring_all_reduce ring_gather all_to_all point_to_point)");
  fit.family = *f;
  const json& segments = r.array(j["segments"], path + ".segments");
  if (segments.empty()) r.fail(path + ".segments", "must hold at least one segment");
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string p = CalibrationReader::at(path + ".segments", i);
    const json& s = r.object(segments[i], p, {"min_bytes", "alpha_us", "bandwidth_gbps", "quality"});
    SizeSegment seg{r.unsigned_integer(s["min_bytes"], p + ".min_bytes"), r.number(s["alpha_us"], p + ".alpha_us", 0),
                    r.number(s["bandwidth_gbps"], p + ".bandwidth_gbps", 0, true), read_quality(r, s["quality"], p + ".quality")};
    if (i == 0 && seg.min_bytes != 0) r.fail(p + ".min_bytes", "must be 0 (the first segment starts at 0 bytes)");
    if (i > 0 && seg.min_bytes <= fit.segments.back().min_bytes) r.fail(p + ".min_bytes", "must be above the previous segment's");
    fit.segments.push_back(seg);
  }
  return fit;
}

Calibration read_calibration(const json& j, const std::string& where) {
  const CalibrationReader r(where);
  if (!j.is_object() || !j.contains("calibration_version")) r.fail("calibration_version", "is missing (not a calibration file)");
  const json& v = j["calibration_version"];
  if (!v.is_number_integer()) r.fail("calibration_version", "must be an integer");
  if (v.get<std::int64_t>() != kCalibrationVersion) {
    throw InputError("calibration " + where + " has calibration_version " + v.dump() + "; this meshbench reads version " +
                     std::to_string(kCalibrationVersion) + "; re-run meshbench calibrate");
  }
  r.object(j, "", {"calibration_version", "topology", "versions", "sources", "created_at", "links", "sharing"});
  Calibration c;
  const json& topo = r.object(j["topology"], "topology", {"digest", "summary"});
  c.topology_digest = r.text(topo["digest"], "topology.digest");
  if (c.topology_digest.size() != 16 || c.topology_digest.find_first_not_of("0123456789abcdef") != std::string::npos)
    r.fail("topology.digest", "must be 16 lower-case hex digits");
  c.topology_summary = r.text(topo["summary"], "topology.summary");
  if (!j["versions"].is_object()) r.fail("versions", "must be an object of names to version strings");
  for (const auto& [name, version] : j["versions"].items()) c.versions[name] = r.text(version, "versions." + name);
  const json& sources = r.array(j["sources"], "sources");
  for (std::size_t i = 0; i < sources.size(); ++i) c.sources.push_back(r.text(sources[i], CalibrationReader::at("sources", i)));
  c.created_at = r.text(j["created_at"], "created_at");
  const json& links = r.array(j["links"], "links");
  std::set<std::pair<topology::LinkClass, ops::Family>> seen;
  for (std::size_t i = 0; i < links.size(); ++i) {
    c.links.push_back(read_link(r, links[i], CalibrationReader::at("links", i)));
    if (!seen.insert({c.links.back().link, c.links.back().family}).second)
      r.fail(CalibrationReader::at("links", i), "fits " + std::string(topology::to_string(c.links.back().link)) + " " +
                                                    std::string(ops::to_string(c.links.back().family)) + " a second time");
  }
  const json& sharing = r.object(j["sharing"], "sharing", {"nic", "uplink"});
  c.sharing.nic_exponent = read_exponent(r, sharing["nic"], "sharing.nic", c.sharing.nic_quality);
  c.sharing.uplink_exponent = read_exponent(r, sharing["uplink"], "sharing.uplink", c.sharing.uplink_quality);
  return c;
}

}  // namespace

json to_json(const Calibration& c) {
  json links = json::array();
  for (const auto& fit : c.links) {
    json segments = json::array();
    for (const auto& s : fit.segments) {
      segments.push_back({{"min_bytes", s.min_bytes},
                          {"alpha_us", s.alpha_us},
                          {"bandwidth_gbps", s.bandwidth_gbps},
                          {"quality", quality_json(s.quality)}});
    }
    links.push_back({{"link", std::string(topology::to_string(fit.link))},
                     {"family", std::string(ops::to_string(fit.family))},
                     {"segments", segments}});
    if (fit.line_gbps > 0) links.back()["line_gbps"] = fit.line_gbps;
  }
  return {{"calibration_version", c.version},
          {"topology", {{"digest", c.topology_digest}, {"summary", c.topology_summary}}},
          {"versions", c.versions},
          {"sources", c.sources},
          {"created_at", c.created_at},
          {"links", links},
          {"sharing",
           {{"nic", exponent_json(c.sharing.nic_exponent, c.sharing.nic_quality)},
            {"uplink", exponent_json(c.sharing.uplink_exponent, c.sharing.uplink_quality)}}}};
}

Calibration calibration_from_json(const json& json, const std::string& where) { return read_calibration(json, where); }

bool is_calibration_json(const json& json) { return json.is_object() && json.contains("calibration_version"); }

}  // namespace meshbench::mapping
