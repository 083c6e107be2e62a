// HOST:PORT addresses of `engine --listen` and `send` (cli/host_port.hpp).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli/host_port.hpp"

using namespace perfdm;

TEST_CASE("host:port: host defaults to 127.0.0.1, port is 0..65535", "[gateway][address]") {
  auto a = parse_host_port("10.0.0.1:8080");
  REQUIRE(a);
  CHECK(a->host == "10.0.0.1");
  CHECK(a->port == 8080);
  auto b = parse_host_port(":0");
  REQUIRE(b);
  CHECK(b->host == "127.0.0.1");
  CHECK(b->port == 0);
  auto c = parse_host_port("65535");
  REQUIRE(c);
  CHECK(c->port == 65535);
  auto d = parse_host_port("[::1]:7");
  REQUIRE(d);
  CHECK(d->host == "::1");
  CHECK(d->port == 7);
  for (auto bad : {"", "host", "host:", "host:65536", "host:-1", "host:1x", "host:123456"})
    CHECK_FALSE(parse_host_port(bad));
}

TEST_CASE("engine --listen refuses an address it cannot use, with a reason", "[gateway][address]") {
  auto err = (std::filesystem::temp_directory_path() /
              ("perfdm_gateway_" + std::to_string(::getpid()) + "_listen.err"))
                 .string();
  auto run = [&](const std::string& args) {
    // `timeout`: an engine that did start listening would otherwise serve forever.
    int status = std::system(("timeout 20 " + std::string(PERFDM_BINARY) +
                              " engine --log /dev/null " + args + " </dev/null 2>" + err)
                                 .c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  auto said = [&] {
    std::ifstream in(err);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  CHECK(run("--listen nonsense") == 1);
  CHECK(said().find("--listen takes HOST:PORT") != std::string::npos);
  CHECK(run("--listen 192.0.2.1:0") == 1);  // not an address of this machine (TEST-NET-1)
  CHECK(said().find("cannot listen on 192.0.2.1:0") != std::string::npos);
  std::filesystem::remove(err);
}
