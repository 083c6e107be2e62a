// A randomized property of the whole Data Manager, through the replay engine (rules B3, B4,
// B8, N2, N4): over random ENABLE, DISABLE, PHASE and SAMPLES sequences, every histogram's
// values add up to the COUNTER amounts that fell inside it: nothing lost, nothing counted
// twice, across folds, phases and archives.
//
// The oracle trusts the engine only for which histograms exist and whether an MI collected a
// request's samples (STATUS after every request, COUNT of each SAMPLES reply); what each
// histogram must hold is computed here from the samples alone: a sample over [t0, t1) gives a
// histogram starting at S its amount x the share of [t0, t1) from S on (B3, B8); a zero-length
// sample gives its whole amount when t0 >= S.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "cli/xml_session.hpp"

using namespace perfdm;

namespace {

using ms = std::int64_t;  // times here are whole milliseconds, exact in the engine's ns clock

std::string dm(const std::string& command, const std::string& arg = "") {
  return "<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>";
}

std::string seconds(ms t) {
  std::ostringstream o;
  o << t / 1000 << '.' << std::string(3 - std::to_string(t % 1000).size(), '0') << t % 1000;
  return o.str();
}

std::string attribute(const std::string& xml, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(xml, m, std::regex(" " + name + "='([^']*)'"))) return {};
  return m[1];
}

// The reply's element `name` onwards (the envelope has an ID of its own).
std::string element(const std::string& xml, const std::string& name) {
  auto at = xml.find("<" + name + " ");
  return at == std::string::npos ? std::string() : xml.substr(at);
}

std::uint64_t number(const std::string& xml, const std::string& name) {
  auto text = attribute(xml, name);
  INFO(xml);
  REQUIRE(!text.empty());
  return std::stoull(text);
}

// The amount of one COUNTER sample that falls into a histogram starting at `start` (ms).
double share(ms t0, ms t1, double amount, ms start) {
  if (t0 == t1) return t0 >= start ? amount : 0.0;  // B3 zero length; B8
  if (t1 <= start) return 0.0;                      // B8
  if (t0 >= start) return amount;
  return amount * static_cast<double>(t1 - start) / static_cast<double>(t1 - t0);
}

// What the oracle expects of one MI.
struct expected_mi {
  double global = 0;
  bool has_current = false;
  ms current_start = 0;
  double current = 0;
  std::map<std::uint64_t, double> archived;  // by phase id
};

struct observed_mi {
  bool collecting = false;
  bool has_current = false;
  std::set<std::uint64_t> archived;
};

class conservation_run {
 public:
  explicit conservation_run(std::uint32_t seed) : rng_(seed) {
    for (auto name : {"cpu", "io", "net"})
      run(dm("DEFINE", std::string("<METRIC NAME='") + name + "' STYLE='COUNTER'/>"));
    run(dm("STREAM"));
    run(dm("STREAM"));
  }

  void step() {
    auto pick = std::uniform_int_distribution<int>(0, 99)(rng_);
    if (pick < 15)
      enable();
    else if (pick < 25)
      disable();
    else if (pick < 31)
      phase();
    else
      samples();
    observe();
  }

  // Reads every histogram the engine holds and compares it with the oracle.
  void check_all() {
    for (auto& [id, e] : expected_) {
      check(id, "GLOBAL", e.global);
      if (e.has_current) check(id, "CURRENT", e.current);
      for (auto& [phase, sum] : e.archived) check(id, std::to_string(phase), sum);
    }
  }

  std::size_t folds() const { return folds_; }
  std::size_t phases() const { return current_phase_; }

 private:
  std::vector<std::string> run(const std::string& xml) {
    std::vector<std::string> out;
    session_.run_line(xml, [&](const session_line& l) { out.push_back(l.xml); });
    REQUIRE(!out.empty());
    for (auto& line : out)
      if (line.find(" FOLD=") != std::string::npos) ++folds_;
    return out;
  }

  int any(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void enable() {
    static const char* metrics[] = {"cpu", "io", "net"};
    std::string extra;
    if (any(3) == 0) extra += " PERSISTENT_DATA='true'";
    if (any(5) == 0) extra += " PERSISTENT_COLLECTION='true'";
    auto reply = run(dm("ENABLE", "<ENABLE STREAM='" + std::to_string(any(2)) + "' METRIC='" +
                                      metrics[any(3)] + "' PHASE='" +
                                      (any(2) ? "CURRENT" : "GLOBAL") + "'" + extra + "/>"))
                     .back();
    expected_.try_emplace(
        number(element(reply, "MI"), "ID"));  // a new MI starts with nothing (E1 reuses one)
  }

  void disable() {
    if (observed_.empty()) return;
    auto i = std::next(observed_.begin(), any(static_cast<int>(observed_.size())));
    // Not always a user: D4 refuses and changes nothing, which the oracle sees too.
    run(dm("DISABLE", "<DISABLE STREAM='" + std::to_string(any(2)) + "' MI='" +
                          std::to_string(i->first) + "' PHASE='" + (any(2) ? "CURRENT" : "GLOBAL") +
                          "'/>"));
  }

  void phase() {
    auto reply = run(dm("PHASE")).back();
    current_phase_ = number(element(reply, "PHASE"), "ID");
    phase_start_ = std::llround(std::stod(attribute(element(reply, "PHASE"), "START")) * 1000);
    new_phase_ = true;
  }

  void samples() {
    if (observed_.empty()) return;
    auto mi = std::next(observed_.begin(), any(static_cast<int>(observed_.size())))->first;
    std::vector<std::array<double, 3>> batch;  // t0, t1 (ms), amount
    std::string body;
    for (int n = 1 + any(4); n > 0; --n) {
      ms t0, t1;
      switch (any(10)) {
        case 0:  // zero length at a histogram's start (B3, B8)
          t0 = t1 = any(2) ? phase_start_ : 0;
          break;
        case 1:  // late, straddling the current phase's start (B8)
          t0 = std::max<ms>(0, phase_start_ - 1 - any(500));
          t1 = phase_start_ + any(500);
          break;
        case 2:  // a long one: folds (B4), perhaps of both time bases
          t0 = now_;
          t1 = now_ + 1 + any(300'000);
          break;
        case 3:  // zero length now
          t0 = t1 = now_;
          break;
        default:
          t0 = now_ + any(50);
          t1 = t0 + 1 + any(400);
      }
      now_ = std::max(now_, t1);
      double amount = 1 + any(100);
      batch.push_back({static_cast<double>(t0), static_cast<double>(t1), amount});
      body += "<S MI='" + std::to_string(mi) + "' START='" + seconds(t0) + "' END='" + seconds(t1) +
              "' VALUE='" + std::to_string(static_cast<int>(amount)) + "'/>";
    }
    auto reply = run(dm("SAMPLES", "<SAMPLES>" + body + "</SAMPLES>")).back();
    auto count = number(reply, "COUNT");
    // No flag is cleared here, so an MI collects all of a request or none of it.
    REQUIRE((count == 0 || count == batch.size()));
    if (count == 0) return;
    auto& e = expected_[mi];
    for (auto& [t0, t1, amount] : batch) {
      e.global += share(static_cast<ms>(t0), static_cast<ms>(t1), amount, 0);
      if (e.has_current)
        e.current += share(static_cast<ms>(t0), static_cast<ms>(t1), amount, e.current_start);
    }
  }

  // STATUS: which MIs and histograms exist now; the oracle follows.
  void observe() {
    auto reply = run(dm("STATUS")).back();
    std::map<std::uint64_t, observed_mi> now;
    static const std::regex mi_element("<MI [^>]*/>");
    for (auto i = std::sregex_iterator(reply.begin(), reply.end(), mi_element);
         i != std::sregex_iterator(); ++i) {
      auto xml = i->str();
      observed_mi o;
      o.collecting = attribute(xml, "COLLECTING") == "true";
      o.has_current = attribute(xml, "HISTOGRAMS") == "GLOBAL CURRENT";
      std::istringstream archived(attribute(xml, "ARCHIVED"));
      for (std::uint64_t p; archived >> p;) o.archived.insert(p);
      now.emplace(number(xml, "ID"), o);
    }
    for (auto i = expected_.begin(); i != expected_.end();) {
      auto o = now.find(i->first);
      if (o == now.end()) {  // deleted: its handle is never used again (H3)
        i = expected_.erase(i);
        continue;
      }
      auto& e = i->second;
      if (new_phase_ && e.has_current) {
        // N2: the old phase's current histogram is archived under its handle, or dropped.
        auto old_phase = current_phase_ - 1;
        if (o->second.archived.count(old_phase)) e.archived[old_phase] = e.current;
        e.has_current = false;
      }
      if (o->second.has_current && !e.has_current) {  // a new current histogram (E3, N4)
        e.has_current = true;
        e.current = 0;
        e.current_start = phase_start_;
      }
      if (!o->second.has_current) e.has_current = false;  // D2
      for (auto p : o->second.archived) REQUIRE(e.archived.count(p) == 1);
      ++i;
    }
    new_phase_ = false;
    observed_ = std::move(now);
  }

  void check(std::uint64_t mi, const std::string& phase, double expected) {
    auto reply =
        run(dm("DATA", "<DATA MI='" + std::to_string(mi) + "' PHASE='" + phase + "'/>")).back();
    auto open = reply.find("<HISTOGRAM ");
    REQUIRE(open != std::string::npos);
    auto body_start = reply.find('>', open) + 1;
    std::istringstream body(reply.substr(body_start, reply.find("</HISTOGRAM>") - body_start));
    double sum = 0;
    for (std::string v; body >> v;)
      if (v != "nan") sum += std::stod(v);
    INFO("MI " << mi << " PHASE " << phase << ": " << reply.substr(0, 200));
    CHECK(sum == Approx(expected).epsilon(1e-9).margin(1e-9));
  }

  std::mt19937 rng_;
  session session_{session_options{}};
  std::map<std::uint64_t, expected_mi> expected_;
  std::map<std::uint64_t, observed_mi> observed_;
  std::uint64_t current_phase_ = 0;
  ms phase_start_ = 0;
  bool new_phase_ = false;
  ms now_ = 0;
  std::size_t folds_ = 0;
};

}  // namespace

TEST_CASE("B3 B4 B8 N2 every COUNTER histogram holds exactly the amounts that fell inside it",
          "[dm][property][B3][B4][B8][N2]") {
  std::size_t folds = 0, phases = 0;
  for (std::uint32_t seed = 1; seed <= 24; ++seed) {
    INFO("seed " << seed);
    conservation_run r(seed);
    for (int step = 0; step < 120; ++step) {
      r.step();
      if (step % 40 == 39) r.check_all();
    }
    r.check_all();
    folds += r.folds();
    phases += r.phases();
  }
  // The sequences reach what the property is about.
  CHECK(folds > 20);
  CHECK(phases > 20);
}
