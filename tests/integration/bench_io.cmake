# meshbench io under mpirun on this machine: verified write and read-back into a temporary folder
# on 2 and 4 ranks, a corrupted shard found, the rows added to a run's file, bad input, and a
# signal that leaves nothing behind.
foreach(_case two_ranks_verify four_ranks_verify corrupt_read_detected append_to_run_results workload_shard bad_input sigterm_cleans_up)
  add_test(NAME integration.io.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/bench_io_test.py ${_case})
  set_tests_properties(integration.io.${_case} PROPERTIES
    LABELS "integration;bench" TIMEOUT 300 ENVIRONMENT "MESHBENCH=$<TARGET_FILE:meshbench>")
endforeach()

# The shared-file write and read (MPI-IO) on 2 ranks, linked in: a round trip, and an open that
# fails stopping both phases with its error.
meshbench_two_rank_test(integration.io.shared_file_open bench_io_files_probe meshbench_io)
