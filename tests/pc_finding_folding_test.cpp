// Sub-graph folding of the findings (pc/finding_folding.hpp): the same hypothesis at the same
// code in many processes reads once, "in N of P processes", with the processes that differ;
// what names no process, or one process only, reads as before.
#include <catch2/catch.hpp>

#include "cli/search_report.hpp"
#include "pc/finding_folding.hpp"
#include "pc/search_wire.hpp"

using namespace perfdm::pc;

namespace {

std::uint64_t next_id = 1;

node_view node(std::string hyp, std::string code, std::string machine, std::string state,
               double value, double since = 1.0, std::string sync = "/SyncObject") {
  node_view n;
  n.id = next_id++;
  n.hypothesis = std::move(hyp);
  n.code = std::move(code);
  n.machine = std::move(machine);
  n.syncobject = std::move(sync);
  n.state = std::move(state);
  n.value = value;
  n.threshold = n.hypothesis == "CPUbound" ? 0.3 : 0.2;
  n.since = n.state == "true" ? since : -1;
  return n;
}

std::string thread_of(int pid) {
  return "/Machine/h/job{" + std::to_string(pid) + "}/job{" + std::to_string(pid) + "}";
}

// One finding per node, as findings() makes it, ranked by the order given.
std::vector<finding> ranked(const std::vector<node_view>& nodes) {
  std::vector<finding> out;
  for (auto& n : nodes) out.push_back(finding_of(n, nodes));
  return out;
}

std::vector<searched_process> procs(std::initializer_list<int> pids) {
  std::vector<searched_process> out;
  for (auto p : pids) out.push_back({p, "", "job", ""});
  return out;
}

}  // namespace

TEST_CASE("pc folding: the same hypothesis at the same code folds across processes, outlier apart",
          "[pc]") {
  std::vector<node_view> nodes;
  for (int pid : {101, 102, 103})
    nodes.push_back(node("CPUbound", "/Code/job/relax", thread_of(pid), "true", 0.93 + pid % 10 * 0.02,
                         1.0 + pid % 10 * 0.1));
  nodes.push_back(node("ExcessiveSyncWaitingTime", "/Code/job/hold_and_wait", thread_of(104), "true",
                       0.71, 0.8, "/SyncObject/Mutex/0x10"));
  auto f = ranked(nodes);
  auto folded = fold_findings(f, procs({101, 102, 103, 104}));
  REQUIRE(folded.size() == 2);
  auto& cpu = folded[0];
  CHECK(cpu.folded);
  CHECK(cpu.members.size() == 3);
  CHECK(cpu.pids == std::vector<int>{101, 102, 103});
  CHECK(cpu.of == 4);
  CHECK(cpu.machine == "/Machine/h");  // what the members share
  CHECK(cpu.since == Approx(1.1));     // the earliest member's
  CHECK(cpu.text == "CPUbound 95\u201399% of time in relax (job) \u2014 in 3 of 4 processes \u2014 since 1.1 s");
  REQUIRE(cpu.outliers.size() == 1);
  CHECK(cpu.outliers[0].pid == 104);
  CHECK(cpu.outliers[0].process == "job{104}");
  CHECK(cpu.outliers[0].text == f[3].text);
  CHECK(cpu.line == cpu.text + "; process job{104}: " + f[3].text);
  // The outlier's own finding is one process: as it was.
  CHECK_FALSE(folded[1].folded);
  CHECK(folded[1].text == f[3].text);
  CHECK(folded[1].pids == std::vector<int>{104});
}

TEST_CASE("pc folding: lock waits at the same code fold though each process's lock differs", "[pc]") {
  std::vector<node_view> nodes = {
      node("ExcessiveSyncWaitingTime", "/Code/job/update", thread_of(201), "true", 0.6, 1.0,
           "/SyncObject/Mutex/0xA"),
      node("ExcessiveSyncWaitingTime", "/Code/job/update", thread_of(202), "true", 0.5, 1.2,
           "/SyncObject/Mutex/0xB"),
  };
  auto folded = fold_findings(ranked(nodes), procs({201, 202}));
  REQUIRE(folded.size() == 1);
  CHECK(folded[0].folded);
  CHECK(folded[0].syncobject == "/SyncObject/Mutex");
  CHECK(folded[0].outliers.empty());
  CHECK(folded[0].text ==
        "ExcessiveSyncWaitingTime 50\u201360% of time in update (job) \u2014 on Mutex \u2014 in 2 of 2 "
        "processes \u2014 since 1.0 s");
}

TEST_CASE("pc folding: different code, or a process-independent focus, is not folded", "[pc]") {
  std::vector<node_view> nodes = {
      node("CPUbound", "/Code/job/relax", thread_of(301), "true", 0.9),
      node("CPUbound", "/Code/job/smooth", thread_of(302), "true", 0.8),
      node("ExcessiveSyncWaitingTime", "/Code/job/update", "/Machine", "true", 0.4, 1.0,
           "/SyncObject/Mutex/0xA"),
      node("ExcessiveSyncWaitingTime", "/Code/job/update", "/Machine", "true", 0.3, 1.0,
           "/SyncObject/Mutex/0xB"),
  };
  auto f = ranked(nodes);
  auto folded = fold_findings(f, procs({301, 302}));
  REQUIRE(folded.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK_FALSE(folded[i].folded);
    CHECK(folded[i].text == f[i].text);
    CHECK(folded[i].line == f[i].text);
    CHECK(folded[i].of == 2);
  }
  CHECK(folded[2].pids.empty());  // names no process
}

TEST_CASE("pc folding: one process reads exactly as before, its threads' findings included", "[pc]") {
  std::vector<node_view> nodes = {
      node("CPUbound", "/Code/job/relax", "/Machine/h/job{401}/w-1{402}", "true", 0.9),
      node("CPUbound", "/Code/job/relax", "/Machine/h/job{401}/w-2{403}", "true", 0.8),
      node("ExcessiveIOBlockingTime", "/Code", "/Machine", "true", 0.3),
  };
  auto f = ranked(nodes);
  for (auto& processes : {procs({401}), procs({})}) {
    auto folded = fold_findings(f, processes);
    REQUIRE(folded.size() == f.size());
    for (std::size_t i = 0; i < f.size(); ++i) {
      CHECK_FALSE(folded[i].folded);
      CHECK(folded[i].line == f[i].text);
      CHECK(folded[i].members.size() == 1);
      CHECK(folded[i].outliers.empty());
    }
  }
}

TEST_CASE("pc folding: an outlier without a finding shows the hypothesis false there, or none",
          "[pc]") {
  std::vector<node_view> nodes = {
      node("CPUbound", "/Code/job/relax", thread_of(501), "true", 1.0),
      node("CPUbound", "/Code/job/relax", thread_of(502), "true", 1.0),
      node("CPUbound", "/Code", "/Machine/h/job{503}", "false", 0.0),
      node("CPUbound", "/Code/job/relax", "/Machine/h/job{505}", "unknown", 0.9),
      node("CPUbound", "/Code", "/Machine/h/job{505}", "false", 0.1),  // the deeper code first
  };
  std::vector<finding> f = ranked({nodes[0], nodes[1]});
  auto folded = fold_findings(f, procs({501, 502, 503, 504, 505}), nodes);
  REQUIRE(folded.size() == 1);
  REQUIRE(folded[0].outliers.size() == 3);
  CHECK(folded[0].outliers[0].text == "CPUbound 0% of time \u2014 process job{503} \u2014 concluded false");
  CHECK(folded[0].outliers[1].process == "job{504}");
  CHECK(folded[0].outliers[1].text == "no finding");
  CHECK(folded[0].outliers[2].text ==
        "CPUbound 90% of time in relax (job) \u2014 process job{505} \u2014 not concluded");
}

TEST_CASE("pc folding: an outlier alone on its host shows the hypothesis false at that host",
          "[pc]") {
  // A cluster of one process per daemon's host: the search decided CPUbound at /Machine/h3,
  // which holds the outlier only, and never went down to its process.
  std::vector<node_view> nodes = {
      node("CPUbound", "/Code/job/relax", "/Machine/h1/job{801}/job{801}", "true", 1.0),
      node("CPUbound", "/Code/job/relax", "/Machine/h2/job{802}/job{802}", "true", 1.0),
      node("CPUbound", "/Code/job/relax", "/Machine/h3", "false", 0.0),
      node("CPUbound", "/Code/job/relax", "/Machine/h4", "false", 0.0),
  };
  std::vector<searched_process> processes = {{801, "/Machine/h1/job{801}", "", ""},
                                             {802, "/Machine/h2/job{802}", "", ""},
                                             {803, "/Machine/h3/job{803}", "", ""},
                                             {804, "/Machine/h4/job{804}", "", ""},
                                             {805, "/Machine/h4/job{805}", "", ""}};
  auto folded = fold_findings(ranked({nodes[0], nodes[1]}), processes, nodes);
  REQUIRE(folded.size() == 1);
  REQUIRE(folded[0].outliers.size() == 3);
  CHECK(folded[0].outliers[0].process == "h3:job{803}");
  CHECK(folded[0].outliers[0].text.find("CPUbound 0% of time in relax (job)") == 0);
  CHECK(folded[0].outliers[0].text.find("concluded false") != std::string::npos);
  // h4 holds two processes: its node speaks of neither alone.
  CHECK(folded[0].outliers[1].text == "no finding");
  CHECK(folded[0].outliers[2].text == "no finding");
}

TEST_CASE("pc folding: many outliers are capped in the line but all kept, hosts named when they differ",
          "[pc]") {
  std::vector<node_view> nodes = {
      node("CPUbound", "/Code/job/relax", "/Machine/a/job{601}", "true", 1.0),
      node("CPUbound", "/Code/job/relax", "/Machine/b/job{601}/job{601}", "true", 1.0),
  };
  std::vector<searched_process> processes;
  for (int p = 700; p < 708; ++p) processes.push_back({p, "/Machine/a/job{" + std::to_string(p) + "}", "", ""});
  // The same pid on two hosts is two processes: they fold.
  auto two = fold_findings(ranked(nodes), processes);
  REQUIRE(two.size() == 1);
  CHECK(two[0].pids == std::vector<int>{601, 601});
  CHECK(two[0].hosts == std::vector<std::string>{"a", "b"});
  CHECK(two[0].of == 10);
  nodes.pop_back();
  for (int p = 602; p < 610; ++p)
    nodes.push_back(node("CPUbound", "/Code/job/relax", "/Machine/b/job{" + std::to_string(p) + "}", "true", 1.0));
  auto folded = fold_findings(ranked(nodes), processes);
  REQUIRE(folded.size() == 1);
  CHECK(folded[0].machine == "/Machine");
  CHECK(folded[0].of == 17);
  CHECK(folded[0].pids.size() == 9);
  REQUIRE(folded[0].outliers.size() == 8);
  CHECK(folded[0].outliers[0].process == "a:job{700}");
  CHECK(folded[0].line.find("in 9 of 17 processes") != std::string::npos);
  CHECK(folded[0].line.find("; process a:job{704}: no finding; \u2026 and 3 more processes") !=
        std::string::npos);
  CHECK(folded[0].line.find("job{705}") == std::string::npos);
}

TEST_CASE("pc folding: each process's own pipe folds as one kind of file, a named file does not",
          "[pc]") {
  auto io = [](int pid, std::string file) {
    auto n = node("ExcessiveIOBlockingTime", "/Code/libc.so.6/__write", thread_of(pid), "true", 1.0);
    n.file = std::move(file);
    return n;
  };
  std::vector<node_view> nodes = {io(801, "/File/pipe:[11]"), io(802, "/File/pipe:[12]"),
                                  io(803, "/File/tmp/a.log"), io(804, "/File/tmp/b.log")};
  auto folded = fold_findings(ranked(nodes), procs({801, 802, 803, 804}));
  REQUIRE(folded.size() == 3);
  CHECK(folded[0].file == "/File/pipe:[\u2026]");
  CHECK(folded[0].pids == std::vector<int>{801, 802});
  CHECK(folded[0].text ==
        "ExcessiveIOBlockingTime 100% of time in __write (libc.so.6) \u2014 file /pipe:[\u2026] \u2014 in 2 of 4 "
        "processes \u2014 since 1.0 s");
  CHECK_FALSE(folded[1].folded);
  CHECK_FALSE(folded[2].folded);
}

TEST_CASE("pc folding: a group of half the processes or fewer lists no outlier in its line", "[pc]") {
  std::vector<node_view> nodes = {
      node("CPUbound", "/Code/job/relax", thread_of(901), "true", 1.0),
      node("CPUbound", "/Code/job/relax", thread_of(902), "true", 1.0),
  };
  auto folded = fold_findings(ranked(nodes), procs({901, 902, 903, 904}));
  REQUIRE(folded.size() == 1);
  CHECK_FALSE(outliers_shown(folded[0]));
  CHECK(folded[0].outliers.size() == 2);  // kept, for --json
  CHECK(folded[0].line == folded[0].text);
  folded = fold_findings(ranked(nodes), procs({901, 902, 903}));
  CHECK(outliers_shown(folded[0]));
  CHECK(folded[0].line == folded[0].text + "; process job{903}: no finding");
}

TEST_CASE("pc folding: perfdm search's report over one process is findings_text's, byte for byte",
          "[pc]") {
  std::vector<node_view> nodes = {
      node("CPUbound", "/Code/job/relax", "/Machine/h/job{11}/w-1{12}", "true", 0.9),
      node("CPUbound", "/Code/job/relax", "/Machine/h/job{11}/w-2{13}", "true", 0.8),
      node("ExcessiveSyncWaitingTime", "/Code/job/update", "/Machine", "true", 0.3, 2.0,
           "/SyncObject/Mutex/0xA"),
  };
  std::vector<perfdm::finding_info> infos;
  for (auto& f : ranked(nodes)) {
    perfdm::finding_info i;
    i.rank = infos.size() + 1;
    i.node = f.node.id;
    i.hypothesis = f.node.hypothesis;
    i.code = f.node.code;
    i.machine = f.node.machine;
    i.syncobject = f.node.syncobject;
    i.value = f.node.value;
    i.since = f.node.since;
    i.pid = f.pid;
    i.tid = f.tid;
    i.text = f.text;
    infos.push_back(i);
  }
  std::vector<finding> open = {finding_of(node("ExcessiveIOBlockingTime", "/Code", "/Machine", "unknown", 0.1), nodes)};
  auto folded = fold_findings(findings_of(infos, nodes), procs({11}), nodes);
  CHECK(perfdm::folded_findings_text(folded, open) == perfdm::findings_text(infos, open));
  CHECK(perfdm::folded_findings_text({}, open) == perfdm::findings_text({}, open));
  // Two processes of the same: one line, where findings_text has two.
  nodes[1].machine = "/Machine/h/job{21}/job{21}";
  infos[1].machine = nodes[1].machine;
  infos[1].pid = 21;
  folded = fold_findings(findings_of(infos, nodes), procs({11, 21}), nodes);
  CHECK(perfdm::folded_findings_text(folded, open) ==
        "findings, ranked:\n  1. CPUbound 80\u201390% of time in relax (job) \u2014 in 2 of 2 processes \u2014 since 1.0 s\n"
        "  2. " + infos[2].text + "\nnot concluded when the search ended:\n  " + open[0].text + "\n");
}

TEST_CASE("pc search report: the ranked list stops at eight findings and says how many more",
          "[pc]") {
  std::vector<perfdm::finding_info> infos;
  for (int i = 1; i <= 11; ++i) {
    perfdm::finding_info f;
    f.rank = static_cast<std::uint64_t>(i);
    f.text = "TooManySmallIOOps " + std::to_string(1000 + i) + " bytes per I/O operation in f" +
             std::to_string(i) + " (libsqlite3.so.0)";
    infos.push_back(f);
  }
  auto text = perfdm::findings_text(infos, {});
  CHECK(text.find("  8. TooManySmallIOOps 1008") != std::string::npos);
  CHECK(text.find("  9. ") == std::string::npos);
  CHECK(text.find("  \u2026 and 3 more findings (--json or --shg lists every one)\n") !=
        std::string::npos);
  infos.resize(8);
  auto eight = perfdm::findings_text(infos, {});
  CHECK(eight.find("  8. TooManySmallIOOps 1008") != std::string::npos);
  CHECK(eight.find("more findings") == std::string::npos);
}

TEST_CASE("pc folding: the same pid on two hosts is two processes, folded and told apart",
          "[pc]") {
  // Two containers (pid namespaces) on two hosts, each with its job as pid 1; a third host's
  // pid 1 waits on a lock instead.
  std::vector<node_view> nodes = {
      node("CPUbound", "/Code/job/relax", "/Machine/hA/job{1}/job{1}", "true", 0.98, 1.2),
      node("CPUbound", "/Code/job/relax", "/Machine/hB/job{1}/job{1}", "true", 0.96, 1.4),
      node("ExcessiveSyncWaitingTime", "/Code/libc.so.6/__lll_lock_wait", "/Machine/hC/job{1}",
           "true", 0.9, 1.6, "/SyncObject/Mutex/0x10"),
  };
  auto f = ranked(nodes);
  // Their findings name the host with the process, as the processes span hosts.
  CHECK(f[0].host == "hA");
  CHECK(f[0].text.find("\u2014 thread hA:job{1}") != std::string::npos);
  CHECK(f[2].text.find("\u2014 process hC:job{1}") != std::string::npos);
  std::vector<searched_process> processes = {
      {1, "/Machine/hA/job{1}", "", ""},
      {1, "/Machine/hB/job{1}", "", ""},
      {1, "/Machine/hC/job{1}", "", ""}};
  auto folded = fold_findings(f, processes, nodes);
  REQUIRE(folded.size() == 2);
  auto& cpu = folded[0];
  CHECK(cpu.folded);
  CHECK(cpu.of == 3);
  CHECK(cpu.pids == std::vector<int>{1, 1});
  CHECK(cpu.hosts == std::vector<std::string>{"hA", "hB"});
  CHECK(cpu.text.find("in 2 of 3 processes") != std::string::npos);
  REQUIRE(cpu.outliers.size() == 1);
  CHECK(cpu.outliers[0].host == "hC");
  CHECK(cpu.outliers[0].process == "hC:job{1}");
  CHECK(cpu.outliers[0].text == f[2].text);
  CHECK(cpu.line.find("; process hC:job{1}: ExcessiveSyncWaitingTime") != std::string::npos);
  CHECK_FALSE(folded[1].folded);
  CHECK(folded[1].hosts == std::vector<std::string>{"hC"});

  // A process watched by pid alone (no host known) is the one of its pid a finding names; the
  // engine's own, named with its host, stays apart from a daemon's of the same pid.
  auto hostless = fold_findings(f, {{1, "", "job", ""}}, nodes);
  CHECK(hostless[0].of == 3);
  auto own = fold_findings(f, {{1, "", "job", "hD"}}, nodes);
  CHECK(own[0].of == 4);
  CHECK(own[0].text.find("in 2 of 4 processes") != std::string::npos);
}

TEST_CASE("pc folding: processes still on a deeper group's call path count with it, alike so far",
          "[pc]") {
  // A search over 6 processes ended with each at its own depth of main -> work -> relax:
  // 201 and 202 in relax, 203 in work, 204 in main, 205 at the whole process; 206 went
  // another way (its work concluded false): an outlier, not alike.
  std::vector<node_view> nodes;
  auto add = [&](int pid, std::string code, std::string state, std::uint64_t parent) {
    auto n = node("CPUbound", std::move(code), "/Machine/h/job{" + std::to_string(pid) + "}", state,
                  state == "true" ? 1.0 : 0.0);
    if (parent) n.parents = {parent};
    nodes.push_back(n);
    return n.id;
  };
  for (int pid : {201, 202}) {
    auto top = add(pid, "/Code", "true", 0);
    auto main = add(pid, "/Code/job/main", "true", top);
    auto work = add(pid, "/Code/job/work", "true", main);
    add(pid, "/Code/job/relax", "true", work);
  }
  auto t203 = add(203, "/Code", "true", 0);
  auto m203 = add(203, "/Code/job/main", "true", t203);
  add(203, "/Code/job/work", "true", m203);
  add(204, "/Code/job/main", "true", add(204, "/Code", "true", 0));
  add(205, "/Code", "true", 0);
  auto t206 = add(206, "/Code", "true", 0);
  auto m206 = add(206, "/Code/job/main", "true", t206);
  add(206, "/Code/job/work", "false", m206);
  // The findings: true nodes with no true refinement.
  std::vector<node_view> leaves;
  for (auto& n : nodes) {
    bool refined = false;
    for (auto& c : nodes)
      refined = refined || (c.state == "true" && !c.parents.empty() && c.parents[0] == n.id);
    if (n.state == "true" && !refined) leaves.push_back(n);
  }
  auto f = ranked(leaves);
  auto folded = fold_findings(f, procs({201, 202, 203, 204, 205, 206}), nodes);
  REQUIRE(folded.size() == 2);
  auto& relax = folded[0];
  CHECK(relax.folded);
  CHECK(relax.code == "/Code/job/relax");
  CHECK(relax.pids == std::vector<int>{201, 202});
  CHECK(relax.alike == 3);
  CHECK_THAT(relax.text, Catch::Contains("in relax (job) \u2014 in 2 of 6 processes, alike so far "
                                         "in 3 more (1 in work, 1 in main, 1 at the whole process)"));
  REQUIRE(relax.outliers.size() == 1);  // only the one that went another way
  CHECK(relax.outliers[0].pid == 206);
  CHECK(outliers_shown(relax));  // 5 of 6 behave alike
  CHECK_THAT(perfdm::report_dump(perfdm::folded_json(folded)),
             Catch::Contains("\"hosts\":[\"h\",\"h\"],\"alike\":3}"));
  // 206's own finding, in main, stays a line of its own.
  CHECK(folded[1].code == "/Code/job/main");
  CHECK(folded[1].pids == std::vector<int>{206});
}

