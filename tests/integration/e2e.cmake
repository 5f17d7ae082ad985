# End to end on the local test cluster (issue 7): run -> results -> report, through mpirun with
# the namespace launcher and through sbatch; and the harness against a plain MPI loop across
# the shaped link. Root and `ip netns` needed (CI has both); elsewhere they skip (77).
string(MD5 _mb_e2e_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${_mb_e2e_hash}" 0 6 _mb_e2e_hash)
# Short cluster names (Slurm's socket paths hold the name three times, 108 bytes at most).
set(_mb_e2e_prefix_mpirun em)
set(_mb_e2e_prefix_sbatch es)
set(_mb_e2e_prefix_fidelity ef)
set(_mb_e2e_prefix_doctor ed)
foreach(_case mpirun sbatch fidelity doctor)
  add_test(NAME integration.e2e.${_case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/e2e_test.py ${_case} ${PROJECT_BINARY_DIR} ${_mb_e2e_prefix_${_case}}${_mb_e2e_hash})
  set_tests_properties(integration.e2e.${_case} PROPERTIES
    LABELS "integration;cluster;e2e;timing"
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK meshbench_localcluster
    TIMEOUT 900
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
endforeach()
