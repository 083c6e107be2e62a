// LTTng-UST tracepoint provider for frames_bench: the event `perfdm_bench:frame32` carries the
// payload of a 32-byte bench32 frame (two u64 counters); LTTng adds its own timestamp and
// sequence in the event header, as perfdm_time and perfdm_seq do in the frame.
// Probes are created in perfdm_bench_tp.cpp (TRACEPOINT_CREATE_PROBES, TRACEPOINT_DEFINE).
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER perfdm_bench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./perfdm_bench_tp.h"

#if !defined(PERFDM_BENCH_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define PERFDM_BENCH_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_EVENT(perfdm_bench, frame32,
                 TP_ARGS(uint64_t, requests, uint64_t, bytes),
                 TP_FIELDS(ctf_integer(uint64_t, requests, requests)
                               ctf_integer(uint64_t, bytes, bytes)))

#endif  // PERFDM_BENCH_TP_H

#include <lttng/tracepoint-event.h>
