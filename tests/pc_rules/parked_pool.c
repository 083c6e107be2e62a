/* A parked pool: the main thread computes while four pool threads wait for work that never
 * comes (pthread_cond_wait on the pool's queue). The bottleneck is the main thread's
 * compute_checksums; the pool's waits are idle, not findings.
 *
 *   parked_pool [seconds]   (default 10)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "monotonic.h"

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
static int queued = 0;
static int closing = 0;

static void* pool_worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&queue_lock);
  while (!closing) {
    while (queued == 0 && !closing) pthread_cond_wait(&queue_ready, &queue_lock);
    if (queued > 0) --queued;
  }
  pthread_mutex_unlock(&queue_lock);
  return NULL;
}

__attribute__((noinline)) static unsigned long compute_checksums(unsigned long seed) {
  unsigned long h = seed;
  for (int i = 0; i < 2000000; ++i)
    h = h * 6364136223846793005UL + 1442695040888963407UL + (h >> 29);
  return h;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  pthread_t pool[4];
  for (int i = 0; i < 4; ++i) pthread_create(&pool[i], NULL, pool_worker, NULL);
  double end = now() + seconds;
  unsigned long h = 1;
  while (now() < end) h = compute_checksums(h);
  pthread_mutex_lock(&queue_lock);
  closing = 1;
  pthread_cond_broadcast(&queue_ready);
  pthread_mutex_unlock(&queue_lock);
  for (int i = 0; i < 4; ++i) pthread_join(pool[i], NULL);
  printf("parked_pool: %lx\n", h);
  return 0;
}
