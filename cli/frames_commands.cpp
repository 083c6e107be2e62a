#include "cli/frames_commands.hpp"
#include "cli/stop_signals.hpp"

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "shm/attach.hpp"
#include "shm/codegen.hpp"
#include "shm/frame_reader.hpp"
#include "shm/schema.hpp"
#include "shm/segment.hpp"
#include "shm/shm_error.hpp"
#include "trace/frames_trace.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

namespace {

gen_command_options gen_options;
read_command_options read_options;
CLI::App* gen_app = nullptr;
CLI::App* read_app = nullptr;
attach_command_options attach_options;
int detach_pid = 0;
CLI::App* attach_app = nullptr;
CLI::App* detach_app = nullptr;

std::string segment_name_of(const std::string& arg) {
  const std::string dev_shm = "/dev/shm/";
  return arg.compare(0, dev_shm.size(), dev_shm) == 0 ? arg.substr(dev_shm.size()) : arg;
}

}  // namespace

void add_frames_commands(CLI::App& app) {
  gen_app = app.add_subcommand(
      "gen", "Generate the frames component (SCHEMA's <stem>_frames.h and <stem>_frames.cpp)");
  gen_app->add_option("SCHEMA", gen_options.schema, "the schema: C struct declarations")
      ->required();
  gen_app->add_option("-o,--output", gen_options.out_dir, "the directory to write into");
  gen_app->add_option("--clock", gen_options.clock,
                      "perfdm_time of a frame: tsc (read the time stamp counter per frame, the "
                      "default) or reader (copy the time the reader last stored: no clock read, "
                      "accurate to the reader's polling period)");

  read_app = app.add_subcommand(
      "read", "Print the frames of a segment as tab-separated rows until Ctrl-C or SIGTERM");
  read_app->add_option("SEGMENT", read_options.segment, "perfdm.<pid>.<handle> (/dev/shm/...)")
      ->required();
  read_app->add_option("--trace-event", read_options.trace_event,
                       "write the frames as a Chrome trace (JSON, for Perfetto and "
                       "chrome://tracing) to this file instead of rows: a counter track per field");
  read_app->add_option("--pid", read_options.pid,
                       "stop once this process has exited and every frame is read");

  attach_app =
      app.add_subcommand("attach",
                         "Attach to a running program built with a generated frames component: "
                         "create its segments and write their handles (prints struct and segment)");
  attach_app->add_option("PID", attach_options.pid, "the running program")->required();
  attach_app->add_option("--schema", attach_options.schema,
                         "attach only this schema's frame types, which must match exactly");
  attach_app->add_flag("--force", attach_options.force,
                       "take over a program another perfdm left attached");
  attach_app->add_option("--lanes", attach_options.lanes, "writer threads at once")
      ->check(CLI::Range(1, 1024));
  attach_app->add_option("--capacity", attach_options.capacity, "frames per lane, a power of two")
      ->check(CLI::Range(64, 16777216));
  detach_app = app.add_subcommand(
      "detach", "Detach from a program: write 0 into its handles and remove its segments");
  detach_app->add_option("PID", detach_pid, "the program")->required();
}

int run_frames_commands() {
  if (gen_app && *gen_app) return run_gen_command(gen_options, std::cerr);
  if (read_app && *read_app) {
    install_stop_signals();
    signal(SIGPIPE, SIG_IGN);  // a closed output ends the read with an error instead
    return run_read_command(read_options, stdout, std::cerr);
  }
  if (attach_app && *attach_app) return run_attach_command(attach_options, std::cout, std::cerr);
  if (detach_app && *detach_app) return run_detach_command(detach_pid, std::cout, std::cerr);
  return -1;
}

int run_gen_command(const gen_command_options& o, std::ostream& err) {
  const auto clock = shm::parse_writer_clock(o.clock);
  if (!clock) {
    err << "perfdm gen: --clock must be tsc or reader, not '" << o.clock << "'\n";
    return 1;
  }
  try {
    std::vector<std::string> notes;
    const auto written = shm::write_frames_code(o.schema, o.out_dir, *clock, &notes);
    for (const auto& note : notes) err << note << '\n';  // file:line:col: note: …
    for (const auto& path : written) err << "perfdm gen: wrote " << path << '\n';
    return 0;
  } catch (const shm::schema_error& e) {
    err << e.what() << '\n';  // file:line:col: reason, as compilers print
  } catch (const std::exception& e) {
    err << "perfdm gen: " << e.what() << '\n';
  }
  return 1;
}

int run_read_command(const read_command_options& o, std::FILE* out, std::ostream& err) {
  try {
    shm::frame_reader reader(segment_name_of(o.segment));
    const auto& layout = reader.layout();
    std::ofstream trace_file;
    std::optional<frames_trace> trace;
    if (!o.trace_event.empty()) {
      trace_file.open(o.trace_event, std::ios::binary | std::ios::trunc);
      if (!trace_file) {
        err << "perfdm read: cannot write " << o.trace_event << '\n';
        return 1;
      }
      trace.emplace(trace_file, layout, reader.writer_pid(), o.segment);
    }
    std::string row = "seq\ttime_ns\tlane";
    // Columns: every field, a numeric array's elements one by one (name[i]).
    const auto fields = shm::element_fields(layout);
    for (std::size_t i = 2; i < fields.size(); ++i)
      row += "\t" + layout.struct_name + "." + fields[i].name;
    row += '\n';
    bool output_failed = !trace && std::fputs(row.c_str(), out) < 0;
    auto print = [&](const std::byte* frame, std::int64_t ns, std::uint32_t lane) {
      if (trace) {
        trace->frame(frame, ns);
        return;
      }
      row = shm::field_text(fields[0], frame);
      row += '\t';
      row += std::to_string(ns);
      row += '\t';
      row += std::to_string(lane);
      for (std::size_t i = 2; i < fields.size(); ++i) {
        row += '\t';
        row += shm::field_text(fields[i], frame);
      }
      row += '\n';
      if (std::fwrite(row.data(), 1, row.size(), out) != row.size()) output_failed = true;
    };
    bool told_mismatch = false;
    while (!stop_requested() && !output_failed) {
      if (reader.poll_lanes(print) != 0) continue;
      if (std::fflush(out) != 0) output_failed = true;
      if (!told_mismatch && reader.writer_state() == shm::format::writer_mismatch) {
        told_mismatch = true;
        err << "perfdm read: the writer (pid " << reader.writer_pid()
            << ") refused the segment: its frame layout or clock differs\n";
      }
      if (o.pid > 0 && !proc::process_alive(o.pid)) {
        while (reader.poll_lanes(print) != 0) {
        }
        reader.writer_gone();
        break;
      }
      // A writer on the reader's clock stamps frames with the time of the last poll: idle
      // polls keep that time within a millisecond (docs/FRAMES.md §3).
      std::this_thread::sleep_for(std::chrono::milliseconds(reader.uses_reader_clock() ? 1 : 2));
    }
    std::fflush(out);
    const auto c = reader.counters();
    if (trace) {
      trace->finish(c.read, c.lost, c.torn);
      trace_file.flush();
      if (!trace_file) output_failed = true;
    }
    err << "frames read " << c.read << ", lost " << c.lost << ", torn " << c.torn << '\n';
    if (c.no_lane_drops || c.transition_drops)
      err << "frames dropped by the writer: no free lane " << c.no_lane_drops << ", during attach "
          << c.transition_drops << '\n';
    if (output_failed) {
      err << "perfdm read: cannot write the output\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    err << "perfdm read: " << e.what() << '\n';
    return 1;
  }
}

int run_attach_command(const attach_command_options& o, std::ostream& out, std::ostream& err) {
  try {
    shm::attach_options a;
    if (!o.schema.empty()) a.expected = shm::schema_descriptors(o.schema);
    a.force = o.force;
    shm::segment_options geometry{o.lanes, o.capacity};
    a.create_segment = [geometry](int pid, const std::string&, const std::string& descriptor,
                                  std::uint64_t handle, std::uint32_t clock) {
      auto with_clock = geometry;
      with_clock.clock = clock;
      return shm::segment::create_for_attach(pid, descriptor, handle, with_clock);
    };
    auto attached = shm::attach(o.pid, a);
    for (auto& f : attached.frames) out << f.struct_name << '\t' << f.segment << '\n';
    err << "perfdm attach: process " << attached.pid << " (" << attached.name << ") writes "
        << attached.frames.size() << " frame type(s); read them with `perfdm read SEGMENT --pid "
        << attached.pid << "`, stop with `perfdm detach " << attached.pid << "`\n";
    return 0;
  } catch (const shm::attach_error& e) {
    err << "perfdm attach: " << shm::to_string(e.code) << ": " << e.what() << '\n';
  } catch (const std::exception& e) {
    err << "perfdm attach: " << e.what() << '\n';
  }
  return 1;
}

int run_detach_command(int pid, std::ostream& out, std::ostream& err) {
  try {
    shm::detach(pid);
    out << "detached from process " << pid << '\n';
    return 0;
  } catch (const shm::attach_error& e) {
    err << "perfdm detach: " << shm::to_string(e.code) << ": " << e.what() << '\n';
  }
  return 1;
}

}  // namespace perfdm
