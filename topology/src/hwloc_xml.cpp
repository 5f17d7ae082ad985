// hwloc XML files, read through the hwloc library (hwloc_topology_set_xml), and the
// dispatcher that tells them from NCCL topology XML by content.
#include <filesystem>

#include "common/error.hpp"
#include "topology/loaders.hpp"
#include "topology/src/hwloc_reader.hpp"
#include "topology/src/xml_text.hpp"

namespace meshbench::topology {

namespace {

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

Machine hwloc_machine_from_file(const std::string& path, const std::string& text) {
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
  if (detect_xml_format(text, path) != XmlFormat::hwloc) throw InputError("'" + path + "' is not an hwloc XML (its root element is not <topology>)");
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
