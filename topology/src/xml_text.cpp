#include "topology/src/xml_text.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

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

// The offset of the first byte that does not belong to a well-formed UTF-8 sequence (overlong
// forms, surrogates and code points past U+10FFFF included), or npos.
std::size_t first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
    if (c < 0x80) {
      length = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if (b < (k == 1 ? low : 0x80) || b > (k == 1 ? high : 0xBF)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}
}  // namespace

std::string read_text_file(const std::string& path, const std::string& option) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError("topology file '" + path + "' is a directory; give " + option + " an XML file");
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

void check_utf8(const std::string& text, const std::string& name) {
  // Every name in the file ends up in JSON (topo --format json, the results and plan files),
  // which holds only UTF-8; an XML file without an encoding declaration is UTF-8 by definition.
  // A declaration of another encoding is refused too: the bytes are read as UTF-8 regardless,
  // and libxml2 (under hwloc) leaks on encodings it does not know (found by fuzzing).
  if (text.rfind("<?xml", 0) == 0) {
    const std::string_view declaration = std::string_view(text).substr(0, text.find("?>"));
    if (const auto at = declaration.find("encoding="); at != std::string_view::npos && at + 10 < declaration.size()) {
      const char quote = declaration[at + 9];
      std::string encoding(declaration.substr(at + 10, declaration.find(quote, at + 10) - (at + 10)));
      for (char& c : encoding) {
        const auto u = static_cast<unsigned char>(c);
        c = u < 0x20 || u >= 0x7F ? '?' : static_cast<char>(std::tolower(u));  // the message stays one printable line
      }
      if (encoding != "utf-8" && encoding != "utf8" && encoding != "us-ascii" && encoding != "ascii") {
        throw InputError("'" + name + "' declares encoding '" + encoding.substr(0, 40) + "'; save the topology file as UTF-8");
      }
    }
  }
  const std::size_t bad = first_invalid_utf8(text);
  if (bad == std::string_view::npos) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
  throw InputError("'" + name + "' is not UTF-8 text (byte " + byte + " at " + line_and_column(text, static_cast<std::ptrdiff_t>(bad)) +
                   "); save the topology file as UTF-8");
}

XmlFormat detect_xml_format(const std::string& text, const std::string& name) {
  check_utf8(text, name);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(text.c_str());
  if (!parsed) throw InputError(xml_error_message(name, text, parsed));
  const std::string root = doc.document_element().name();
  if (root == "system") return XmlFormat::nccl;
  if (root == "topology") return XmlFormat::hwloc;
  throw InputError("'" + name + "' is neither an NCCL topology XML (root <system>) nor an hwloc XML (root <topology>); its root is <" +
                   root + ">");
}

}  // namespace meshbench::topology
