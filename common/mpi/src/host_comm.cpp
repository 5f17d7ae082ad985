#include "common/mpi/host_comm.hpp"

#include <unistd.h>

#include <climits>
#include <cstddef>
#include <fstream>
#include <map>

#include "common/mpi/strings.hpp"

namespace meshbench::mpi {

std::string this_host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

std::string this_host_id() {
  std::string boot_id;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot_id;
  return boot_id.empty() ? this_host_name() : this_host_name() + " " + boot_id;
}

std::vector<int> host_colors(const std::vector<std::string>& hosts) {
  std::map<std::string, int> first;
  std::vector<int> colors;
  colors.reserve(hosts.size());
  for (std::size_t i = 0; i < hosts.size(); ++i) colors.push_back(first.try_emplace(hosts[i], static_cast<int>(i)).first->second);
  return colors;
}

MPI_Comm split_by_host(MPI_Comm comm) { return split_by_host(comm, this_host_id()); }

MPI_Comm split_by_host(MPI_Comm comm, const std::string& host) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::vector<int> colors = host_colors(allgather_strings(host, comm));
  MPI_Comm same_host = MPI_COMM_NULL;
  MPI_Comm_split(comm, colors[static_cast<std::size_t>(rank)], rank, &same_host);
  return same_host;
}

}  // namespace meshbench::mpi
