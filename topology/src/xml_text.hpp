#pragma once
// Reading topology files as text and naming XML errors in one line.
#include <pugixml.hpp>

#include <string>

namespace meshbench::topology {

enum class XmlFormat { nccl, hwloc };

// The whole file; InputError naming the file and `option` when it cannot be read.
std::string read_text_file(const std::string& path, const std::string& option);
// "malformed XML in 'NAME': <what> at line L, column C".
std::string xml_error_message(const std::string& name, const std::string& text, const pugi::xml_parse_result& result);
// InputError naming the first byte that is not UTF-8 (JSON, where the names go, holds only UTF-8).
void check_utf8(const std::string& text, const std::string& name);
// NCCL (<system>) or hwloc (<topology>) by the root element; InputError otherwise, or when not UTF-8.
XmlFormat detect_xml_format(const std::string& text, const std::string& name);

}  // namespace meshbench::topology
