#include "http/prometheus_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace perfdm {

namespace {

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // The shortest form that reads back as the same double.
  char buf[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string escaped(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

void family(std::ostringstream& out, const char* name, const char* type, const char* help) {
  out << "# HELP " << name << ' ' << help << '\n' << "# TYPE " << name << ' ' << type << '\n';
}

std::string labels(const prometheus_histogram& h) {
  return "{metric=\"" + escaped(h.metric) + "\",focus=\"" + escaped(h.focus) + "\",phase=\"" +
         escaped(h.phase) + "\"}";
}

}  // namespace

void summarise_buckets(const std::vector<double>& values, prometheus_histogram& h) {
  h.total = 0;
  for (double v : values)
    if (!std::isnan(v)) h.total += v;
  h.has_latest = values.size() >= 2;
  if (h.has_latest) h.latest = values[values.size() - 2];
}

std::string prometheus_exposition(const prometheus_snapshot& s) {
  std::ostringstream out;
  family(out, "perfdm_bucket_value", "gauge",
         "The value of the latest completed histogram bucket of a metric instance (NaN: empty).");
  for (auto& h : s.histograms)
    if (h.has_latest) out << "perfdm_bucket_value" << labels(h) << ' ' << number(h.latest) << '\n';
  family(out, "perfdm_bucket_width_seconds", "gauge",
         "The bucket width of a metric instance's histogram.");
  for (auto& h : s.histograms)
    out << "perfdm_bucket_width_seconds" << labels(h) << ' ' << number(h.width) << '\n';
  family(out, "perfdm_value_total", "counter",
         "The running total of a COUNTER metric instance: every bucket of its histogram.");
  for (auto& h : s.histograms)
    if (h.counter) out << "perfdm_value_total" << labels(h) << ' ' << number(h.total) << '\n';
  family(out, "perfdm_metric_instances", "gauge", "Metric instances not deleted.");
  out << "perfdm_metric_instances " << s.metric_instances << '\n';
  family(out, "perfdm_engine_clock_seconds", "gauge", "The engine's clock.");
  out << "perfdm_engine_clock_seconds " << number(s.clock) << '\n';
  family(out, "perfdm_sampling_interval_seconds", "gauge", "The sampling interval (S1-S5).");
  out << "perfdm_sampling_interval_seconds " << number(s.interval) << '\n';
  family(out, "perfdm_clients", "gauge",
         "Client connections open: TCP gateway and dashboard WebSockets.");
  out << "perfdm_clients " << s.clients << '\n';
  if (s.has_samples) {
    family(out, "perfdm_samples_total", "counter",
           "Samples the data manager put into a collecting metric instance (SAMPLES and data "
           "sources).");
    out << "perfdm_samples_total " << s.samples << '\n';
    family(out, "perfdm_samples_dropped_total", "counter",
           "Samples the data manager took in for a metric instance deleted or not collecting.");
    out << "perfdm_samples_dropped_total " << s.samples_dropped << '\n';
  }
  const struct {
    const char* name;
    const char* help;
    std::uint64_t prometheus_frames::*field;
  } frame_counts[] = {
      {"perfdm_frames_read_total", "Frames read from an attached process.",
       &prometheus_frames::read},
      {"perfdm_frames_lost_total", "Frames overwritten before they were read.",
       &prometheus_frames::lost},
      {"perfdm_frames_torn_total", "Frames begun but never committed.", &prometheus_frames::torn},
  };
  for (auto& c : frame_counts) {
    family(out, c.name, "counter", c.help);
    for (auto& f : s.frames)
      out << c.name << "{process=\"" << escaped(f.process) << "\",type=\"" << escaped(f.type)
          << "\"} " << f.*c.field << '\n';
  }
  return out.str();
}

}  // namespace perfdm
