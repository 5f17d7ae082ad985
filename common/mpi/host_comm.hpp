#pragma once
// The ranks of one node: those whose processes run on one host.
//
// A node is identified by its host, as NCCL's host hash identifies it (the host name and the
// kernel's boot id), not by MPI's view of shared memory (MPI_COMM_TYPE_SHARED). On a real
// cluster the two agree. They differ on the link-bound local cluster, where every rank runs in a
// network namespace of its own and Open MPI starts one daemon per rank, so MPI sees each rank as
// a node of its own, while the ranks of one emulated node share a host name (unshare --uts) and,
// as every process of the machine, a boot id: by host they are one node, as NCCL sees them. The
// boot id keeps apart two machines that report one host name, as MPI's view did.
#include <mpi.h>

#include <string>
#include <vector>

namespace meshbench::mpi {

// This process's host name (gethostname); "localhost" when it cannot be read.
std::string this_host_name();
// What tells this process's host from the others, as NCCL's host hash: the host name and the
// kernel's boot id (/proc/sys/kernel/random/boot_id), or the host name alone without one.
std::string this_host_id();

// For each entry of `hosts`, the lowest index holding the same host: {"a","b","a","c","b"} gives
// {0,1,0,3,1}. Equal results mean one host; each result is the index of that host's first entry.
std::vector<int> host_colors(const std::vector<std::string>& hosts);

// The members of `comm` on this process's host (this_host_id), in their order in `comm`.
// Collective over `comm`; the caller frees the result with MPI_Comm_free.
MPI_Comm split_by_host(MPI_Comm comm);
// The same with this member's host given: the members of `comm` that give the same `host`.
MPI_Comm split_by_host(MPI_Comm comm, const std::string& host);

}  // namespace meshbench::mpi
