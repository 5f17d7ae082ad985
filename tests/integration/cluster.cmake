# The local test cluster (slurm/localcluster, docs/slurm.md): emulated nodes in network
# namespaces on this machine. The tests need root and `ip netns` (CI has both); elsewhere they
# skip (exit 77). They share one resource lock: they would skew each other's rates.

# A tiny MPI program: every rank's host, and one-way rates to a rank on another node and on its own.
add_executable(cluster_probe ${CMAKE_CURRENT_LIST_DIR}/cluster_probe.cpp)
target_link_libraries(cluster_probe PRIVATE MPI::MPI_CXX meshbench_warnings)
target_compile_definitions(cluster_probe PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
# `--target test_slurm` is the slurm module's build target; it brings the probe along.
if(TARGET test_slurm)
  add_dependencies(test_slurm cluster_probe)
endif()

# Cluster names per build tree (ct + 6 hex digits), so two build trees never share one.
string(MD5 _mb_cluster_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${_mb_cluster_hash}" 0 6 _mb_cluster_hash)
set(_mb_cluster_tests ${CMAKE_CURRENT_LIST_DIR})

add_test(NAME cluster_mpirun
  COMMAND bash ${_mb_cluster_tests}/cluster_mpirun_test.sh $<TARGET_FILE:cluster_probe> cm${_mb_cluster_hash}
          ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME cluster_slurm
  COMMAND bash ${_mb_cluster_tests}/cluster_slurm_test.sh ${MESHBENCH_EXE} $<TARGET_FILE:cluster_probe>
          cs${_mb_cluster_hash} ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME cluster_teardown
  COMMAND bash ${_mb_cluster_tests}/cluster_teardown_test.sh cf${_mb_cluster_hash})
set_tests_properties(cluster_mpirun cluster_slurm cluster_teardown PROPERTIES
  LABELS "cluster;slurm;integration"
  SKIP_RETURN_CODE 77
  RESOURCE_LOCK meshbench_localcluster
  TIMEOUT 300
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
# The probe's rates are timings (scripts/flake.sh reruns the tests labelled timing).
set_tests_properties(cluster_mpirun cluster_slurm PROPERTIES LABELS "cluster;slurm;integration;timing")

# The rates up.sh shapes, recorded for live discovery: `meshbench topo` on the emulated nodes.
add_test(NAME cluster_link_rates
  COMMAND bash ${_mb_cluster_tests}/cluster_link_rates_test.sh ${MESHBENCH_EXE} cr${_mb_cluster_hash})
set_tests_properties(cluster_link_rates PROPERTIES
  LABELS "cluster;integration"
  SKIP_RETURN_CODE 77
  RESOURCE_LOCK meshbench_localcluster
  TIMEOUT 120
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")

# NIC counters on the emulated nodes: each node's eth0 against the bytes a cross-node all-reduce
# and all-to-all move (byte counts, not timings).
add_test(NAME cluster_nic_counters
  COMMAND /usr/bin/python3 ${_mb_cluster_tests}/cluster_nic_counters_test.py ${MESHBENCH_EXE} cn${_mb_cluster_hash})
set_tests_properties(cluster_nic_counters PROPERTIES
  LABELS "cluster;integration"
  SKIP_RETURN_CODE 77
  RESOURCE_LOCK meshbench_localcluster
  TIMEOUT 300
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")

# The link-bound mode (up.sh --link-bound): every rank in its own namespace, every frame through
# meshbench-linkemu; rates and delays as lower bounds, bad input, teardown of the emulator.
add_test(NAME cluster_link_bound
  COMMAND bash ${_mb_cluster_tests}/cluster_link_bound_test.sh $<TARGET_FILE:cluster_probe>
          $<TARGET_FILE:meshbench-linkemu> cb${_mb_cluster_hash})
set_tests_properties(cluster_link_bound PROPERTIES
  LABELS "cluster;integration"
  SKIP_RETURN_CODE 77
  RESOURCE_LOCK meshbench_localcluster
  TIMEOUT 180
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")

# The calibrated cost model orders the mappings measured on the link-bound cluster as they
# measure (calibrate, run with a workload, report --cost-model), where they differ by more than
# their noise.
add_test(NAME cluster_calibrated_order
  COMMAND bash ${_mb_cluster_tests}/cluster_calibrated_order_test.sh ${MESHBENCH_EXE}
          $<TARGET_FILE:meshbench-linkemu> co${_mb_cluster_hash})
set_tests_properties(cluster_calibrated_order PROPERTIES
  LABELS "cluster;integration"
  SKIP_RETURN_CODE 77
  RESOURCE_LOCK meshbench_localcluster
  TIMEOUT 300
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
