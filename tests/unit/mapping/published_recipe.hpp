// The published training recipes of tests/data/recipes as explore takes them: each one's model,
// settings, layout, cluster and GPU. Shared by the unit test that checks each recipe's own layout
// passes the rules and fits, and by tests/perf/explore_recipes.cpp, which ranks each among every
// layout of its model (the table in docs/explore.md).
#pragma once

#include <string>
#include <vector>

#include "mapping/explore.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

struct PublishedRecipe {
  std::string name;
  Workload workload;
  TrainingSettings settings;
  ExploreConstraints layout;  // the recipe's own sizes, one of each: explore prices that layout alone
  topology::ClusterTopology cluster;
  ExploreHardware hardware;
  // Megatron-Core recipes (NeMo, Megatron-Bridge) ran under the accounting explore models.
  bool megatron = false;
};

std::vector<PublishedRecipe> published_recipes();

// explore on the recipe's model, settings and cluster, with these constraints.
ExploreResult explore_recipe(const PublishedRecipe& recipe, const ExploreConstraints& constraints);

// Whether an estimate is of the recipe's own layout.
bool is_recipe_layout(const PublishedRecipe& recipe, const LayoutEstimate& estimate);

}  // namespace meshbench::mapping
