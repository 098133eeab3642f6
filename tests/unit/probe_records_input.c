/* Input of probe_records_test.cc: compiled with the quanta pass in clock mode
 * (tests/CMakeLists.txt), so its object file and the unit test binary it is linked into
 * both carry its probe record. The loop's trip count is unknown, so it gets a probe; the
 * mutex calls are two lock sites. Never called. Names must not start with quanta_: the
 * pass leaves those alone as the runtime's. */
#include <pthread.h>
#include <stdint.h>

uint64_t records_input_sum(const uint64_t* values, uint64_t count) {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < count; i++) sum += values[i] * values[i] ^ (sum >> 3);
  return sum;
}

void records_input_locked_add(pthread_mutex_t* lock, uint64_t* total, uint64_t amount) {
  pthread_mutex_lock(lock);
  *total += amount;
  pthread_mutex_unlock(lock);
}
