// Where each published recipe's own layout (tests/data/recipes) lands among every layout explore
// finds for its model and cluster, judged with the recipe's settings, and again with the EP
// all-to-all overlapped (--ep-overlap): the table in docs/explore.md, "Published layouts". Not a
// test (the unit test Explore.PublishedRecipesAreFeasibleAndRanked checks each layout is valid
// and fits): every recipe explores every layout of its model twice, seconds each.
//   build/perf/perf_explore_recipes
#include <algorithm>
#include <cstdio>

#include "tests/unit/mapping/published_recipe.hpp"

int main() {
  using namespace meshbench::mapping;
  for (PublishedRecipe r : published_recipes()) {
    const auto is_recipe = [&](const LayoutEstimate& e) { return is_recipe_layout(r, e); };
    const ExploreResult result = explore_recipe(r, {});
    r.settings.ep_overlap = true;
    const ExploreResult overlapped = explore_recipe(r, {});
    const auto found = std::find_if(result.ranked.begin(), result.ranked.end(), is_recipe);
    const auto found_overlapped = std::find_if(overlapped.ranked.begin(), overlapped.ranked.end(), is_recipe);
    const auto too_big = std::find_if(result.too_big.begin(), result.too_big.end(), is_recipe);
    if (found != result.ranked.end() && found_overlapped != overlapped.ranked.end()) {
      std::printf("recipe %-44s rank %4td of %5zu fitting, step %.3fx the best; with --ep-overlap rank %4td, %.3fx\n", r.name.c_str(),
                  found - result.ranked.begin() + 1, result.ranked.size(), found->step_us / result.ranked.front().step_us,
                  found_overlapped - overlapped.ranked.begin() + 1, found_overlapped->step_us / overlapped.ranked.front().step_us);
    } else if (too_big != result.too_big.end()) {
      std::printf("recipe %-44s needs %.1f GiB on stage %d\n", r.name.c_str(), too_big->memory.maximum.total() / 1073741824.0,
                  too_big->memory.maximum.stage);
    } else {
      std::printf("recipe %-44s breaks a rule\n", r.name.c_str());
    }
  }
  return 0;
}
