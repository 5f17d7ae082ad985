#pragma once
// The report's tables, built once for the text and Markdown writers.
#include <string>
#include <vector>

#include "analysis/report/report.hpp"
#include "analysis/report/text_table.hpp"

namespace meshbench::analysis::detail {

struct TitledTable {
  std::string title;
  Table table;
};

// Places in meshbench's dimension and op orders (unknown names last), and a mapping's rank (a
// large number when unranked): the orders every table and chart sorts by.
int dim_order(const std::string& dim);
int op_order(const std::string& op);
int rank_of(const Report& report, const std::string& mapping);

// "#1" .. for a mapping by its rank (the busbw tables' columns), "" when unranked.
std::string rank_label(const Report& report, const std::string& mapping);

std::string run_line(const Report& report);
std::string layout_line(const Report& report);
std::string ranking_title(const Report& report);
Table ranking_table(const Report& report);
// Per op of the best mapping's step: size, calls, time per call, per step, where it came from.
Table step_breakdown_table(const Report& report);
// One table per measured (dim, op) in the ranking's timing mode, concurrent: busbw by size,
// one column per mapping in rank order.
std::vector<TitledTable> busbw_tables(const Report& report);
// The dimensions the run did not measure because their groups equal another's.
std::vector<std::string> borrowed_dims_lines(const Report& report);
Table spread_table(const Report& report);
std::vector<std::string> worst_spread_lines(const Report& report, std::size_t count);
std::vector<std::string> slow_host_lines(const Report& report);
Table prediction_table(const PredictionCheck& check);
// The accuracy section (src/accuracy_tables.cpp): one column per predictor; then per dimension;
// then per mapping, predicted by each predictor against measured.
Table accuracy_summary_table(const PredictionAccuracy& accuracy);
Table accuracy_dims_table(const PredictionAccuracy& accuracy);
Table accuracy_mappings_table(const PredictionAccuracy& accuracy);
// "% of expected" (src/expected_tables.cpp): what the expectation is (or the note saying how to
// add the hardware); every point, in rank, dim, op and size order (at most `limit` rows,
// `left_out` says how many more); the points below the threshold, lowest first (at most `limit`).
std::vector<std::string> expected_intro_lines(const Report& report);
Table expected_table(const Report& report, std::size_t limit, std::size_t& left_out);
std::vector<std::string> expected_below_lines(const Report& report, std::size_t limit);
// A place in an order; ties share the mean place ("2.5").
std::string rank_text(double rank);
std::vector<std::string> apply_lines(const ApplyHint& hint);
Table wrong_table(const Report& report);
// run --nccl-debug: per mapping and dimension, the transports NCCL's connections used.
std::vector<std::string> transport_lines(const Report& report);

// Per visit, host and carrying NIC: the bytes counted against the op's bytes off the host
// (at most `limit` rows; `left_out` says how many more there were).
Table nic_traffic_table(const Report& report, std::size_t limit, std::size_t& left_out);
// Every retransmit, drop and error, with the point it happened in.
std::vector<std::string> nic_event_lines(const Report& report);
// run's GPU health (src/gpu_health_tables.cpp): one line per visit measured on a throttling GPU;
// per host its GPUs' health beside its slow-group tally; run --host-copies' bandwidth per slot.
std::vector<std::string> throttled_point_lines(const Report& report);
Table gpu_host_table(const Report& report);
Table host_copy_table(const Report& report);

// µs formatted in the unit that suits `scale` (the largest value shown): us, ms or s.
struct TimeUnit {
  const char* name;
  double divisor;
};
TimeUnit time_unit_for(double scale_us);

}  // namespace meshbench::analysis::detail
