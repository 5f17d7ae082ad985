#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "common/error.hpp"
#include "results/reader.hpp"
#include "results/schema.hpp"
#include "results/writer.hpp"
#include "tests/unit/scratch_dir.hpp"
#include "tests/unit/two_cpu_node.hpp"

namespace meshbench::results {
namespace {

namespace fs = std::filesystem;

class ResultsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    topo_ = topology::ClusterTopology::replicate(test_support::two_cpu_node("hostA"), 2);
    header_.run = {
        "0.1.0", "meshbench run --out x.h5", "2026-11-29T10:00:00Z", "", "running", "mpi", 4, {"hostA-0", "hostA-0", "hostA-1", "hostA-1"}};
    header_.provenance.versions = {{"mpi", "Open MPI 4.1.4"}};
    header_.provenance.environment = {{"NCCL_PROTO", "LL128"}};
    header_.layout = {4, 2, 1, 1, 1, 2, 2, 2, "tp-cp-ep-dp-pp", ""};
    header_.mappings = {
        {"identity",
         "order tp-cp-ep-dp-pp",
         0x1234abcdULL,
         {0, 1, 2, 3},
         {{"tp", {{0, 1}, {2, 3}}}, {"dp", {{0, 2}, {1, 3}}}},
         {{"tp", 1.5}, {"step", 9.0}}},
        {"tp-across", "swap", 0x99ULL, {0, 2, 1, 3}, {{"tp", {{0, 1}, {2, 3}}}, {"dp", {{0, 2}, {1, 3}}}}, {{"step", 20.0}}}};
    header_.topology = &topo_;
    header_.topology_json = R"({"nodes":[]})";
  }

  static PointRecord point(const std::string& mapping, std::uint64_t bytes, double median) {
    PointRecord p;
    p.row.point.mapping = mapping;
    p.row.point.dim = "tp";
    p.row.point.op = "all_reduce";
    p.row.backend = "mpi";
    p.row.dtype = "float32";
    p.row.point.bytes = bytes;
    p.row.groups = 2;
    p.row.group_size = 2;
    p.row.iters = 50;
    p.row.point.timing = "per_iteration";
    p.row.point.concurrency = "concurrent";
    p.row.t_median_us = median;
    p.row.busbw_gbps = static_cast<double>(bytes) / median / 1e3;
    p.row.wrong = 0;
    p.groups = {{p.row.point, 0, median, median * 1.1, 1.0}, {p.row.point, 1, median * 2, median * 2.2, 0.5}};
    p.samples = {{p.row.point, 0, median}};
    return p;
  }

  test_support::ScratchDir scratch_{"mb-results"};
  fs::path dir_ = scratch_.path();
  topology::ClusterTopology topo_;
  RunHeader header_;
};

TEST_F(ResultsFileTest, RoundTripsHeaderAndRows) {
  const auto path = (dir_ / "run.h5").string();
  auto w = ResultsWriter::create(path, header_, false);
  w.append(point("identity", 1024, 10.0));
  w.append(point("tp-across", 1024, 40.0));
  w.record_transports({{"identity", "tp", "P2P", 4}, {"tp-across", "tp", "NET/GDRDMA", 4}});
  w.finish("complete", "2026-11-29T10:05:00Z");

  const auto f = ResultsFile::open(path);
  ASSERT_EQ(f.transports().size(), 2U);
  EXPECT_EQ(f.transports()[1].transport, "NET/GDRDMA");
  EXPECT_EQ(f.transports()[1].ranks, 4);
  EXPECT_EQ(f.schema_version(), kSchemaVersion);
  EXPECT_EQ(f.run().status, "complete");
  EXPECT_EQ(f.run().hosts.size(), 4U);
  EXPECT_EQ(f.provenance().environment.at(0).second, "LL128");
  EXPECT_EQ(f.layout().tp, 2);
  EXPECT_EQ(f.layout().order, "tp-cp-ep-dp-pp");
  ASSERT_EQ(f.mappings().size(), 2U);
  EXPECT_EQ(f.mappings()[1].name, "tp-across");
  EXPECT_EQ(f.mappings()[0].digest, 0x1234abcdULL);
  EXPECT_EQ(f.mappings()[1].slot_of_rank, (std::vector<int>{0, 2, 1, 3}));
  ASSERT_EQ(f.measurements().size(), 2U);
  EXPECT_DOUBLE_EQ(f.measurements()[1].t_median_us, 40.0);
  EXPECT_EQ(f.measurements()[0].wrong, 0);
  EXPECT_EQ(f.group_timings().size(), 4U);
  EXPECT_EQ(f.group_timings()[3].group, 1);
  EXPECT_EQ(f.samples().size(), 2U);
  EXPECT_EQ(f.host_of_slot(3), "hostA-1");
  EXPECT_EQ(f.host_of_slot(0), "hostA-0");
  EXPECT_EQ(f.topology_json(), R"({"nodes":[]})");
}

TEST_F(ResultsFileTest, RefusesToOverwriteWithoutForce) {
  const auto path = (dir_ / "run.h5").string();
  ResultsWriter::create(path, header_, false);
  EXPECT_THROW(ResultsWriter::create(path, header_, false), InputError);
  EXPECT_NO_THROW(ResultsWriter::create(path, header_, true));
  EXPECT_THROW(check_output_path((dir_ / "missing" / "x.h5").string(), false, false), InputError);
  EXPECT_THROW(check_output_path((dir_ / "nothere.h5").string(), false, true), InputError);
}

TEST_F(ResultsFileTest, AWholeFileAtOnceReadsLikeOneWrittenAsItWent) {
  const auto path = (dir_ / "whole.h5").string();
  header_.run.status = "complete";
  auto with_rounds = point("identity", 2048, 12.0);
  with_rounds.rounds = {{{"", "identity", "tp", "all_reduce", "per_iteration", "concurrent", 2048}, 0, 11.0},
                        {{"", "identity", "tp", "all_reduce", "per_iteration", "concurrent", 2048}, 1, 13.0}};
  write_results_file(path, header_, {point("identity", 1024, 10.0), with_rounds, point("tp-across", 1024, 40.0)}, false);
  const auto f = ResultsFile::open(path);
  EXPECT_EQ(f.run().status, "complete");
  ASSERT_EQ(f.measurements().size(), 3U);
  EXPECT_DOUBLE_EQ(f.measurements()[2].t_median_us, 40.0);
  EXPECT_EQ(f.round_medians().size(), 2U);
  EXPECT_EQ(f.group_timings().size(), 6U);
  EXPECT_EQ(f.host_of_slot(3), "hostA-1");
  // Nothing but the file itself is left in the folder, and an existing file needs force.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  EXPECT_THROW(write_results_file(path, header_, {}, false), InputError);
  write_results_file(path, header_, {point("tp-across", 1024, 40.0)}, true);
  EXPECT_EQ(ResultsFile::open(path).measurements().size(), 1U);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(ResultsFileTest, ResumeReturnsCompletedPointsAndChecksThePlan) {
  const auto path = (dir_ / "run.h5").string();
  auto w = ResultsWriter::create(path, header_, false);
  w.append(point("identity", 1024, 10.0));
  std::vector<PointKey> done;
  ResultsWriter::resume(path, header_, done);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].mapping, "identity");
  EXPECT_EQ(done[0].bytes, 1024U);
  auto other = header_;
  other.mappings[1].digest = 0x77;
  EXPECT_THROW(ResultsWriter::resume(path, other, done), InputError);
  other = header_;
  other.layout.tp = 4;
  EXPECT_THROW(ResultsWriter::resume(path, other, done), InputError);
}

TEST_F(ResultsFileTest, RoundMediansAndTheRoundCountRoundTrip) {
  const auto path = (dir_ / "rounds.h5").string();
  header_.run.rounds = 3;
  header_.run.order_seed = 42;
  auto w = ResultsWriter::create(path, header_, false);
  auto p = point("identity", 1024, 10.0);
  for (int r = 0; r < 3; ++r) p.rounds.push_back({{"", "identity", "tp", "all_reduce", "per_iteration", "concurrent", 1024}, r, 9.0 + r});
  w.append(p);
  w.append(point("identity", 4096, 20.0));  // a point without rounds adds none
  const auto f = ResultsFile::open(path);
  EXPECT_EQ(f.run().rounds, 3);
  EXPECT_EQ(f.run().order_seed, 42U);
  ASSERT_EQ(f.round_medians().size(), 3U);
  EXPECT_EQ(f.round_medians()[2].round, 2);
  EXPECT_DOUBLE_EQ(f.round_medians()[2].t_median_us, 11.0);
  EXPECT_EQ(f.round_medians()[1].point.bytes, 1024U);
  // Resuming asks for the same number of rounds.
  std::vector<PointKey> done;
  auto other = header_;
  other.run.rounds = 1;
  EXPECT_THROW(ResultsWriter::resume(path, other, done), InputError);
  ResultsWriter::resume(path, header_, done);
  EXPECT_EQ(done.size(), 2U);
}

TEST_F(ResultsFileTest, AFileOfOneRoundHasNoRoundTable) {
  const auto path = (dir_ / "one.h5").string();
  auto w = ResultsWriter::create(path, header_, false);
  w.append(point("identity", 1024, 10.0));
  const auto f = ResultsFile::open(path);
  EXPECT_EQ(f.run().rounds, 1);
  EXPECT_TRUE(f.round_medians().empty());
}

TEST_F(ResultsFileTest, ModelledTimesRoundTripAndAreAbsentWithoutThem) {
  const auto path = (dir_ / "modelled.h5").string();
  auto w = ResultsWriter::create(path, header_, false);
  w.append(point("identity", 1024, 10.0));  // the MPI backend models nothing
  EXPECT_TRUE(ResultsFile::open(path).modelled_times().empty());
  auto p = point("identity", 4096, 20.0);
  p.modelled = ModelledTime{{"", "identity", "tp", "all_reduce", "per_iteration", "concurrent", 4096}, "nccl", 12.5};
  w.append(p);
  const auto f = ResultsFile::open(path);
  ASSERT_EQ(f.modelled_times().size(), 1U);
  EXPECT_EQ(f.modelled_times()[0].point.bytes, 4096U);
  EXPECT_EQ(f.modelled_times()[0].library, "nccl");
  EXPECT_DOUBLE_EQ(f.modelled_times()[0].modelled_us, 12.5);
  EXPECT_EQ(f.measurements().size(), 2U);
}

TEST_F(ResultsFileTest, NicCountersRoundTripEveryColumnAndAreAbsentWithoutThem) {
  const auto path = (dir_ / "nic.h5").string();
  auto w = ResultsWriter::create(path, header_, false);
  w.append(point("identity", 1024, 10.0));  // --no-nic-counters: no rows, no table
  EXPECT_TRUE(ResultsFile::open(path).nic_counters().empty());
  auto p = point("identity", 4096, 20.0);
  NicCounterDelta d{{"", "identity", "tp", "all_reduce", "per_iteration", "concurrent", 4096}, 2, 3, "hostA-1", "efa_0:1", "rdma", 26, {}};
  for (std::size_t i = 0; i < kNicCounterCount; ++i) d.counters[i] = static_cast<std::int64_t>(i * 1000 + 7);
  d.counters[index_of(NicCounter::rdma_write_bytes)] = -1;
  p.readings.nic_counters = {d, d};
  p.readings.nic_counters[1].nic = "eth0";
  p.readings.nic_counters[1].kind = "ethernet";
  w.append(p);
  const auto f = ResultsFile::open(path);
  ASSERT_EQ(f.nic_counters().size(), 2U);
  const auto& r = f.nic_counters()[0];
  EXPECT_EQ(r.point.mapping, "identity");
  EXPECT_EQ(r.point.bytes, 4096U);
  EXPECT_EQ(r.round, 2);
  EXPECT_EQ(r.attempt, 3);
  EXPECT_EQ(r.host, "hostA-1");
  EXPECT_EQ(r.nic, "efa_0:1");
  EXPECT_EQ(r.kind, "rdma");
  EXPECT_EQ(r.ops, 26);
  EXPECT_EQ(r.counters, d.counters);
  EXPECT_EQ(r.get(NicCounter::rdma_write_bytes), -1);
  EXPECT_EQ(f.nic_counters()[1].nic, "eth0");
  EXPECT_GT(bytes_needed_to_store(p, {}), bytes_needed_to_store(point("identity", 4096, 20.0), {}));
}

TEST_F(ResultsFileTest, RefusesUnknownSchemaVersionAndForeignFiles) {
  const auto path = (dir_ / "run.h5").string();
  ResultsWriter::create(path, header_, false);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const std::int64_t v = kSchemaVersion + 1;
    const hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a);
    H5Fclose(f);
  }
  try {
    ResultsFile::open(path);
    FAIL() << "opened a file of another schema version";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version " + std::to_string(kSchemaVersion + 1)), std::string::npos) << e.what();
  }
  const auto foreign = (dir_ / "foreign.h5").string();
  H5Fclose(H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  EXPECT_THROW(ResultsFile::open(foreign), InputError);
  EXPECT_THROW(ResultsFile::open((dir_ / "absent.h5").string()), InputError);
  const auto text = dir_ / "text.h5";
  std::FILE* t = std::fopen(text.c_str(), "w");
  std::fputs("not hdf5", t);
  std::fclose(t);
  EXPECT_THROW(ResultsFile::open(text.string()), InputError);
}

// Another process's hold on a file, as HDF5 takes it: a flock on an open file description of
// its own (HDF5's in this process conflicts with it as with another process's).
class HeldLock {
 public:
  HeldLock(const std::string& path, int operation) : fd_(::open(path.c_str(), O_RDONLY)) {
    if (fd_ < 0 || ::flock(fd_, operation | LOCK_NB) != 0) throw std::runtime_error("could not lock " + path);
  }
  ~HeldLock() { release(); }
  HeldLock(const HeldLock&) = delete;
  HeldLock& operator=(const HeldLock&) = delete;
  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

TEST_F(ResultsFileTest, AReaderThatLetsGoOnlyDelaysTheWriter) {
  const auto path = (dir_ / "run.h5").string();
  auto w = ResultsWriter::create(path, header_, false);
  w.set_lock_patience(std::chrono::minutes(1));
  HeldLock reader(path, LOCK_SH);
  std::atomic<bool> released{false};
  std::jthread lets_go([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    released = true;
    reader.release();
  });
  w.append(point("identity", 1024, 10.0));
  // The append could only have gone through once the lock was gone, and took it as usual.
  EXPECT_TRUE(released.load());
  lets_go.join();
  EXPECT_FALSE(w.wrote_past_a_reader());
  EXPECT_EQ(ResultsFile::open(path).measurements().size(), 1U);
}

TEST_F(ResultsFileTest, AReaderThatKeepsTheFileOpenDoesNotStopTheRun) {
  const auto path = (dir_ / "run.h5").string();
  auto w = ResultsWriter::create(path, header_, false);
  w.set_lock_patience(std::chrono::milliseconds(0));
  {
    HeldLock notebook(path, LOCK_SH);
    w.append(point("identity", 1024, 10.0));
    EXPECT_TRUE(w.wrote_past_a_reader());
    w.append(point("identity", 2048, 12.0));
    w.finish("complete", "2026-11-29T10:05:00Z");
  }
  const auto f = ResultsFile::open(path);
  EXPECT_EQ(f.run().status, "complete");
  ASSERT_EQ(f.measurements().size(), 2U);
  EXPECT_EQ(f.measurements()[1].point.bytes, 2048U);
}

TEST_F(ResultsFileTest, TheReaderWaitsForAWriterAndNamesOneThatNeverLetsGo) {
  const auto path = (dir_ / "run.h5").string();
  ResultsWriter::create(path, header_, false).append(point("identity", 1024, 10.0));
  {
    HeldLock writer(path, LOCK_EX);
    const std::jthread lets_go([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      writer.release();
    });
    // Not ResultsFile::open: its forked reader would inherit the lock's file description and
    // keep the lock alive itself.
    EXPECT_EQ(ResultsFile::open_in_mpi_job(path).measurements().size(), 1U);
  }
  const HeldLock stuck(path, LOCK_EX);
  try {
    ResultsFile::open(path);
    FAIL() << "read a file another process holds open for writing";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("held open for writing by another process"), std::string::npos) << e.what();
  }
}

TEST(ResultsStorage, RoomNeededGrowsWithRowsAndChargesOnlyTheChunksAPointOpens) {
  PointRecord p;
  const std::uint64_t one_row = bytes_needed_to_store(p, {1, 0, 0});
  // The first row opens the table's first chunk; the second fits in it.
  EXPECT_GT(bytes_needed_to_store(p, {0, 0, 0}), one_row + 256 * 200);
  EXPECT_EQ(bytes_needed_to_store(p, {255, 0, 0}), one_row);
  EXPECT_GT(bytes_needed_to_store(p, {256, 0, 0}), one_row);
  p.samples.resize(100);
  const std::uint64_t inside = bytes_needed_to_store(p, {1, 0, 100});
  EXPECT_GT(inside, one_row + 100 * 100);
  // 100 samples on top of 4050 cross into the second chunk of 4096 rows (about 450 KB).
  EXPECT_GT(bytes_needed_to_store(p, {1, 0, 4050}), inside + 4096 * 100);
}

// A file of several layouts: version 2, /layouts instead of /layout, each mapping naming its
// layout, and every row keyed by its mapping's layout.
TEST_F(ResultsFileTest, KeysEachRowByItsMappingsLayoutInAFileOfSeveralLayouts) {
  const auto path = (dir_ / "layouts.h5").string();
  const LayoutRecord tp2 = header_.layout;
  const LayoutRecord tp1 = {4, 1, 1, 1, 1, 1, 4, 4, "tp-cp-ep-dp-pp", R"({"name":"tiny"})"};
  header_.layouts = {{"tp2", tp2, R"({"step_time_ms":5})"}, {"dp4", tp1, ""}};
  header_.mappings[0].name = "tp2/identity";
  header_.mappings[0].layout = "tp2";
  header_.mappings[1].name = "dp4/identity";
  header_.mappings[1].layout = "dp4";
  auto w = ResultsWriter::create(path, header_, false);
  w.append(point("tp2/identity", 1024, 10.0));
  w.append(point("dp4/identity", 1024, 30.0));
  w.finish("complete", "2026-11-29T10:05:00Z");

  const auto f = ResultsFile::open(path);
  EXPECT_EQ(f.schema_version(), kSeveralLayoutsSchemaVersion);
  EXPECT_TRUE(f.several_layouts());
  ASSERT_EQ(f.layouts().size(), 2U);
  EXPECT_EQ(f.layouts()[1].name, "dp4");
  EXPECT_EQ(f.layouts()[1].layout.dp, 4);
  EXPECT_EQ(f.layouts()[1].layout.workload_json, R"({"name":"tiny"})");
  EXPECT_EQ(f.layouts()[0].estimate_json, R"({"step_time_ms":5})");
  EXPECT_EQ(f.layout().tp, 2);  // the first
  EXPECT_EQ(f.mappings()[1].layout, "dp4");
  EXPECT_EQ(f.layout_of_mapping("dp4/identity").tp, 1);
  ASSERT_EQ(f.measurements().size(), 2U);
  EXPECT_EQ(f.key_of(f.measurements()[0]).layout, layout_key(tp2));
  EXPECT_EQ(f.key_of(f.measurements()[1]).layout, layout_key(tp1));
  EXPECT_EQ(f.key_of(f.group_timings()[3]).layout, layout_key(tp1));
  {
    const hid_t h = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_EQ(H5Lexists(h, "layout", H5P_DEFAULT), 0);  // a reader of version 1 finds no /layout to misread
    H5Fclose(h);
  }

  // A file of one layout is as before: version 1, /layout, every row under the file's layout.
  const auto one = (dir_ / "one.h5").string();
  header_.layouts.clear();
  ResultsWriter::create(one, header_, false).append(point("tp2/identity", 1024, 10.0));
  const auto g = ResultsFile::open(one);
  EXPECT_EQ(g.schema_version(), kSchemaVersion);
  EXPECT_FALSE(g.several_layouts());
  EXPECT_EQ(g.key_of(g.measurements()[0]).layout, layout_key(tp2));
}

}  // namespace
}  // namespace meshbench::results
