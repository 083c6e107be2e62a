/* A pipeline whose consumer is slow: the producer makes items cheaply and waits for space in
 * a bounded queue; the consumer renders each item at length. The bottleneck is the consumer's
 * render_item; the producer's wait for queue space is caused by it.
 *
 *   slow_consumer [seconds]   (default 10)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "monotonic.h"

#define CAPACITY 16

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static unsigned long items[CAPACITY];
static int head = 0, count = 0, done = 0;
static double end_time;

__attribute__((noinline)) static unsigned long make_item(unsigned long seed) {
  unsigned long h = seed;
  for (int i = 0; i < 1000000; ++i) h = h * 2862933555777941757UL + 3037000493UL + (h >> 17);
  return h;
}

__attribute__((noinline)) static unsigned long render_item(unsigned long item) {
  unsigned long h = item;
  for (int i = 0; i < 3000000; ++i) h = (h ^ (h >> 31)) * 0x9e3779b97f4a7c15UL + (unsigned long)i;
  return h;
}

static void* producer(void* arg) {
  (void)arg;
  unsigned long seed = 1;
  while (now() < end_time) {
    seed = make_item(seed);
    pthread_mutex_lock(&queue_lock);
    while (count == CAPACITY) pthread_cond_wait(&not_full, &queue_lock);
    items[(head + count) % CAPACITY] = seed;
    ++count;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&queue_lock);
  }
  pthread_mutex_lock(&queue_lock);
  done = 1;
  pthread_cond_broadcast(&not_empty);
  pthread_mutex_unlock(&queue_lock);
  return NULL;
}

static void* consumer(void* arg) {
  unsigned long* sum = arg;
  for (;;) {
    pthread_mutex_lock(&queue_lock);
    while (count == 0 && !done) pthread_cond_wait(&not_empty, &queue_lock);
    if (count == 0 && done) {
      pthread_mutex_unlock(&queue_lock);
      break;
    }
    unsigned long item = items[head];
    head = (head + 1) % CAPACITY;
    --count;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&queue_lock);
    *sum += render_item(item);
  }
  return NULL;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  end_time = now() + seconds;
  unsigned long sum = 0;
  pthread_t p, c;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, &sum);
  pthread_setname_np(p, "producer");
  pthread_setname_np(c, "consumer");
  pthread_join(p, NULL);
  /* Items still queued when the time is over are dropped: the run ends on time. */
  pthread_mutex_lock(&queue_lock);
  count = 0;
  pthread_mutex_unlock(&queue_lock);
  pthread_join(c, NULL);
  printf("slow_consumer: %lx\n", sum);
  return 0;
}
