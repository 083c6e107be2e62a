/* tests/pc_rules/slow_consumer.c with a Coz progress point, for bench/pc/precision.sh: one
 * progress per item the consumer takes off the queue (its signal that space is free), so Coz's
 * experiments measure the pipeline's throughput without a copy of the program. */
#define _GNU_SOURCE
#include <pthread.h>

#include <coz.h>

static inline int item_taken(pthread_cond_t* cond) {
  COZ_PROGRESS_NAMED("item");
  return pthread_cond_signal(cond);
}

/* Only the consumer signals not_full; the producer's signal of not_empty counts nothing. */
#define pthread_cond_signal(cond) ((cond) == &not_full ? item_taken(cond) : pthread_cond_signal(cond))

#include "slow_consumer.c"
