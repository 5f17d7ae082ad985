# meshbench slurm and the local test cluster's scripts, without a cluster: every script the
# generator writes (each platform and job kind) and every localcluster script pass shellcheck.
add_test(NAME slurm_shellcheck
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_shellcheck_test.sh ${MESHBENCH_EXE})
set_tests_properties(slurm_shellcheck PROPERTIES LABELS "slurm;integration" SKIP_RETURN_CODE 77 TIMEOUT 120)
