// The one translation unit of frames_bench that instantiates the tracepoint's probes and
// its definition (LTTng-UST requires exactly one of each per program).
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "perfdm_bench_tp.h"
