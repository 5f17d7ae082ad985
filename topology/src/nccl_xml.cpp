// NCCL topology XML (src/graph/xml.h): <system> > <cpu> > <pci> (nested) > <gpu>/<nic>.
// Reads what NCCL_TOPO_DUMP_FILE writes and what AWS ships, including files that give only
// bus ids and the PCI hierarchy (AWS's p5 and g5 files).
#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <string>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "topology/loaders.hpp"
#include "topology/src/nccl_rules.hpp"
#include "topology/src/pci_ids.hpp"
#include "topology/src/xml_text.hpp"

namespace meshbench::topology {

namespace {

std::uint32_t hex_attr(const pugi::xml_node& node, const char* name) {
  const pugi::xml_attribute a = node.attribute(name);
  if (a.empty()) return 0;
  return static_cast<std::uint32_t>(std::stoul(a.value(), nullptr, 16));
}

// An integer attribute within what the hardware can have; InputError otherwise (NCCL reads them
// as int, and a wild lane or link count would overflow the bandwidth arithmetic).
int int_attr(const pugi::xml_node& node, const char* name, int fallback, int low, int high) {
  const pugi::xml_attribute a = node.attribute(name);
  if (a.empty()) return fallback;
  const long long v = a.as_llong(fallback);
  if (v < low || v > high) {
    throw InputError("<" + std::string(node.name()) + " " + name + "=\"" + a.value() + "\"> is outside " + std::to_string(low) + ".." +
                     std::to_string(high));
  }
  return static_cast<int>(v);
}

struct PendingNvLink {
  int gpu;
  std::string target;
  std::string tclass;
  int count;
};

class NcclReader {
 public:
  explicit NcclReader(Machine& m) : m_(m) {}

  void read_cpu(const pugi::xml_node& xml) {
    CpuDomain cpu;
    cpu.numa = int_attr(xml, "numaid", -1, -1, 65535);
    cpu.arch = xml.attribute("arch").value();
    cpu.vendor = xml.attribute("vendor").value();
    cpu.family = xml.attribute("familyid").as_int(-1);
    cpu.model = xml.attribute("modelid").as_int(-1);
    const int index = static_cast<int>(m_.cpus.size());
    m_.cpus.push_back(std::move(cpu));
    for (const pugi::xml_node child : xml.children()) {
      if (std::string_view(child.name()) == "pci") read_pci(child, -1, index);
      if (std::string_view(child.name()) == "nic") read_cpu_nic(child, index);
    }
  }

  void resolve_nvlinks() {
    bool cpu_links = false;
    for (const auto& p : pending_) {
      if (p.tclass.rfind("0x068001", 0) == 0) {  // NVLink to a POWER9 CPU: not a GPU path
        cpu_links = true;
        continue;
      }
      int peer = -1;
      for (std::size_t i = 0; i < m_.pci.size(); ++i) {
        if (m_.pci[i].kind == PciKind::gpu && m_.pci[i].busid == p.target) peer = static_cast<int>(i);
      }
      // A GPU peer that is not in this file (trimmed from the dump) gives no path; NCCL
      // counts any other unresolvable target, or one of NVSwitch class, as the NVSwitch fabric.
      if (peer < 0 && p.tclass.rfind("0x03", 0) == 0) continue;
      m_.nvlinks.push_back({p.gpu, peer, p.count});
    }
    if (cpu_links) m_.notes.emplace_back("NVLinks to CPUs ignored (only GPU-GPU paths are classified)");
  }

 private:
  void read_pci(const pugi::xml_node& xml, int parent, int cpu) {
    PciDevice d;
    d.busid = lower(xml.attribute("busid").value());
    d.parent = parent;
    d.cpu = cpu;
    d.class_id = hex_attr(xml, "class");
    d.vendor = static_cast<std::uint16_t>(hex_attr(xml, "vendor"));
    d.device = static_cast<std::uint16_t>(hex_attr(xml, "device"));
    const pugi::xml_attribute speed = xml.attribute("link_speed");
    const pugi::xml_attribute width = xml.attribute("link_width");  // lanes: x1 .. x32, 0 unknown
    // No speed and no width: NCCL would read sysfs; offline the link stays unknown (0).
    if (!speed.empty() || !width.empty()) d.link_gbps = nccl::pci_link_bw(speed.value(), int_attr(xml, "link_width", 0, 0, 32));

    const pugi::xml_node gpu = xml.child("gpu");
    const pugi::xml_node nic = xml.child("nic");
    const bool has_pci_children = !xml.child("pci").empty();
    const std::uint32_t base = d.class_id >> 16;
    if (!gpu.empty() || (d.class_id != 0 && base == 0x03)) {
      d.kind = PciKind::gpu;
    } else if (!nic.empty() || (d.class_id != 0 && base == 0x02)) {
      d.kind = PciKind::nic;
    } else if (d.class_id == 0x068000) {
      d.kind = PciKind::nvswitch;
    } else if (has_pci_children || pci::is_bridge(d.class_id)) {
      d.kind = PciKind::pci_switch;
    } else {
      d.kind = d.class_id == 0 ? PciKind::unknown : PciKind::other;
    }

    const int index = static_cast<int>(m_.pci.size());
    if (d.kind == PciKind::gpu) read_gpu(gpu, d, index);
    if (d.kind == PciKind::nic) {
      d.nic_kind = pci::nic_kind(d.vendor, d.device, d.class_id);
      if (!nic.empty()) read_ports(nic, d);
    }
    m_.pci.push_back(std::move(d));
    if (m_.pci.back().kind == PciKind::pci_switch) {
      for (const pugi::xml_node child : xml.children("pci")) read_pci(child, index, cpu);
    }
  }

  void read_gpu(const pugi::xml_node& gpu, PciDevice& d, int index) {
    const pci::GpuModel known = pci::gpu_model(d.device);
    d.model = known.name;
    d.sm = known.sm;
    if (gpu.empty()) return;
    d.gpu_index = int_attr(gpu, "dev", -1, -1, 65535);
    d.sm = int_attr(gpu, "sm", d.sm, 0, 10000);
    for (const pugi::xml_node link : gpu.children("nvlink")) {
      pending_.push_back(
          {index, lower(link.attribute("target").value()), lower(link.attribute("tclass").value()), int_attr(link, "count", 1, 1, 1024)});
    }
  }

  static void read_ports(const pugi::xml_node& nic, PciDevice& d) {
    for (const pugi::xml_node net : nic.children("net")) {
      NetPort port;
      port.name = net.attribute("name").value();
      port.dev = int_attr(net, "dev", -1, -1, 65535);
      const double mbps = net.attribute("speed").as_double(0);
      if (!(mbps < 1e9))
        throw InputError("<net speed=\"" + std::string(net.attribute("speed").value()) + "\"> is not a line rate in Mbit/s");
      port.speed_gbps = mbps > 0 ? nccl::net_bw_from_mbps(mbps) : 0;
      d.ports.push_back(std::move(port));
      // Names tell the kind when the PCI ids are missing (NCCL dumps always carry both).
      if (d.nic_kind == NicKind::other || d.nic_kind == NicKind::eth) {
        const std::string& n = d.ports.back().name;
        if (n.rfind("rdmap", 0) == 0 || n.rfind("efa", 0) == 0) d.nic_kind = NicKind::efa;
        if (n.rfind("mlx", 0) == 0 || n.rfind("ib", 0) == 0) d.nic_kind = NicKind::ib;
      }
    }
  }

  // A NIC placed directly in <cpu> (not on PCI): NCCL links it to the CPU at LOC_BW.
  void read_cpu_nic(const pugi::xml_node& xml, int cpu) {
    PciDevice d;
    d.kind = PciKind::nic;
    d.cpu = cpu;
    d.link_gbps = nccl::kLocBw;
    read_ports(xml, d);
    m_.pci.push_back(std::move(d));
  }

  Machine& m_;
  std::vector<PendingNvLink> pending_;
};

}  // namespace

Machine parse_nccl_xml(const std::string& text, const std::string& name) {
  check_utf8(text, name);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(text.c_str());
  if (!parsed) throw InputError(xml_error_message(name, text, parsed));
  const pugi::xml_node system = doc.document_element();
  if (std::string_view(system.name()) != "system") {
    throw InputError("'" + name + "' is not an NCCL topology XML (its root element is <" + system.name() + ">, not <system>)");
  }
  const std::string version = system.attribute("version").value();
  if (version != "1") {
    throw InputError("'" + name + "' is NCCL topology XML version '" + version +
                     "'; meshbench reads version 1 (as NCCL 2.18-2.30 write it)");
  }
  Machine m;
  m.name = name;
  m.source = "nccl-xml";
  m.raw_xml = text;
  NcclReader reader(m);
  try {
    for (const pugi::xml_node cpu : system.children("cpu")) reader.read_cpu(cpu);
  } catch (const std::logic_error&) {  // std::stoul on a malformed hex attribute
    throw InputError("malformed NCCL topology XML '" + name + "': a class, vendor or device attribute is not hexadecimal");
  } catch (const InputError& e) {  // an attribute out of range: say which file
    throw InputError("malformed NCCL topology XML '" + name + "': " + e.what() +
                     "; fix the file or dump it again with NCCL_TOPO_DUMP_FILE");
  }
  reader.resolve_nvlinks();
  if (m.cpus.empty()) throw InputError("NCCL topology XML '" + name + "' has no <cpu> element; it describes no node");
  return m;
}

}  // namespace meshbench::topology
