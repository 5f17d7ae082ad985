// The JSON file nccl-tests -J writes (its src/util.cu, file version 3): run arguments and
// environment, the NCCL version code, "config" with "devices", and "results", one object per
// size with "out_of_place" and "in_place" (time, alg_bw, bus_bw, nwrong).
#include <algorithm>
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "analysis/import/nccl_tests_log.hpp"
#include "analysis/import/src/log_text.hpp"
#include "analysis/import/src/nccl_tests_text.hpp"
#include "common/json_integer.hpp"
#include "common/strings.hpp"
#include "results/environment.hpp"

namespace meshbench::analysis::detail {

namespace {

using nlohmann::json;

int line_of_byte(const std::string& text, std::size_t byte) {
  const auto end = text.begin() + static_cast<long>(std::min(byte, text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), end, '\n'));
}

const json& member(const json& object, const char* key, const std::string& where, const std::string& path) {
  if (!object.is_object() || !object.contains(key))
    refuse(path, 1, where + " has no '" + key + "'; give the JSON file nccl-tests -J wrote");
  return object.at(key);
}

double number(const json& value, const std::string& what, const std::string& path, double most = 1e18) {
  // Bounded so that the casts to counts and sizes that follow stay defined.
  if (value.is_number()) {
    const double v = value.get<double>();
    if (v >= 0 && v <= most) return v;
    refuse(path, 1, what + " is out of range; give the JSON file nccl-tests -J wrote");
  }
  refuse(path, 1, what + " is not a number; give the JSON file nccl-tests -J wrote");
}

constexpr double kMostCount = 1e9;     // iterations, ranks
constexpr double kMostBytes = 0x1p62;  // sizes
}  // namespace

ImportedLog parse_nccl_tests_json(const std::string& text, const std::string& path, const ImportOptions& options) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    refuse(path, line_of_byte(text, e.byte), "not complete JSON (the run that wrote it may have ended early): " + std::string(e.what()));
  } catch (const json::exception& e) {  // a number too large for any type (found by fuzzing)
    refuse(path, 1, "JSON that nccl-tests would not write: " + std::string(e.what()));
  }
  ImportedLog log;
  log.tool = "nccl-tests";
  log.path = path;
  log.runs = 1;
  if (!j.is_object() || !j.contains("results") || !j.contains("config"))
    refuse(path, 1, "JSON without nccl-tests' 'config' and 'results'; give the file nccl-tests -J wrote, or its text output");
  if (const auto args = j.find("args"); args != j.end() && args->is_array()) {
    std::vector<std::string> argv;
    for (const auto& a : *args) {
      if (a.is_string()) argv.push_back(a.get<std::string>());
    }
    log.command_line = join(argv, " ");
    if (!argv.empty()) log.program = argv.front();
  }
  if (const auto env = j.find("env"); env != j.end() && env->is_array()) {
    std::vector<std::string> pairs;
    for (const auto& e : *env) {
      if (e.is_string()) pairs.push_back(e.get<std::string>());
    }
    log.environment = results::recorded_environment(pairs);
  }
  if (const auto v = j.find("nccl_version"); v != j.end()) {
    if (const auto code = json_integer<long>(*v)) log.versions.emplace_back("nccl", nccl_version_of_code(*code));
  }
  if (const auto t = j.find("start_time"); t != j.end() && t->is_string()) {
    std::string s = t->get<std::string>();
    if (s.size() == 19 && s[10] == ' ') s[10] = 'T';  // "%Y-%m-%d %H:%M:%S", the machine's local time
    log.started_at = s;
  }
  const json& config = member(j, "config", "the file", path);
  const int iters = static_cast<int>(number(member(config, "iterations", "config", path), "config.iterations", path, kMostCount));
  int agg = 1;
  if (config.contains("aggregated_iterations"))
    agg = static_cast<int>(number(config.at("aggregated_iterations"), "config.aggregated_iterations", path, kMostCount));
  const int warmup =
      config.contains("warmup_iters") ? static_cast<int>(number(config.at("warmup_iters"), "config.warmup_iters", path, kMostCount)) : 0;
  if (const auto devices = config.find("devices"); devices != config.end() && devices->is_array()) {
    std::vector<std::pair<int, std::pair<std::string, std::string>>> ranks;
    for (const auto& d : *devices) {
      const int rank = static_cast<int>(number(member(d, "rank", "a device", path), "a device's rank", path, kMostCount));
      const auto& host = member(d, "hostname", "a device", path);
      const auto& info = member(d, "device_info", "a device", path);
      ranks.push_back({rank, {host.is_string() ? host.get<std::string>() : "", info.is_string() ? info.get<std::string>() : ""}});
    }
    std::sort(ranks.begin(), ranks.end());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      if (ranks[i].first != static_cast<int>(i))
        refuse(path, 1, "config.devices skips or repeats rank " + std::to_string(i) + "; give the whole file");
      log.hosts.push_back(ranks[i].second.first);
      log.devices.push_back(ranks[i].second.second);
    }
    log.ranks = static_cast<int>(ranks.size());
  }
  if (log.ranks == 0) log.ranks = options.ranks;
  if (log.ranks <= 0) refuse(path, 1, "config.devices is empty, so the file does not say how many ranks ran; give --ranks N");

  std::string op = op_of_nccl_tests_program(log.program);
  if (!log.program.empty() && op.empty())
    refuse(path, 1,
           log.program +
               " measures a collective meshbench does not; import all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf or "
               "sendrecv_perf");
  if (op.empty()) op = options.op;
  if (op.empty())
    refuse(path, 1, "the file's args do not name the binary; give --op all_reduce|all_gather|reduce_scatter|all_to_all|send_recv");

  const json& results = member(j, "results", "the file", path);
  if (!results.is_array() || results.empty()) refuse(path, 1, "'results' holds no rows (did the run fail?); rerun");
  std::string redop;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    const std::string where = "results[" + std::to_string(i) + "]";
    LoggedPoint base;
    base.op = op;
    base.line = 1;
    base.iters = static_cast<int>(std::min<std::int64_t>(std::int64_t{iters} * agg, std::numeric_limits<int>::max()));
    base.warmup = warmup;
    const double size = number(member(r, "size", where, path), where + ".size", path, kMostBytes);
    if (size < 0) refuse(path, 1, where + ".size is negative; give the JSON file nccl-tests -J wrote");
    base.bytes = static_cast<std::uint64_t>(size);
    const auto& type = member(r, "type", where, path);
    base.dtype = type.is_string() ? dtype_of_nccl_type(type.get<std::string>()) : "";
    if (base.dtype.empty()) refuse(path, 1, where + ".type is not one of nccl-tests' types; give the JSON file nccl-tests -J wrote");
    if (const auto o = r.find("redop"); o != r.end() && o->is_string()) {
      if (redop.empty()) redop = o->get<std::string>();
      else if (*o != redop)
        refuse(
            path, 1,
            where + " has a second reduction '" + o->get<std::string>() + "' after '" + redop + "' (nccl-tests -o all); rerun with one -o");
    }
    for (const char* variant : {"out_of_place", "in_place"}) {
      const auto v = r.find(variant);
      if (v == r.end() || v->is_null()) continue;
      LoggedPoint p = base;
      p.timing = std::string(variant) == "out_of_place" ? "batched" : "batched_in_place";
      const std::string at = where + "." + variant;
      const json& time = v->contains("time") ? v->at("time") : member(*v, "cpu_time", at, path);
      p.time_us = number(time, at + ".time", path);
      if (const auto w = v->find("nwrong"); w != v->end() && !w->is_null())
        p.wrong = static_cast<std::int64_t>(number(*w, at + ".nwrong", path));
      if (const auto it = r.find(std::string(variant) + "_per_iter"); it != r.end() && it->is_object()) {
        if (it->contains("min_us")) p.min_us = number(it->at("min_us"), at + "_per_iter.min_us", path);
        if (it->contains("max_us")) p.max_us = number(it->at("max_us"), at + "_per_iter.max_us", path);
        if (it->contains("p99_us")) p.p99_us = number(it->at("p99_us"), at + "_per_iter.p99_us", path);
      }
      log.points.push_back(std::move(p));
    }
  }
  if (log.points.empty()) refuse(path, 1, "'results' holds no timed rows; rerun");
  return log;
}

}  // namespace meshbench::analysis::detail
