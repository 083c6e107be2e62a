/* The layout descriptors of the attach tests' target program, shared by the program (which
   embeds them as generated code does) and the tests (which expect them). Their text stands
   for what `perfdm gen` writes; attach only compares descriptors, it does not parse them. */
#ifndef PERFDM_TESTS_ATTACH_LAYOUTS_H
#define PERFDM_TESTS_ATTACH_LAYOUTS_H

#define ATTACH_DEMO_LAYOUT                                                                      \
  "perfdm-layout 1\nstruct demo size 32 align 8\nfield perfdm_seq u64 0 8 seq\n"               \
  "field perfdm_time u64 8 8 time\nfield requests u64 16 8 counter requests\n"                 \
  "field queue_depth f64 24 8 sampled items\n"

#define ATTACH_TICKS_LAYOUT                                                                     \
  "perfdm-layout 1\nstruct ticks size 24 align 8\nfield perfdm_seq u64 0 8 seq\n"              \
  "field perfdm_time u64 8 8 time\nfield ticks u32 16 4 counter\nfield busy bool 20 1 sampled\n"

#endif
