#pragma once
// Reading the counters of this host's NICs, as plain files: what a point moved through each
// NIC, and whether it was retransmitted or dropped (docs/run.md, "NIC counters").
//
// Where they come from, under a root folder ("/" on a live host, a canned tree in tests):
//  - RDMA devices (EFA, InfiniBand): sys/class/infiniband/DEV/ports/PORT/hw_counters/* (EFA's
//    names are the results file's: tx_bytes, rx_drops, retrans_pkts, ...) and .../counters/*
//    (InfiniBand's port counters; port_xmit_data and port_rcv_data count 4-byte words).
//  - Ethernet interfaces: proc/net/dev, the kernel's table of every interface of the reading
//    process's network namespace. Not sys/class/net: sysfs lists the interfaces of the namespace
//    that mounted it, so a process that only entered a namespace (nsenter --net, as the local
//    test cluster's nodes do) would read another namespace's eth0 there. The loopback is skipped.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "results/records.hpp"

namespace meshbench::bench {

// One NIC's counters at one moment; -1 where it has no such counter.
struct NicReading {
  std::string nic;   // "eth0", or an RDMA device and port: "efa_0:1"
  std::string kind;  // ethernet | rdma
  results::NicCounterValues values{};
};

// proc/net/dev's text: one reading per interface but the loopback. InputError on a table that
// is not proc/net/dev's (a header or a row of the wrong shape).
std::vector<NicReading> parse_proc_net_dev(std::string_view text);

// An RDMA port's counter files by name (hw_counters/NAME or counters/NAME, the file's text)
// into one reading. Names it does not know are left out; a file that is not a number is
// InputError naming it.
NicReading parse_rdma_port(const std::string& nic, const std::map<std::string, std::string>& hw_counters,
                           const std::map<std::string, std::string>& counters);

// Every NIC under `root` (RDMA ports first, by name, then Ethernet interfaces in the table's
// order). A root with neither source gives none; InputError when `root` is not a folder.
std::vector<NicReading> read_nic_counters(const std::string& root);

// Per NIC present in both: after − before, per counter (-1 where either lacks it or it went
// backwards); NICs that came or went in between are left out.
std::vector<NicReading> counter_growth(const std::vector<NicReading>& before, const std::vector<NicReading>& after);

// MESHBENCH_TEST_COUNTER_ROOTS ("a,b,c"): the roots a host's readings take in turn, the last one
// repeated (tests drive the counters from canned trees without timing); empty when unset.
std::vector<std::string> parse_test_counter_roots(const char* text);

}  // namespace meshbench::bench
