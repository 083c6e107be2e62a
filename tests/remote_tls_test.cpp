// TLS between `perfdm engine --publish` and `perfdm client` (libcaf-openssl): certificates
// made now with the `openssl` command, in a temporary directory, never kept.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <regex>

#include "tests/live_engine_test_support.hpp"
#include "tests/remote_test_support.hpp"
#include "tests/skip_test.hpp"

using namespace perfdm::remote_test;

namespace {

int shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A CA and certificates it signed (engine, client), and an intruder signed by another CA.
struct certificates {
  std::string dir = temp_path("tls");
  certificates() {
    std::filesystem::create_directories(dir);
    auto ca = [&](const std::string& name) {
      return "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + dir + "/" + name +
             ".key -out " + dir + "/" + name + ".pem -days 2 -subj /CN=" + name +
             " >/dev/null 2>&1";
    };
    auto cert = [&](const std::string& name, const std::string& by) {
      return "openssl req -newkey rsa:2048 -nodes -keyout " + dir + "/" + name + ".key -out " +
             dir + "/" + name + ".csr -subj /CN=" + name + " >/dev/null 2>&1 && openssl x509 " +
             "-req -in " + dir + "/" + name + ".csr -CA " + dir + "/" + by + ".pem -CAkey " + dir +
             "/" + by + ".key -CAcreateserial -out " + dir + "/" + name +
             ".pem -days 2 >/dev/null 2>&1";
    };
    ok = shell(ca("ca")) == 0 && shell(ca("rogue")) == 0 && shell(cert("engine", "ca")) == 0 &&
         shell(cert("client", "ca")) == 0 && shell(cert("intruder", "rogue")) == 0;
  }
  ~certificates() { std::filesystem::remove_all(dir); }
  // --tls-cert NAME.pem --tls-key NAME.key --tls-ca CA.pem
  std::vector<std::string> options(const std::string& name, const std::string& ca = "ca") const {
    return {"--tls-cert", dir + "/" + name + ".pem", "--tls-key", dir + "/" + name + ".key",
            "--tls-ca",   dir + "/" + ca + ".pem"};
  }
  bool ok = false;
};

// The values of the DATA events in `text` that are numbers (an empty bucket is 'nan').
std::vector<double> data_values(const std::string& text) {
  std::vector<double> out;
  static const std::regex value("<V [^>]*VALUE='([^']*)'");
  for (std::sregex_iterator it(text.begin(), text.end(), value), end; it != end; ++it)
    if ((*it)[1] != "nan") out.push_back(std::stod((*it)[1]));
  return out;
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The tests make their certificates with the openssl command (scripts/setup.sh installs it).
bool openssl_command_present() {
  if (shell("command -v openssl >/dev/null") == 0) return true;
  skip_test("the openssl command is missing (scripts/setup.sh installs it)");
  return false;
}

}  // namespace

TEST_CASE("remote TLS: only clients with a certificate signed by the CA get in", "[remote][tls]") {
  if (!openssl_command_present()) return;
  certificates certs;
  REQUIRE(certs.ok);
  published_engine engine(certs.options("engine"));
  CHECK(engine.errors().find("(TLS)") != std::string::npos);

  auto good = run_client(engine.address(), with(certs.options("client"), {"PING"}));
  CHECK(good.status == 0);
  CHECK(good.out == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>\n");

  // Without a certificate (no TLS at all): refused, clearly, within the timeout.
  auto plain = run_client(engine.address(), {"--timeout", "10", "PING"});
  INFO("plain client: " << plain.err);
  CHECK(plain.status == 2);
  CHECK(plain.err.find("refused") != std::string::npos);
  CHECK(plain.out.empty());

  // A certificate from another CA, whichever CA the intruder trusts.
  for (auto ca : {"ca", "rogue"}) {
    auto intruder = run_client(engine.address(),
                               with(certs.options("intruder", ca), {"--timeout", "10", "PING"}));
    INFO("intruder trusting " << ca << ": " << intruder.err);
    CHECK(intruder.status == 2);
    CHECK(intruder.err.find("refused") != std::string::npos);
    CHECK(intruder.out.empty());
  }

  // The engine serves on: the good client again.
  CHECK(run_client(engine.address(), with(certs.options("client"), {"PING"})).status == 0);

  // TLS on the client only, against a plain engine: refused too.
  published_engine plain_engine;
  auto one_sided = run_client(plain_engine.address(),
                              with(certs.options("client"), {"--timeout", "10", "PING"}));
  CHECK(one_sided.status == 2);
  CHECK(one_sided.out.empty());
}

TEST_CASE("remote TLS: incomplete TLS options are refused before anything starts",
          "[remote][tls]") {
  if (!openssl_command_present()) return;
  certificates certs;
  REQUIRE(certs.ok);
  auto engine = std::make_unique<process>(
      std::vector<std::string>{PERFDM_BINARY, "engine", "--publish", "127.0.0.1:0", "--tls-cert",
                               certs.dir + "/engine.pem"},
      "", "tls_engine");
  CHECK(engine->wait() == 1);
  CHECK(engine->err().find("TLS needs --tls-cert, --tls-key and --tls-ca") != std::string::npos);
  auto client = run_client("127.0.0.1:1", {"--tls-key", certs.dir + "/client.key", "PING"});
  CHECK(client.status == 2);
  CHECK(client.err.find("TLS needs") != std::string::npos);
}

TEST_CASE("remote TLS: a daemon without a certificate is refused, half TLS options too",
          "[remote][tls][daemon]") {
  if (!openssl_command_present()) return;
  certificates certs;
  REQUIRE(certs.ok);
  published_engine engine(certs.options("engine"));
  auto daemon = [&](const std::string& name, std::vector<std::string> tls) {
    std::vector<std::string> argv{PERFDM_BINARY, "daemon", "--upstream",        engine.address(),
                                  "--name",      name,     "--connect-timeout", "10"};
    argv.insert(argv.end(), tls.begin(), tls.end());
    return std::make_unique<process>(argv, "", "tls_daemon_" + name);
  };
  auto plain = daemon("node-plain", {});
  CHECK(plain->wait() == 2);
  auto status = run_client(engine.address(), with(certs.options("client"), {"STATUS"}));
  CHECK(status.status == 0);
  CHECK(status.out.find("<DYPER_REPLY ID='DM'><STATUS NOW='") != std::string::npos);
  CHECK(status.out.find("node-plain") == std::string::npos);

  auto incomplete = daemon("node-half", {"--tls-cert", certs.dir + "/client.pem"});
  CHECK(incomplete->wait() == 2);
  CHECK(incomplete->err().find("TLS needs --tls-cert, --tls-key and --tls-ca") !=
        std::string::npos);
}

TEST_CASE("remote TLS: a daemon through TLS registers and its samples reach a TLS client",
          "[remote][tls][daemon]") {
  if (!openssl_command_present()) return;
  certificates certs;
  REQUIRE(certs.ok);
  published_engine engine(certs.options("engine"));
  perfdm::test::workload w;
  // Both ends sign with the same CA; the daemon presents the client certificate.
  process daemon(with({PERFDM_BINARY, "daemon", "--upstream", engine.address(), "--name",
                       "node-tls", "--attach", std::to_string(w.pid), "--connect-timeout", "20"},
                      certs.options("client")),
                 "", "tls_daemon");
  REQUIRE(eventually(
      [&] { return daemon.err().find("forwarding to") != std::string::npos || daemon.exited(); }));
  INFO("daemon: " << daemon.err());
  REQUIRE(daemon.err().find("forwarding to") != std::string::npos);
  CHECK(daemon.out().find("<PROCESS PID='" + std::to_string(w.pid) + "'") != std::string::npos);

  // Other peers come and go (each client first probes the port with a bare TCP connection)
  // and one is refused for its certificate: the daemon's connection is not disturbed (with
  // CAF 0.17.6 each of them used to drop it, see cli/openssl_error_queue.cpp).
  for (int i = 0; i < 3; ++i) {
    auto status = run_client(engine.address(), with(certs.options("client"), {"STATUS"}));
    CHECK(status.status == 0);
    CHECK(status.out.find("<COMPONENT NAME='node-tls'/>") != std::string::npos);
  }
  auto intruder = run_client(engine.address(),
                             with(certs.options("intruder", "rogue"), {"--timeout", "10", "PING"}));
  CHECK(intruder.status == 2);
  auto status = run_client(engine.address(), with(certs.options("client"), {"STATUS"}));
  CHECK(status.out.find("<COMPONENT NAME='node-tls'/>") != std::string::npos);

  // The workload's requests, counted by the daemon's frames, arrive at a client through TLS.
  auto watcher = start_client(engine.address(), with(certs.options("client"), {"--watch"}),
                              "STREAM\nENABLE STREAM=$STREAM METRIC=work.requests FOCUS=/Process/"
                              "perfdm_workload{" +
                                  std::to_string(w.pid) + "}\n");
  CHECK(eventually([&] {
    auto values = data_values(watcher->out());
    return std::any_of(values.begin(), values.end(), [](double v) { return v > 0; });
  }));
  INFO("watcher: " << watcher->out() << watcher->err());
  // Beside the data values read from the same output above.
  CHECK(watcher->out().find("ERROR=") == std::string::npos);
  CHECK(daemon.exited() == false);
}
