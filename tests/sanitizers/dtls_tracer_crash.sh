#!/usr/bin/env bash
# Shows the sanitizer run-time's fault behind "Tracer caught signal 11 ... LeakSanitizer has
# encountered a fatal error" (tests/sanitizers/env.sh, intercept_tls_get_addr=0), in a program
# of a few lines built with this machine's g++ and its libasan:
#   a library loaded with dlopen has a thread-local variable; its dynamic TLS block is malloc'd at
#   an address that is 16 bytes past a page boundary, which the run-time's __tls_get_addr
#   interceptor takes for the header of glibc 2.19 and older; it reads the two words before the
#   block as its range, and the leak check at exit faults scanning that range.
# Exit status 0 when both hold: without the setting the leak check crashes, with it the program
# ends cleanly. Usage: tests/sanitizers/dtls_tracer_crash.sh [compiler, default g++]
set -euo pipefail
cxx="${1:-g++}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cat >"$dir/tls_lib.cpp" <<'CPP'
thread_local char tls_byte[8];
extern "C" char* touch_tls() { return tls_byte; }
CPP
cat >"$dir/main.cpp" <<'CPP'
#include <dlfcn.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
// Small allocations of one size come from consecutive chunks: argv[2] of them first move the
// chunk the library's dynamic TLS block (of that size) gets.
int main(int, char** argv) {
  static void* keep[4096];
  const auto count = std::strtoul(argv[2], nullptr, 10);
  for (unsigned long i = 0; i < count && i < 4096; ++i) keep[i] = std::malloc(8);
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (lib == nullptr) return 1;
  auto touch = reinterpret_cast<char* (*)()>(dlsym(lib, "touch_tls"));
  const auto tls = reinterpret_cast<std::uintptr_t>(touch());
  std::fprintf(stderr, "dynamic TLS block at %#lx (%lu past a page boundary)\n", static_cast<unsigned long>(tls),
              static_cast<unsigned long>(tls % 4096));
  return 0;
}
CPP
"$cxx" -shared -fPIC "$dir/tls_lib.cpp" -o "$dir/libtls.so"
"$cxx" -g -fsanitize=address "$dir/main.cpp" -o "$dir/main" -ldl
status=0
# Where the block lands depends on the C library's and the run-time's allocations: try each
# chunk of a page (128 of 32 bytes) until it is the one 16 bytes past the boundary.
for before in $(seq 0 300); do
  without="$(ASAN_OPTIONS=detect_leaks=1 "$dir/main" "$dir/libtls.so" "$before" 2>&1)" || true
  grep -q "(16 past" <<<"$without" && break
done
echo "without intercept_tls_get_addr=0:"
printf '  %s\n' "${without//$'\n'/$'\n'  }"
grep -q "LeakSanitizer has encountered a fatal error" <<<"$without" || { echo "FAIL: no tracer crash without the setting"; status=1; }
with_rc=0
with="$(ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 "$dir/main" "$dir/libtls.so" "$before" 2>&1)" || with_rc=$?
echo "with intercept_tls_get_addr=0 (exit $with_rc):"
printf '  %s\n' "${with//$'\n'/$'\n'  }"
[[ $with_rc -eq 0 ]] || { echo "FAIL: the leak check failed with the setting"; status=1; }
exit "$status"
