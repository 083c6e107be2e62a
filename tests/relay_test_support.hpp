// For the relay tests: real processes on 127.0.0.1 — `perfdm relay` and daemons
// below it — and readings of the engine's DATA and TOPOLOGY replies.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/live_engine_test_support.hpp"
#include "tests/remote_test_support.hpp"

namespace perfdm::relay_test {

using remote_test::eventually;
using remote_test::process;
using remote_test::run_client;

// `perfdm relay --upstream UPSTREAM --publish 127.0.0.1:0 --name NAME`; its port is read from
// its standard error.
class relay_process {
 public:
  relay_process(const std::string& upstream, const std::string& name,
                std::vector<std::string> extra = {})
      : p_(with({PERFDM_BINARY, "relay", "--upstream", upstream, "--publish", "127.0.0.1:0",
                 "--name", name},
                extra),
           "", "relay") {
    bool up = eventually([&] { return (port_ = remote_test::published_port(p_)) != 0; });
    if (!up) throw std::runtime_error("the relay did not publish: " + p_.err());
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  process& proc() { return p_; }

 private:
  static std::vector<std::string> with(std::vector<std::string> argv,
                                       const std::vector<std::string>& extra) {
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }
  process p_;
  int port_ = 0;
};

inline std::unique_ptr<process> start_daemon(const std::string& upstream, const std::string& name,
                                      const test::workload& w) {
  return std::make_unique<process>(
      std::vector<std::string>{PERFDM_BINARY, "daemon", "--upstream", upstream, "--name", name,
                               "--attach", std::to_string(w.pid)},
      "", "relay_daemon");
}

inline bool forwarding(const process& daemon) {
  return daemon.err().find("forwarding to") != std::string::npos;
}

inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The buckets of MI `mi` as DATA prints them ("" when it printed no histogram).
inline std::string histogram_text(const std::string& engine, int mi) {
  auto r = run_client(engine, {"DATA", "MI=" + std::to_string(mi)});
  std::smatch m;
  if (!std::regex_search(r.out, m, std::regex(">([^<]*)</HISTOGRAM>"))) return "";
  return m[1].str();
}

// Every bucket of MI `mi` as DATA prints it, an empty one as NaN (DATA's "nan").
inline std::vector<double> buckets(const std::string& engine, int mi) {
  std::istringstream in(histogram_text(engine, mi));
  std::vector<double> out;
  for (std::string word; in >> word;) out.push_back(std::strtod(word.c_str(), nullptr));
  return out;
}

inline std::string focus(const test::workload& w) {
  return " FOCUS=/Process/perfdm_workload{" + std::to_string(w.pid) + "}";
}

// A watcher that enabled work.requests over the whole program (MI 0) and over each of two
// workloads (MIs 1 and 2), once its four replies came.
inline std::unique_ptr<process> watch_whole_and_each(const std::string& engine,
                                                     const test::workload& w1,
                                                     const test::workload& w2) {
  auto watcher = remote_test::start_client(
      engine, {"--watch"},
      "STREAM\nENABLE STREAM=$STREAM METRIC=work.requests\nENABLE STREAM=$STREAM "
      "METRIC=work.requests" +
          focus(w1) + "\nENABLE STREAM=$STREAM METRIC=work.requests" + focus(w2) + "\n");
  REQUIRE(eventually([&] { return count(watcher->out(), "<DYPER_REPLY") == 4; }));
  return watcher;
}

// The attribute `key` of the NODE named `name` in a TOPOLOGY reply ("" when no such node).
inline std::string node_attribute(const std::string& topology, const std::string& name,
                           const std::string& key) {
  std::smatch m;
  std::regex node("<NODE NAME='" + name + "'[^>]*>");
  if (!std::regex_search(topology, m, node)) return "";
  std::smatch a;
  std::string text = m[0].str();
  if (!std::regex_search(text, a, std::regex(" " + key + "='([^']*)'"))) return "";
  return a[1].str();
}


}  // namespace perfdm::relay_test
