#include "topology/src/xml_text.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace meshbench::topology {

namespace {
// pugixml reports a byte offset; people look for lines.
std::string line_and_column(const std::string& text, std::ptrdiff_t offset) {
  int line = 1, column = 1;
  for (std::ptrdiff_t i = 0; i < offset && i < static_cast<std::ptrdiff_t>(text.size()); ++i) {
    if (text[static_cast<std::size_t>(i)] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}
}  // namespace

std::string read_text_file(const std::string& path, const std::string& option) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError("topology file '" + path + "' is a directory; give " + option + " an XML file");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError("cannot read topology file '" + path + "': " + std::strerror(errno) + "; check the path given to " + option);
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string xml_error_message(const std::string& name, const std::string& text, const pugi::xml_parse_result& result) {
  return "malformed XML in '" + name + "': " + result.description() + " at " + line_and_column(text, result.offset) +
         "; give an NCCL topology XML (NCCL_TOPO_DUMP_FILE) or an hwloc XML (lstopo --of xml)";
}

XmlFormat detect_xml_format(const std::string& text, const std::string& name) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(text.c_str());
  if (!parsed) throw InputError(xml_error_message(name, text, parsed));
  const std::string root = doc.document_element().name();
  if (root == "system") return XmlFormat::nccl;
  if (root == "topology") return XmlFormat::hwloc;
  throw InputError("'" + name + "' is neither an NCCL topology XML (root <system>) nor an hwloc XML (root <topology>); its root is <" + root + ">");
}

}  // namespace meshbench::topology
