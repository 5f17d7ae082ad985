# meshbench groups and plan end to end: Megatron group lists, the p5 x 4 plan, the plan file and
# exports, planning this node alone, and bad input. Included by tests/CMakeLists.txt, which sets
# MESHBENCH_EXE and MESHBENCH_TEST_DATA. None of them may leave a file behind.
set(_mapping_py /usr/bin/python3)
set(_mapping_dir ${CMAKE_CURRENT_LIST_DIR})

add_test(NAME mapping_groups_megatron_lists
  COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_mapping_py} ${_mapping_dir}/mapping_groups_check.py ${MESHBENCH_EXE})
set_tests_properties(mapping_groups_megatron_lists PROPERTIES LABELS "integration;mapping" TIMEOUT 60)

# p5 x 4, TP8 ETP1 EP8 PP4: TP stays inside a node in the top candidate and the output says so;
# the plan file loads back, exports have one line per rank.
foreach(_source node_type nccl_file)
  add_test(NAME mapping_plan_p5_x4_${_source}
    COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_mapping_py} ${_mapping_dir}/mapping_plan_check.py ${MESHBENCH_EXE} ${MESHBENCH_TEST_DATA} ${_source})
  set_tests_properties(mapping_plan_p5_x4_${_source} PROPERTIES LABELS "integration;mapping" TIMEOUT 120)
endforeach()

# No topology option: this node alone (CPU slots here).
add_test(NAME mapping_plan_this_node
  COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_mapping_py} ${_mapping_dir}/mapping_plan_this_node.py ${MESHBENCH_EXE})
set_tests_properties(mapping_plan_this_node PROPERTIES LABELS "integration;mapping" TIMEOUT 60)

# Each bad input: exit status 2, one line on stderr naming the problem, nothing on stdout.
foreach(_case
    groups_no_world groups_not_divisible groups_pp_last groups_unknown_dim groups_bad_format groups_zero_tp
    plan_unknown_node_type plan_nodes_zero plan_layout_not_dividing plan_workload_missing plan_workload_malformed
    plan_workload_unknown_key plan_workload_experts_vs_ep plan_cost_model_bad_key plan_mapping_without_export
    plan_unknown_mapping plan_top_negative plan_out_exists plan_hosts_count plan_bad_format plan_negative_skew
    plan_cost_model_old_imbalance
    plan_workload_unknown_model_type workload_no_file workload_unknown_model_type workload_missing_key
    workload_megatron_not_modelled workload_megatron_unknown_moe_arg workload_malformed_yaml workload_overlay_model_key
    workload_global_batch explore_no_workload explore_workload_refused explore_ep_vs_experts explore_size_not_dividing
    explore_bad_sizes explore_memory_unknown explore_efficiency explore_out_exists explore_out_top_zero explore_negative_allowance
    explore_negative_skew
    explore_measured_not_megatron explore_measured_no_iterations explore_measured_layout_contradicts explore_measured_layout_malformed
    explore_measured_layout_without_log)
  add_test(NAME mapping_bad_input_${_case}
    COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_mapping_py} ${_mapping_dir}/mapping_bad_input.py ${MESHBENCH_EXE} ${_case})
  set_tests_properties(mapping_bad_input_${_case} PROPERTIES LABELS "integration;mapping" TIMEOUT 60)
endforeach()

# meshbench workload on the published configs and the launch script; plan --workload with a
# Hugging Face config, a YAML overlay and a launch script whose layout fills the options.
add_test(NAME mapping_workload_formats
  COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_mapping_py} ${_mapping_dir}/mapping_workload_check.py ${MESHBENCH_EXE} ${MESHBENCH_TEST_DATA})
set_tests_properties(mapping_workload_formats PROPERTIES LABELS "integration;mapping" TIMEOUT 120)

# meshbench explore end to end: Qwen3-30B-A3B on 8 p5 nodes, EP 8 against EP 16 with a routing
# skew, as JSON (layouts in rank order, integer sizes, fits, memory and time terms) and as text.
add_test(NAME mapping_explore_qwen3_p5_x8
  COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_mapping_py} ${_mapping_dir}/mapping_explore_check.py ${MESHBENCH_EXE} ${MESHBENCH_TEST_DATA})
set_tests_properties(mapping_explore_qwen3_p5_x8 PROPERTIES LABELS "integration;mapping" TIMEOUT 60)

# explore --measured on a published run written as a Megatron-LM log: the fit meets its step and
# the ranking uses it.
add_test(NAME mapping_explore_measured
  COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_mapping_py} ${_mapping_dir}/mapping_explore_measured.py ${MESHBENCH_EXE} ${MESHBENCH_TEST_DATA})
set_tests_properties(mapping_explore_measured PROPERTIES LABELS "integration;mapping" TIMEOUT 60)
