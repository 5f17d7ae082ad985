/* A stand-in for NVIDIA's libnvidia-ml.so.1: the entry points meshbench reads, answering from a
 * script named by $MESHBENCH_FAKE_NVML, so that the NVML sampler's real dlopen path runs on a
 * machine without a GPU. One rule a line ('#' starts a comment):
 *   gpus N                          GPUs listed (default 1), bus ids 0000:<index+1>:00.0
 *   init_fails                      nvmlInit_v2 returns an error
 *   temperature C | power W | clock MHz    every GPU's steady reading
 *   throttle MASK point K [gpu G]   reasons MASK (NVML's bits) while point K is measured
 *   replays N point K [gpu G]       the PCIe replay counter grows by N once point K has begun
 *   ecc_corrected N point K [gpu G], ecc_uncorrected N point K [gpu G]   likewise
 * "Point K" is what meshbench publishes through meshbench_test_point (-1 between points); a
 * reading never depends on time, so what the tests see cannot change with the machine's load. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 16
#define MAX_RULES 64

typedef struct {
  char what[32];
  unsigned long long value;
  int point, gpu; /* gpu -1: every GPU */
} Rule;

static Rule rules[MAX_RULES];
static int rule_count = 0, gpu_count = 1, init_fails = 0;
static unsigned temperature = 50, power_mw = 300000, clock_mhz = 1980;
static atomic_int current_point = -1, highest_point = -1;
static int handles[MAX_GPUS];

static void load_script(void) {
  const char* path = getenv("MESHBENCH_FAKE_NVML");
  FILE* f = path != NULL ? fopen(path, "r") : NULL;
  char line[256];
  if (f == NULL) return;
  while (fgets(line, sizeof line, f) != NULL) {
    char what[32] = "";
    long long value = 0;
    int point = -1, gpu = -1;
    if (line[0] == '#' || sscanf(line, "%31s", what) != 1) continue;
    if (strcmp(what, "init_fails") == 0) {
      init_fails = 1;
      continue;
    }
    char* save = NULL;
    char* word = strtok_r(line, " \t\n", &save);
    char* number = strtok_r(NULL, " \t\n", &save);
    if (word == NULL || number == NULL) continue;
    value = strtoll(number, NULL, 0);
    for (char* key = strtok_r(NULL, " \t\n", &save); key != NULL; key = strtok_r(NULL, " \t\n", &save)) {
      char* arg = strtok_r(NULL, " \t\n", &save);
      if (arg == NULL) break;
      if (strcmp(key, "point") == 0) point = atoi(arg);
      if (strcmp(key, "gpu") == 0) gpu = atoi(arg);
    }
    if (value < 0) continue;
    if (strcmp(what, "gpus") == 0) gpu_count = value > MAX_GPUS ? MAX_GPUS : (int)value;
    else if (strcmp(what, "temperature") == 0) temperature = (unsigned)value;
    else if (strcmp(what, "power") == 0) power_mw = (unsigned)value * 1000U;
    else if (strcmp(what, "clock") == 0) clock_mhz = (unsigned)value;
    else if (rule_count < MAX_RULES) {
      Rule* r = &rules[rule_count++];
      snprintf(r->what, sizeof r->what, "%s", what);
      r->value = (unsigned long long)value;
      r->point = point;
      r->gpu = gpu;
    }
  }
  fclose(f);
}

static int index_of(const void* device) {
  const int i = (int)((const int*)device - handles);
  return i >= 0 && i < gpu_count ? i : -1;
}

static int applies(const Rule* r, const char* what, int gpu) { return strcmp(r->what, what) == 0 && (r->gpu < 0 || r->gpu == gpu); }

/* Counters grow once their point has begun and stay grown. */
static unsigned long long counter(const char* what, int gpu) {
  unsigned long long n = 0;
  for (int k = 0; k < rule_count; ++k) {
    if (applies(&rules[k], what, gpu) && atomic_load(&highest_point) >= rules[k].point) n += rules[k].value;
  }
  return n;
}

void meshbench_test_point(int point) {
  atomic_store(&current_point, point);
  if (point > atomic_load(&highest_point)) atomic_store(&highest_point, point);
}

int nvmlInit_v2(void) {
  rule_count = 0;
  gpu_count = 1;
  init_fails = 0;
  temperature = 50;
  power_mw = 300000;
  clock_mhz = 1980;
  atomic_store(&current_point, -1);
  atomic_store(&highest_point, -1);
  load_script();
  for (int i = 0; i < MAX_GPUS; ++i) handles[i] = i;
  return init_fails ? 12 /* NVML_ERROR_LIBRARY_NOT_FOUND */ : 0;
}
int nvmlShutdown(void) { return 0; }
int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = (unsigned)gpu_count;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index >= (unsigned)gpu_count) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *device = &handles[index];
  return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  unsigned domain = 0, bus = 0;
  if (sscanf(bus_id, "%x:%x:", &domain, &bus) != 2 || bus < 1 || bus > (unsigned)gpu_count) return 6; /* NOT_FOUND */
  *device = &handles[bus - 1];
  return 0;
}

typedef struct {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_sub_system_id;
  char bus_id[32];
} PciInfo;

int nvmlDeviceGetPciInfo_v3(void* device, PciInfo* pci) {
  const int i = index_of(device);
  if (i < 0) return 2;
  memset(pci, 0, sizeof *pci);
  pci->bus = (unsigned)i + 1;
  snprintf(pci->bus_id, sizeof pci->bus_id, "00000000:%02X:00.0", (unsigned)i + 1);
  return 0;
}
int nvmlDeviceGetTemperature(void* device, int sensor, unsigned* value) {
  (void)device;
  if (sensor != 0) return 2;
  *value = temperature;
  return 0;
}
int nvmlDeviceGetPowerUsage(void* device, unsigned* value) {
  (void)device;
  *value = power_mw;
  return 0;
}
int nvmlDeviceGetClockInfo(void* device, int type, unsigned* value) {
  (void)device;
  (void)type;
  *value = clock_mhz;
  return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
  const int i = index_of(device), point = atomic_load(&current_point);
  *reasons = 0;
  for (int k = 0; k < rule_count; ++k) {
    if (applies(&rules[k], "throttle", i) && rules[k].point == point) *reasons |= rules[k].value;
  }
  if (*reasons == 0 && point < 0) *reasons = 0x1; /* idle between points, as a real GPU says */
  return 0;
}
int nvmlDeviceGetTotalEccErrors(void* device, int type, int counter_type, unsigned long long* count) {
  (void)counter_type;
  *count = counter(type == 1 ? "ecc_uncorrected" : "ecc_corrected", index_of(device));
  return 0;
}
int nvmlDeviceGetPcieReplayCounter(void* device, unsigned* value) {
  *value = (unsigned)counter("replays", index_of(device));
  return 0;
}
typedef struct {
  unsigned gpu, memory;
} Utilization;
int nvmlDeviceGetUtilizationRates(void* device, Utilization* u) {
  (void)device;
  u->gpu = atomic_load(&current_point) >= 0 ? 90 : 0;
  u->memory = 10;
  return 0;
}
