#include "results/src/gpu_tables.hpp"

#include <string>

namespace meshbench::results::tables {

h5::Compound<GpuHealthH5> gpu_health_type() {
  using R = GpuHealthH5;
  auto t = point_compound<R>();
  t.add("round", &R::round)
      .add("attempt", &R::attempt)
      .add("host", &R::host)
      .add("rank", &R::rank)
      .add("gpu", &R::gpu)
      .add("bus_id", &R::bus_id)
      .add("readings", &R::readings)
      .add("temperature_max_c", &R::temperature_max_c)
      .add("power_max_w", &R::power_max_w)
      .add("sm_clock_min_mhz", &R::sm_clock_min_mhz)
      .add("sm_clock_max_mhz", &R::sm_clock_max_mhz)
      .add("utilization_mean", &R::utilization_mean)
      .add("throttle", &R::throttle)
      .add("throttle_mask", &R::throttle_mask)
      .add("throttled_readings", &R::throttled_readings)
      .add("ecc_corrected", &R::ecc_corrected)
      .add("ecc_uncorrected", &R::ecc_uncorrected)
      .add("pcie_replays", &R::pcie_replays);
  return t;
}

h5::Compound<HostCopyH5> host_copy_type() {
  using R = HostCopyH5;
  h5::Compound<R> t;
  t.add("host", &R::host)
      .add("rank", &R::rank)
      .add("bus_id", &R::bus_id)
      .add("numa_node", &R::numa_node)
      .add("locality", &R::locality)
      .add("direction", &R::direction)
      .add("bytes", &R::bytes)
      .add("iters", &R::iters)
      .add("gbps_median", &R::gbps_median)
      .add("gbps_max", &R::gbps_max);
  return t;
}

GpuHealthH5 to_h5(const GpuHealthRow& r) {
  return {point_h5(r.point),
          r.round,
          r.attempt,
          r.host.c_str(),
          r.rank,
          r.gpu,
          r.bus_id.c_str(),
          r.readings,
          r.temperature_max_c,
          r.power_max_w,
          r.sm_clock_min_mhz,
          r.sm_clock_max_mhz,
          r.utilization_mean,
          r.throttle.c_str(),
          r.throttle_mask,
          r.throttled_readings,
          r.ecc_corrected,
          r.ecc_uncorrected,
          r.pcie_replays};
}

GpuHealthRow from_h5(const GpuHealthH5& h) {
  return {point_of(h),
          h.round,
          h.attempt,
          str(h.host),
          h.rank,
          h.gpu,
          str(h.bus_id),
          h.readings,
          h.temperature_max_c,
          h.power_max_w,
          h.sm_clock_min_mhz,
          h.sm_clock_max_mhz,
          h.utilization_mean,
          str(h.throttle),
          h.throttle_mask,
          h.throttled_readings,
          h.ecc_corrected,
          h.ecc_uncorrected,
          h.pcie_replays};
}

HostCopyH5 to_h5(const HostCopyRow& r) {
  return {r.host.c_str(),      r.rank,  r.bus_id.c_str(), r.numa_node,   r.locality.c_str(),
          r.direction.c_str(), r.bytes, r.iters,          r.gbps_median, r.gbps_max};
}

HostCopyRow from_h5(const HostCopyH5& h) {
  return {str(h.host), h.rank, str(h.bus_id), h.numa_node, str(h.locality), str(h.direction), h.bytes, h.iters, h.gbps_median, h.gbps_max};
}

}  // namespace meshbench::results::tables
