#include "bench/device_choice.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>

namespace meshbench::bench {

namespace {

std::optional<int> parse_index(std::string_view text) {
  int value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

std::string list_text(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out.empty() ? "none" : out;
}

std::string slot_text(const DeviceRequest& r) {
  return "GPU " + std::to_string(r.slot_index) + (r.slot_pci.empty() ? "" : " (" + normalize_pci(r.slot_pci) + ")");
}

constexpr const char* kLaunchHint =
    "launch so that every rank sees all GPUs of its node (no per-task GPU binding, e.g. srun --gpus-per-node rather than "
    "--gpus-per-task) or unset CUDA_VISIBLE_DEVICES";

}  // namespace

std::string normalize_pci(std::string_view bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  std::string text(bus_id);
  char tail = 0;
  int fields = std::sscanf(text.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail);
  if (fields != 4) {
    function = 0;
    fields = std::sscanf(text.c_str(), "%x:%x:%x%c", &domain, &bus, &device, &tail);
    if (fields != 3) return text;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain & 0xffffU, bus & 0xffU, device & 0xffU, function & 0xfU);
  return buf;
}

std::vector<std::string> split_visible_devices(std::string_view value) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    std::string_view item = value.substr(start, comma - start);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front())) != 0) item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back())) != 0) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

DeviceChoice choose_device(const DeviceRequest& r) {
  DeviceChoice c;
  const int count = static_cast<int>(r.device_pci.size());
  const std::string visible_note = r.visible ? " (CUDA_VISIBLE_DEVICES=" + *r.visible + ")" : "";
  if (count == 0) {
    c.error = "no CUDA device is visible to this rank" + visible_note +
              "; the NCCL backend needs one GPU per rank (use --backend mpi without GPUs)";
    return c;
  }
  if (r.slot_index < 0) {
    c.error = "the rank's slot is not a GPU slot (index " + std::to_string(r.slot_index) + ")";
    return c;
  }

  if (!r.slot_pci.empty()) {
    const std::string want = normalize_pci(r.slot_pci);
    for (int d = 0; d < count; ++d) {
      if (normalize_pci(r.device_pci[static_cast<std::size_t>(d)]) == want) {
        c.ordinal = d;
        c.how = "PCI bus id " + want;
        return c;
      }
    }
    std::vector<std::string> seen;
    for (const auto& p : r.device_pci) seen.push_back(normalize_pci(p));
    c.error = "this rank's slot is " + slot_text(r) + " but CUDA shows it only " + list_text(seen) + visible_note + "; " + kLaunchHint;
    return c;
  }

  if (r.visible) {
    const auto entries = split_visible_devices(*r.visible);
    for (std::size_t i = 0; i < entries.size() && static_cast<int>(i) < count; ++i) {
      const auto index = parse_index(entries[i]);
      if (!index) {
        c.error = "CUDA_VISIBLE_DEVICES=" + *r.visible + " names devices by UUID or MIG id and the topology gives no PCI bus id for " +
                  slot_text(r) + "; list GPU indices or use a live topology";
        return c;
      }
      if (*index == r.slot_index) {
        c.ordinal = static_cast<int>(i);
        c.how = "CUDA_VISIBLE_DEVICES entry " + std::to_string(i) + " (GPU " + std::to_string(r.slot_index) + ")";
        return c;
      }
    }
    c.error = "this rank's slot is " + slot_text(r) + " but CUDA_VISIBLE_DEVICES=" + *r.visible + " does not list it; " + kLaunchHint;
    return c;
  }

  if (r.slot_index >= count) {
    c.error = "this rank's slot is " + slot_text(r) + " but CUDA sees only " + std::to_string(count) + " GPU(s) on this node";
    return c;
  }
  c.ordinal = r.slot_index;
  c.how = "GPU index " + std::to_string(r.slot_index);
  return c;
}

std::string check_node_devices(const std::string& host, const std::vector<RankDevice>& ranks) {
  std::set<std::string> gpus;
  for (const auto& r : ranks) {
    for (const auto& p : r.visible_pci) gpus.insert(normalize_pci(p));
  }
  // Without any GPU, each rank's own error ("no CUDA device ...") says it better.
  if (!gpus.empty() && ranks.size() > gpus.size()) {
    return "node " + host + " runs " + std::to_string(ranks.size()) + " ranks but its ranks see only " + std::to_string(gpus.size()) +
           " GPU(s); the NCCL backend needs one GPU per rank: launch at most " + std::to_string(gpus.size()) +
           " ranks on it, or use --backend mpi";
  }
  const RankDevice* first_error = nullptr;
  for (const auto& r : ranks) {
    if (!r.error.empty() && (first_error == nullptr || r.world_rank < first_error->world_rank)) first_error = &r;
  }
  if (first_error != nullptr) return "rank " + std::to_string(first_error->world_rank) + " on " + host + ": " + first_error->error;

  std::map<std::string, int> owner;
  std::vector<const RankDevice*> sorted;
  for (const auto& r : ranks) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const RankDevice* a, const RankDevice* b) { return a->world_rank < b->world_rank; });
  for (const auto* r : sorted) {
    const std::string gpu = normalize_pci(r->chosen_pci);
    const auto [it, fresh] = owner.emplace(gpu, r->world_rank);
    if (!fresh) {
      return "ranks " + std::to_string(it->second) + " and " + std::to_string(r->world_rank) + " on " + host + " would share GPU " + gpu +
             "; each rank needs a GPU of its own: check that the topology's slots match the launch (one rank per GPU)";
    }
  }
  return "";
}

}  // namespace meshbench::bench
