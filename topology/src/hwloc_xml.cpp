// hwloc XML files, read through the hwloc library (hwloc_topology_set_xml), and the
// dispatcher that tells them from NCCL topology XML by content.
#include <filesystem>

#include "common/crash_guard.hpp"
#include "common/error.hpp"
#include "topology/loaders.hpp"
#include "topology/src/hwloc_reader.hpp"
#include "topology/src/xml_text.hpp"

namespace meshbench::topology {

namespace {

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// hwloc 2.9's XML import trusts the file: an object with a cpuset but no complete_cpuset, or
// with a mangled type or bitmap, makes it dereference a null pointer (found by fuzzing;
// `lstopo -i FILE` crashes the same way). So a child process loads the file first; when the
// child dies, the file is refused instead of taking meshbench down with it. Same input, same
// hwloc: what the child survives, this process does too.
void check_hwloc_survives(const std::string& path) {
  const bool survived = survives_in_child([&path] {
    HwlocTopology t;
    if (hwloc_topology_set_xml(t.get(), path.c_str()) == 0) (void)hwloc_topology_load(t.get());
  });
  if (!survived) {
    throw InputError("hwloc crashed reading '" + path +
                     "': it is not an hwloc 2.x XML export as lstopo writes it; export it again with lstopo --of xml");
  }
}

Machine hwloc_machine_from_file(const std::string& path, const std::string& text) {
  check_hwloc_survives(path);
  HwlocTopology topology;
  if (hwloc_topology_set_xml(topology.get(), path.c_str()) != 0 || hwloc_topology_load(topology.get()) != 0) {
    throw InputError("hwloc could not load '" + path + "' (an hwloc 2.x XML export is expected; HWLOC_XML_VERBOSE=1 says why)");
  }
  Machine m = machine_from_hwloc(topology.get());
  m.name = file_name(path);
  m.source = "hwloc-xml";
  m.raw_xml = text;
  return m;
}

}  // namespace

Machine load_hwloc_xml(const std::string& path) {
  const std::string text = read_text_file(path, "--topology");
  if (detect_xml_format(text, path) != XmlFormat::hwloc)
    throw InputError("'" + path + "' is not an hwloc XML (its root element is not <topology>)");
  return hwloc_machine_from_file(path, text);
}

Machine load_topology_file(const std::string& path) {
  const std::string text = read_text_file(path, "--topology");
  if (detect_xml_format(text, path) == XmlFormat::hwloc) return hwloc_machine_from_file(path, text);
  Machine m = parse_nccl_xml(text, path);
  m.name = file_name(path);
  return m;
}

}  // namespace meshbench::topology
