// The dashboard over TLS (--tls-cert, --tls-key, --tls-ca, as --publish takes them): HTTPS and
// a WebSocket over TLS with Beast's SSL stream; certificates made now with the openssl command
// in a temporary directory, never kept.
#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <catch2/catch.hpp>

#include "tests/dashboard_test_support.hpp"
#include "tests/skip_test.hpp"

using namespace perfdm;
using namespace perfdm::dashboard_test;
using gateway_test::dm;

namespace {

namespace ssl = boost::asio::ssl;

int shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A CA, the engine's certificate and a client's, both signed by it.
struct certificates {
  std::string dir = temp_path("dash-tls");
  bool ok = false;
  certificates() {
    std::filesystem::create_directories(dir);
    auto run = [&](const std::string& args) {
      return shell("openssl " + args + " >/dev/null 2>&1") == 0;
    };
    auto signed_by_ca = [&](const std::string& name) {
      return run("req -newkey rsa:2048 -nodes -keyout " + dir + "/" + name + ".key -out " + dir +
                 "/" + name + ".csr -subj /CN=" + name) &&
             run("x509 -req -in " + dir + "/" + name + ".csr -CA " + dir + "/ca.pem -CAkey " + dir +
                 "/ca.key -CAcreateserial -out " + dir + "/" + name + ".pem -days 2");
    };
    ok = run("req -x509 -newkey rsa:2048 -nodes -keyout " + dir + "/ca.key -out " + dir +
             "/ca.pem -days 2 -subj /CN=ca") &&
         signed_by_ca("engine") && signed_by_ca("client");
  }
  ~certificates() { std::filesystem::remove_all(dir); }
  std::string file(const std::string& name) const { return dir + "/" + name; }
};

// One WebSocket over TLS to /ws; `client`: the certificate to show ("" for none).
std::string wss_ping(std::uint16_t port, const certificates& c, const std::string& client) {
  boost::asio::io_context io;
  ssl::context tls(ssl::context::tls_client);
  tls.load_verify_file(c.file("ca.pem"));
  tls.set_verify_mode(ssl::verify_peer);  // the engine's certificate, signed by the CA
  if (!client.empty()) {
    tls.use_certificate_chain_file(c.file(client + ".pem"));
    tls.use_private_key_file(c.file(client + ".key"), ssl::context::pem);
  }
  websocket::stream<beast::ssl_stream<tcp::socket>> ws(io, tls);
  beast::get_lowest_layer(ws).connect(
      tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  bound_reads(beast::get_lowest_layer(ws).native_handle());
  ws.next_layer().handshake(ssl::stream_base::client);
  ws.handshake("127.0.0.1:" + std::to_string(port), "/ws");
  ws.text(true);
  ws.write(boost::asio::buffer(dm("PING")));
  beast::flat_buffer b;
  ws.read(b);
  return beast::buffers_to_string(b.data());
}

}  // namespace

TEST_CASE("dashboard: TLS, a WebSocket over it, and client certificates with --tls-ca",
          "[dashboard][tls]") {
  if (shell("command -v openssl >/dev/null") != 0)
    return skip_test("the openssl command is missing (scripts/setup.sh installs it)");
  certificates c;
  REQUIRE(c.ok);
  SECTION("server certificate only") {
    engine_process engine("tls",
                          {"--tls-cert", c.file("engine.pem"), "--tls-key", c.file("engine.key")});
    CHECK(engine.errors().find("dashboard on https://127.0.0.1:") != std::string::npos);
    CHECK(wss_ping(engine.http_port(), c, "") == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
    // Plain HTTP to the TLS port gets no answer.
    CHECK_THROWS(http_request(engine.http_port(), "/"));
  }
  SECTION("--tls-ca: only clients with a certificate the CA signed") {
    engine_process engine("tls-ca", {"--tls-cert", c.file("engine.pem"), "--tls-key",
                                     c.file("engine.key"), "--tls-ca", c.file("ca.pem")});
    CHECK(wss_ping(engine.http_port(), c, "client") == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
    CHECK_THROWS(wss_ping(engine.http_port(), c, ""));
  }
}

TEST_CASE("dashboard: beyond loopback with TLS needs no --http-insecure", "[dashboard][tls]") {
  certificates c;
  if (!c.ok) return;
  auto err = temp_path("tls-any.err");
  auto command = std::string(PERFDM_BINARY) + " engine --http 0.0.0.0:0 --tls-cert " +
                 c.file("engine.pem") + " --tls-key " + c.file("engine.key") + " --log " +
                 temp_path("tls-any.log") + " </dev/null 2>" + err +
                 " & pid=$!; sleep 1; kill $pid; wait $pid";
  CHECK(shell("bash -c '" + command + "'") == 0);
  CHECK(slurp(err).find("dashboard on https://0.0.0.0:") != std::string::npos);
  auto half = std::string(PERFDM_BINARY) + " engine --http 127.0.0.1:0 --tls-cert " +
              c.file("engine.pem") + " </dev/null 2>" + err;
  CHECK(shell(half) == 1);
  CHECK(slurp(err).find("needs --tls-cert and --tls-key") != std::string::npos);
  std::filesystem::remove(err);
  std::filesystem::remove(temp_path("tls-any.log"));
}
