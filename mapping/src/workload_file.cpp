// The one loader of workload files: tells the formats apart and hands each to its reader, so
// that plan, run, report and `meshbench workload` accept the same files.
#include "mapping/workload_file.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "json_file.hpp"
#include "workload_formats.hpp"

namespace meshbench::mapping {

namespace {

using nlohmann::json;

enum class Format { json_text, yaml_text, megatron_args };

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) throw InputError("cannot read workload file '" + path + "'; check the path");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Format format_of(const std::string& path, const std::string& text) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return Format::json_text;
  if (ext == ".yaml" || ext == ".yml") return Format::yaml_text;
  if (ext == ".sh" || ext == ".bash" || ext == ".args" || ext == ".txt") return Format::megatron_args;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return Format::json_text;
  // Megatron's options are long options of lower-case words ("--num-layers") starting a word.
  for (auto at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
    const bool word_start = at == 0 || std::isspace(static_cast<unsigned char>(text[at - 1])) != 0;
    if (word_start && at + 2 < text.size() && std::islower(static_cast<unsigned char>(text[at + 2])) != 0) return Format::megatron_args;
  }
  return Format::yaml_text;
}

bool is_huggingface(const json& j) { return j.is_object() && (j.contains("model_type") || j.contains("architectures")); }

WorkloadFile read(const std::string& path, bool inside_overlay);

// meshbench's keys with `model: PATH` beside them: that file's model, these training settings.
WorkloadFile read_overlay(const std::string& path, const json& j, bool inside_overlay) {
  const std::string where = "'" + path + "'";
  if (inside_overlay)
    throw InputError("workload overlay " + where + " is named as the model of another overlay; name the model file itself");
  if (!j["model"].is_string() || j["model"].get<std::string>().empty()) {
    throw InputError("workload overlay " + where + ": 'model' must be the path of a config.json, launch script or workload file");
  }
  std::filesystem::path model = j["model"].get<std::string>();
  if (model.is_relative()) model = std::filesystem::path(path).parent_path() / model;
  WorkloadFile f = read(model.string(), true);
  json rest = j;
  rest.erase("model");
  apply_training_keys(f.workload, rest, where);
  f.format += ", with the training settings of " + where;
  return f;
}

WorkloadFile read(const std::string& path, bool inside_overlay) {
  const std::string text = read_text(path);
  const std::string where = "'" + path + "'";
  const Format format = format_of(path, text);
  // A model config or launch script names no model: the folder a config.json sits in (as a
  // model page's files are downloaded) or the script's name does.
  if (format == Format::megatron_args) {
    WorkloadFile f = detail::from_megatron(text, where);
    f.workload.name = std::filesystem::path(path).stem().string();
    return f;
  }
  const json j = format == Format::json_text ? detail::read_json_file(path, "workload") : detail::yaml_to_json(text, where);
  if (is_huggingface(j)) {
    WorkloadFile f = detail::from_huggingface(j, where);
    if (f.workload.name.empty()) f.workload.name = std::filesystem::absolute(path).parent_path().filename().string();
    return f;
  }
  if (j.is_object() && j.contains("model")) return read_overlay(path, j, inside_overlay);
  WorkloadFile f;
  f.format = format == Format::json_text ? "meshbench JSON" : "meshbench YAML";
  if (!j.is_object()) {
    throw InputError("workload " + where + " must be " + (format == Format::json_text ? "a JSON object" : "a YAML mapping") +
                     " of model sizes; see docs/mapping.md");
  }
  detail::apply_workload_keys(f.workload, j, where, false);
  detail::check_model_shape(f.workload, where);
  return f;
}

}  // namespace

WorkloadFile read_workload_file(const std::string& path) {
  try {
    return read(path, false);
  } catch (const InputError& e) {
    throw InputError(one_line(e.what()));
  }
}

Workload load_workload(const std::string& path) { return read_workload_file(path).workload; }

void apply_training_keys(Workload& w, const json& keys, const std::string& where) {
  detail::apply_workload_keys(w, keys, where, true);
  // Micro-batches set over a file that gave a global batch replace it (the global batch would win otherwise).
  if (keys.is_object() && keys.contains("micro_batches") && !keys.contains("global_batch")) w.global_batch = 0;
  detail::check_model_shape(w, where);
}

json read_json_or_yaml_file(const std::string& path, const std::string& what) {
  const std::string text = read_text(path);
  if (format_of(path, text) == Format::json_text) return detail::read_json_file(path, what);
  return detail::yaml_to_json(text, "'" + path + "'");
}

}  // namespace meshbench::mapping
