# meshbench topo end to end: live discovery under mpirun, offline planning, and bad input.
# Included by tests/CMakeLists.txt, which sets MESHBENCH_EXE and MESHBENCH_TEST_DATA.
set(_topology_py /usr/bin/python3)
set(_topology_dir ${CMAKE_CURRENT_LIST_DIR})
set(_topology_mpi_env
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
  OMPI_MCA_rmaps_base_oversubscribe=1)

# mpirun -np 4 on this machine (no GPU): one node, four CPU slots, rank r on slot r.
add_test(NAME topology_mpirun_np4_cpu_slots
  COMMAND ${_topology_py} ${_topology_dir}/topology_mpirun_check.py ${MPIEXEC_EXECUTABLE} ${MESHBENCH_EXE} 4)
set_tests_properties(topology_mpirun_np4_cpu_slots PROPERTIES
  ENVIRONMENT "${_topology_mpi_env}" LABELS "integration;topology" TIMEOUT 180)

# A 64-node p5 cluster planned offline from AWS's file plus the node type.
add_test(NAME topology_offline_p5_64_nodes
  COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_topology_py} ${_topology_dir}/topology_offline_check.py ${MESHBENCH_EXE} ${MESHBENCH_TEST_DATA})
set_tests_properties(topology_offline_p5_64_nodes PROPERTIES LABELS "integration;topology" TIMEOUT 120)

# Each bad input: exit status 2, one line on stderr naming the problem, nothing on stdout.
foreach(_case missing_file malformed_xml no_gpus nodes_zero unknown_node_type unknown_format srun_without_mpi_plugin
              doctor_srun_without_mpi_plugin)
  add_test(NAME topology_bad_input_${_case}
    COMMAND ${MESHBENCH_LEAVES_NO_SCRATCH} ${_topology_py} ${_topology_dir}/topology_bad_input.py ${MESHBENCH_EXE} ${MESHBENCH_TEST_DATA} ${_case})
  set_tests_properties(topology_bad_input_${_case} PROPERTIES LABELS "integration;topology" TIMEOUT 60)
endforeach()

# Live discovery leaves hwloc's OpenCL component out (topology/src/hwloc_reader.hpp).
add_test(NAME topology_live_discovery_without_opencl
  COMMAND bash ${_topology_dir}/topology_no_opencl.sh ${MESHBENCH_EXE})
set_tests_properties(topology_live_discovery_without_opencl PROPERTIES LABELS "integration;topology" TIMEOUT 60)
