# End to end on the local test cluster (issue 7): run -> results -> report, through mpirun with
# the namespace launcher and through sbatch; and the harness against a plain MPI loop across
# the shaped link. Root and `ip netns` needed (CI has both); elsewhere they skip (77).
string(MD5 _mb_e2e_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${_mb_e2e_hash}" 0 6 _mb_e2e_hash)
# One cluster for every case (a CTest fixture: up before the first case, down after the last), a
# short name (Slurm's socket paths hold the name three times, 108 bytes at most).
set(_mb_e2e_cluster e2${_mb_e2e_hash})
set(_mb_e2e_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
foreach(_step up down)
  add_test(NAME integration.e2e.cluster_${_step}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/e2e_test.py ${_step} ${PROJECT_BINARY_DIR} ${_mb_e2e_cluster})
  # Labelled as the cases are, so that a run of the timing tests brings it along and a run of
  # every other test does not start it alone.
  set_tests_properties(integration.e2e.cluster_${_step} PROPERTIES
    LABELS "integration;cluster;e2e;timing"
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK meshbench_localcluster
    TIMEOUT 120
    ENVIRONMENT "${_mb_e2e_env}")
endforeach()
set_tests_properties(integration.e2e.cluster_up PROPERTIES FIXTURES_SETUP e2e_cluster)
set_tests_properties(integration.e2e.cluster_down PROPERTIES FIXTURES_CLEANUP e2e_cluster)
foreach(_case mpirun sbatch fidelity doctor)
  add_test(NAME integration.e2e.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/e2e_test.py ${_case} ${PROJECT_BINARY_DIR} ${_mb_e2e_cluster})
  set_tests_properties(integration.e2e.${_case} PROPERTIES
    LABELS "integration;cluster;e2e;timing"
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK meshbench_localcluster
    FIXTURES_REQUIRED e2e_cluster
    TIMEOUT 900
    ENVIRONMENT "${_mb_e2e_env}")
endforeach()
