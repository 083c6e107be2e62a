/* A mutex convoy: four threads take one mutex in turn and compute while they hold it, so
 * most of the time three of them wait for it. The bottleneck is the lock: the first finding is
 * the wait on its Mutex/0x… (printed first).
 *
 *   mutex_convoy [seconds]   (default 10)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "monotonic.h"

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long table[64];
static double end_time;

__attribute__((noinline)) static void update_table(unsigned long k) {
  pthread_mutex_lock(&table_lock);
  for (int i = 0; i < 200000; ++i) table[(k + (unsigned long)i) % 64] += (unsigned long)i * k;
  pthread_mutex_unlock(&table_lock);
}

static void* locker(void* arg) {
  unsigned long k = (unsigned long)arg;
  while (now() < end_time) update_table(k);
  return NULL;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  printf("mutex_convoy: mutex %p\n", (void*)&table_lock);
  fflush(stdout);
  end_time = now() + seconds;
  pthread_t t[4];
  for (unsigned long i = 0; i < 4; ++i) pthread_create(&t[i], NULL, locker, (void*)(i + 1));
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  return 0;
}
