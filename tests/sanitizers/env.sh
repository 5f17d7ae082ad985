# Sourced by scripts/test.sh --sanitize / --tsan (and by hand before running ctest in a
# sanitizer build tree): the sanitizers' run-time options and this folder's suppression files.
# Every process of a test inherits them, including ranks that mpirun, the local cluster's launch
# agent or Slurm start (they pass the environment on).
# shellcheck shell=bash
_mb_san_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# halt_on_error: the first finding ends the process with exitcode, so no test passes over one.
# detect_leaks stays on: leaks in meshbench's own code are findings; lsan.supp names the
# libraries outside the project whose leaks are not ours, each with the reason.
# fast_unwind_on_malloc=0: a leak's stack is unwound with debug information, not frame pointers.
# hwloc's PCI plugin (not built with frame pointers, and unloaded before the leak check) leaks
# from inside hwloc_topology_load; with the fast unwinder that stack ends in the plugin's
# "<unknown module>" and no suppression can name it. It costs time (test_topology: 27 s instead
# of 5 s on the loaded 2-core VM).
# intercept_tls_get_addr=0: LeakSanitizer's exit-time tracer crashed ("Tracer caught signal 11",
# "LeakSanitizer has encountered a fatal error", exit 86) in the ranks of `meshbench run` under
# mpirun. The fault is in GCC 12's sanitizer run-time, not in meshbench: its __tls_get_addr
# interceptor takes a dynamic TLS block (a dlopen'ed library's thread-local variables, malloc'ed)
# that starts 16 bytes past a page boundary for glibc 2.19's header and reads the two words before
# it as the block's range; the leak check then faults scanning that range. Whether a process meets
# it depends only on where its allocations land, so any test binary can by chance;
# dtls_tracer_crash.sh here shows it in a few lines. Without the interceptor the dynamic TLS of
# dlopen'ed libraries is not scanned: meshbench has no thread-local variables, and the static TLS
# of the libraries linked at start-up is still scanned.
# max_allocation_size_mb=1024 with allocator_may_return_null=1: an allocation past 1 GiB fails as
# malloc does, the way the results reader's child meets its address-space limit in a normal build
# (common/crash_guard.hpp; that limit cannot apply beside terabytes of shadow memory). A damaged
# variable-length length makes HDF5 ask for 1.8-4.3 GB (tests/fuzz/regressions/results_h5/).
# MESHBENCH_DETECT_LEAKS=0 turns LeakSanitizer off (for a look at the other checks alone).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=86:detect_leaks=${MESHBENCH_DETECT_LEAKS:-1}:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:fast_unwind_on_malloc=0:intercept_tls_get_addr=0:max_allocation_size_mb=1024:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$_mb_san_dir/lsan.supp:print_suppressions=0:exitcode=86"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:suppressions=$_mb_san_dir/ubsan.supp"
export TSAN_OPTIONS="halt_on_error=1:exitcode=86:second_deadlock_stack=1:suppressions=$_mb_san_dir/tsan.supp"
unset _mb_san_dir
