# common/mpi's helpers under mpirun on 2 and 3 ranks (3: a rank count that is not a power of
# two, and a split communicator of unequal halves). Unit tests that need MPI processes.
add_executable(mpi_helpers_probe ${CMAKE_CURRENT_LIST_DIR}/mpi_helpers_probe.cpp)
target_link_libraries(mpi_helpers_probe PRIVATE meshbench_mpi meshbench_warnings)
foreach(_ranks 2 3)
  add_test(NAME common.mpi.helpers_on_${_ranks}_ranks
    COMMAND ${MPIEXEC_EXECUTABLE} -np ${_ranks} --oversubscribe $<TARGET_FILE:mpi_helpers_probe>)
  set_tests_properties(common.mpi.helpers_on_${_ranks}_ranks PROPERTIES
    LABELS "unit;mpi" TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_mpi_yield_when_idle=1")
endforeach()
