// The HTML writer and the placement model it draws: on the shared fixture (two nodes of two
// CPU slots, PHB inside a node, NET between), with known groups.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "analysis/report/placement.hpp"
#include "analysis/report/report.hpp"
#include "analysis/report/report_writers.hpp"
#include "report_fixture.hpp"
#include "tests/unit/two_cpu_node.hpp"

namespace meshbench::analysis {
namespace {

const std::string kOdd = "a<b>&\"c'";  // a mapping name that must be escaped everywhere

class ReportHtmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // tp-cp-ep-dp-pp on identity: tp {0,1} {2,3} (inside each node), dp {0,2} {1,3} (across).
    f_.add_mapping("identity", "tp-cp-ep-dp-pp");
    // Ranks 1 and 2 swapped: tp {0,1} now spans both nodes.
    f_.add_mapping(kOdd, "tp-cp-ep-dp-pp", {0, 2, 1, 3});
    for (std::uint64_t b : {1024ULL, 65536ULL}) {
      f_.add_point("identity", "tp", "all_reduce", b, 10.0);
      f_.add_point(kOdd, "tp", "all_reduce", b, 40.0);
    }
    file_ = std::make_unique<results::ResultsFile>(results::ResultsFile::open(f_.write(dir_ / "run.h5")));
    report_ = build_report(*file_, std::nullopt, "");
  }
  std::string html() const {
    std::ostringstream out;
    HtmlReportWriter().write(report_, out);
    return out.str();
  }
  // The fill of the placement cell `id` ("placement-0-tp-s2").
  static std::string fill_of(const std::string& page, const std::string& id) {
    std::smatch m;
    const std::regex re("<rect id=\"" + id + "\"[^>]*fill=\"(#[0-9a-f]{6})\"");
    return std::regex_search(page, m, re) ? m[1].str() : "";
  }

  testing::ScratchDir dir_;
  testing::FixtureFile f_;
  std::unique_ptr<results::ResultsFile> file_;
  Report report_;
};

TEST_F(ReportHtmlTest, PlacementModelHasTheGroupsSlotsAndLinksOfEachMapping) {
  ASSERT_TRUE(report_.placement);
  const auto& p = *report_.placement;
  EXPECT_EQ(p.grid.slots, 4);
  EXPECT_EQ(p.grid.hosts, (std::vector<std::string>{"node-0", "node-1"}));
  EXPECT_EQ(p.grid.classes, (std::vector<std::string>{"PHB", "NET"}));
  EXPECT_EQ(p.grid.links[0][1], "PHB");
  EXPECT_EQ(p.grid.links[1][2], "NET");
  EXPECT_EQ(p.grid.links[3][3], "LOC");
  ASSERT_EQ(p.mappings.size(), 2U);
  const auto& best = p.mappings[0];
  EXPECT_EQ(best.mapping, "identity");
  EXPECT_EQ(best.rank, 1);
  // tp, dp, ep, edp have groups of two; cp, pp, etp of one are left out.
  std::vector<std::string> dims;
  for (const auto& d : best.dims) dims.push_back(d.dim);
  EXPECT_EQ(dims, (std::vector<std::string>{"tp", "dp", "ep", "edp"}));
  const auto& tp = best.dims[0];
  EXPECT_EQ(tp.group_of_slot, (std::vector<int>{0, 0, 1, 1}));
  ASSERT_EQ(tp.groups[0].hops.size(), 1U);  // two members: one hop, no ring back
  EXPECT_EQ(tp.groups[0].hops[0].link, "PHB");
  EXPECT_EQ(tp.groups[0].crossed, (std::vector<std::string>{"PHB"}));
  const auto& dp = best.dims[1];
  EXPECT_EQ(dp.group_of_slot, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(dp.groups[0].crossed, (std::vector<std::string>{"NET"}));
  const auto& swapped = p.mappings[1].dims[0];
  EXPECT_EQ(swapped.group_of_slot, (std::vector<int>{0, 1, 0, 1}));  // ranks 0,1 sit on slots 0,2
  EXPECT_EQ(swapped.rank_of_slot, (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(swapped.groups[0].hops[0].link, "NET");
}

TEST_F(ReportHtmlTest, PageIsSelfContainedWithEverySection) {
  const std::string page = html();
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  for (const char* id : {"ranking", "apply", "placement", "links", "busbw", "predictions", "spread"}) {
    EXPECT_NE(page.find("<section id=\"" + std::string(id) + "\""), std::string::npos) << id;
  }
  // Nothing fetched: no src or href leaves the page, no stylesheet link, no @import or url().
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  const std::regex href("href=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), href); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ((*it)[1].str().front(), '#') << (*it)[1].str();
  }
  EXPECT_NE(page.find("<svg id=\"link-matrix\""), std::string::npos);
  EXPECT_NE(page.find("<svg id=\"busbw-0\""), std::string::npos);
  EXPECT_NE(page.find("Megatron-LM"), std::string::npos);  // how to apply the best mapping
}

TEST_F(ReportHtmlTest, HardwareSectionOnlyWhenTheFileReadNicsGpusOrIo) {
  // The fixture's run read none of them: no section and no link to it.
  std::string page = html();
  EXPECT_EQ(page.find("id=\"hardware\""), std::string::npos);
  EXPECT_EQ(page.find("href=\"#hardware\""), std::string::npos);
  IoSummary io;
  io.folder = "/fsx/ckpt";
  io.filesystem = "lustre";
  io.method = "shared_file";
  io.phase = "write";
  io.shard_bytes = 1 << 20;
  io.ranks = 4;
  io.nodes = 2;
  io.repeats = 3;
  io.median_gbps = 1.25;
  io.slowest_host = "node-<b>";
  report_.io.push_back(io);
  page = html();
  EXPECT_NE(page.find("<section id=\"hardware\""), std::string::npos);
  EXPECT_NE(page.find("href=\"#hardware\""), std::string::npos);
  EXPECT_NE(page.find("Checkpoint I/O"), std::string::npos);
  EXPECT_NE(page.find("shared_file"), std::string::npos);
  EXPECT_NE(page.find("node-&lt;b&gt;"), std::string::npos);
  EXPECT_EQ(page.find("node-<b>"), std::string::npos);
}

TEST_F(ReportHtmlTest, EachGroupHasItsOwnColourInItsCells) {
  const std::string page = html();
  // identity's tp: slots 0,1 are group 0, slots 2,3 group 1.
  EXPECT_EQ(fill_of(page, "placement-0-tp-s0"), group_colour(0));
  EXPECT_EQ(fill_of(page, "placement-0-tp-s1"), group_colour(0));
  EXPECT_EQ(fill_of(page, "placement-0-tp-s2"), group_colour(1));
  EXPECT_EQ(fill_of(page, "placement-0-tp-s3"), group_colour(1));
  // Its dp: across the nodes.
  EXPECT_EQ(fill_of(page, "placement-0-dp-s0"), group_colour(0));
  EXPECT_EQ(fill_of(page, "placement-0-dp-s1"), group_colour(1));
  // The swapped mapping's tp group 0 holds slots 0 and 2.
  EXPECT_EQ(fill_of(page, "placement-1-tp-s2"), group_colour(0));
  EXPECT_EQ(fill_of(page, "placement-1-tp-s1"), group_colour(1));
  // The hop across the nodes is stroked as NET, inside a node as PHB.
  EXPECT_NE(page.find("data-link=\"NET\""), std::string::npos);
  EXPECT_NE(page.find("stroke-dasharray=\"" + link_dash("NET") + "\""), std::string::npos);
  EXPECT_NE(page.find("data-link=\"PHB\""), std::string::npos);
}

TEST_F(ReportHtmlTest, NamesAreEscaped) {
  const std::string page = html();
  EXPECT_EQ(page.find(kOdd), std::string::npos);
  EXPECT_NE(page.find("a&lt;b&gt;&amp;&quot;c&#39;"), std::string::npos);
  EXPECT_EQ(page.find("<b>&"), std::string::npos);
}

TEST_F(ReportHtmlTest, JsonCarriesThePlacementWithItsColours) {
  std::ostringstream out;
  JsonReportWriter().write(report_, out);
  const auto j = nlohmann::json::parse(out.str());
  ASSERT_TRUE(j["placement"].is_object());
  EXPECT_EQ(j["placement"]["slots"], 4);
  EXPECT_EQ(j["placement"]["mappings"][0]["dims"][0]["dim"], "tp");
  EXPECT_EQ(j["placement"]["mappings"][0]["dims"][0]["groups"][1]["colour"], group_colour(1));
  EXPECT_EQ(j["placement"]["link_classes"][1]["name"], "NET");
  EXPECT_EQ(j["placement"]["link_classes"][1]["dash"], link_dash("NET"));
}

// 65 nodes of two slots (130): the four ranks use the first two nodes; the rest are drawn grey,
// and the slot × slot map is left out with a line saying why.
TEST(ReportHtmlLarge, UnusedSlotsAreGreyAndTheLinkMapStopsAt128Slots) {
  testing::ScratchDir dir;
  testing::FixtureFile f(topology::ClusterTopology::replicate(test_support::two_cpu_node("n"), 65));
  f.add_mapping("identity", "tp-cp-ep-dp-pp");
  f.add_point("identity", "tp", "all_reduce", 1024, 10.0);
  const auto file = results::ResultsFile::open(f.write(dir / "run.h5"));
  const Report r = build_report(file, std::nullopt, "");
  ASSERT_TRUE(r.placement);
  EXPECT_EQ(r.placement->grid.slots, 130);
  EXPECT_TRUE(r.placement->grid.links.empty());
  EXPECT_EQ(r.placement->grid.classes, (std::vector<std::string>{"PHB", "NET"}));
  std::ostringstream out;
  HtmlReportWriter().write(r, out);
  const std::string page = out.str();
  EXPECT_NE(page.find("more than 128 slots"), std::string::npos);
  EXPECT_EQ(page.find("<svg id=\"link-matrix\""), std::string::npos);
  const std::regex unused("<rect id=\"placement-0-tp-s129\"[^>]*fill=\"#e6e6e6\"");
  EXPECT_TRUE(std::regex_search(page, unused));
}

TEST(GroupColour, DistinctAcrossManyGroupsAndNeverGrey) {
  std::set<std::string> seen;
  for (int g = 0; g < 64; ++g) {
    const std::string c = group_colour(g);
    ASSERT_EQ(c.size(), 7U) << g;
    EXPECT_EQ(c[0], '#');
    EXPECT_TRUE(seen.insert(c).second) << "colour of group " << g << " repeats: " << c;
    EXPECT_NE(c, "#e6e6e6");  // an unused slot's
  }
  EXPECT_EQ(group_colour(0), "#1f77b4");
}

TEST(LinkStyles, FartherLinksLookDifferent) {
  std::set<std::string> colours, dashes;
  for (const char* l : {"NVL", "NVB", "PIX", "PXB", "PHB", "SYS", "NET"}) {
    colours.insert(link_colour(l));
    dashes.insert(link_dash(l));
  }
  EXPECT_EQ(colours.size(), 7U);
  EXPECT_EQ(dashes.size(), 7U);
  EXPECT_EQ(link_dash("NVL"), "");
}

}  // namespace
}  // namespace meshbench::analysis
