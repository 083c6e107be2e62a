// The gateway's socket (gateway/gateway_socket.hpp) on a real TCP connection over loopback:
// what the socket does not take is kept and sent later in order, reading pauses above the
// limit and resumes at a quarter of it, and the epoll set sees exactly the interest the
// socket wants.
#include "gateway/gateway_socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

using namespace perfdm;

namespace {

// A connected pair on 127.0.0.1: `server` non-blocking (the gateway's side), `client` blocking.
struct tcp_pair {
  int server = -1;
  int client = -1;
  tcp_pair() {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(listen(listener, 1) == 0);
    socklen_t len = sizeof a;
    getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
    client = socket(AF_INET, SOCK_STREAM, 0);
    // Small buffers: the kernel takes little, so output is kept after a few writes.
    int small = 16 * 1024;
    setsockopt(client, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    REQUIRE(connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    server = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
    REQUIRE(server >= 0);
    setsockopt(server, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    close(listener);
  }
  ~tcp_pair() {
    if (client >= 0) close(client);
  }
  // The client resets the connection (SO_LINGER 0): the server's next writes fail.
  void reset_by_client() {
    linger hard{1, 0};
    setsockopt(client, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    close(client);
    client = -1;
  }
};

// A gateway socket on the server side of a fresh pair, reading, its events carrying `id`.
struct socket_on_pair {
  tcp_pair pair;
  std::shared_ptr<epoll_set> set = std::make_shared<epoll_set>();
  gateway_socket socket;
  socket_on_pair(std::uint64_t id, std::size_t pause) : socket(pair.server, set, id, pause) {
    socket.start_reading();
  }
};

// The events the set reports now for `id` (0 when none).
std::uint32_t events_now(const epoll_set& set, std::uint64_t id, int timeout_ms = 0) {
  epoll_event ev[4];
  int n = epoll_wait(set.fd(), ev, 4, timeout_ms);
  std::uint32_t found = 0;
  for (int i = 0; i < n; ++i)
    if (ev[i].data.u64 == id) found |= ev[i].events;
  return found;
}

std::string pattern(std::size_t from, std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (from + i) % 26);
  return s;
}

}  // namespace

TEST_CASE(
    "gateway socket: output the peer does not take is kept, sent in order, and reading "
    "pauses above the limit and resumes at a quarter of it",
    "[gateway][socket]") {
  constexpr std::size_t pause = 64 * 1024;
  socket_on_pair s(7, pause);
  auto& [pair, set, socket] = s;
  CHECK(events_now(*set, 7) == 0);
  REQUIRE(send(pair.client, "x", 1, 0) == 1);
  CHECK((events_now(*set, 7, 5000) & EPOLLIN) != 0);
  char c;
  REQUIRE(recv(pair.server, &c, 1, 0) == 1);

  // Written while the peer reads nothing: the kernel takes some, the rest is kept.
  std::size_t written = 0;
  gateway_socket::write_result last;
  while (!last.paused) {
    last = socket.write(pattern(written, 4096));
    written += 4096;
    REQUIRE(written < (64u << 20));
  }
  CHECK(last.unsent > pause);
  CHECK(socket.paused());
  // Paused: a request from the peer is not reported; the socket is not writable yet.
  REQUIRE(send(pair.client, "y", 1, 0) == 1);
  CHECK((events_now(*set, 7, 50) & EPOLLIN) == 0);

  // The peer reads; the I/O thread's part (send_kept on EPOLLOUT) runs here.
  std::string received;
  int resumed = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (received.size() < written) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    char buf[8192];
    auto n = recv(pair.client, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) received.append(buf, static_cast<std::size_t>(n));
    auto ev = events_now(*set, 7, n > 0 ? 0 : 10);
    if ((ev & EPOLLOUT) && socket.send_kept()) ++resumed;
  }
  CHECK(received == pattern(0, written));
  CHECK(resumed == 1);
  CHECK_FALSE(socket.paused());
  // Reading resumed: the request sent while paused is reported now.
  CHECK((events_now(*set, 7, 5000) & EPOLLIN) != 0);
  REQUIRE(recv(pair.server, &c, 1, 0) == 1);
  CHECK(c == 'y');
  // Nothing kept: not writable-interested any more, nothing to report.
  CHECK(events_now(*set, 7, 20) == 0);
}

TEST_CASE("gateway socket: close ends the connection for the peer and stops its events",
          "[gateway][socket]") {
  socket_on_pair s(3, 1 << 20);
  auto& [pair, set, socket] = s;
  socket.write("reply\n");
  socket.close();
  char buf[16];
  CHECK(recv(pair.client, buf, sizeof buf, 0) == 6);
  CHECK(recv(pair.client, buf, sizeof buf, 0) == 0);  // the end
  REQUIRE(send(pair.client, "z", 1, MSG_NOSIGNAL) >= 0);
  CHECK(events_now(*set, 3, 50) == 0);
  // Writing after the close is dropped, not an error.
  CHECK(socket.write("late").unsent == 0);
}

TEST_CASE("gateway socket: writing to a peer that is gone drops the output without a signal",
          "[gateway][socket]") {
  socket_on_pair s(5, 1 << 20);
  auto& [pair, set, socket] = s;
  pair.reset_by_client();  // then the socket writes on
  CHECK((events_now(*set, 5, 5000) & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0);
  std::size_t unsent = 1;
  for (int i = 0; i < 100 && unsent != 0; ++i) unsent = socket.write(std::string(4096, 'w')).unsent;
  CHECK(unsent == 0);  // broken: nothing kept, nothing reported as pending
  socket.stop_reading();
  CHECK(events_now(*set, 5, 20) == 0);  // no interest left: out of the set
}

TEST_CASE(
    "gateway socket: a paused connection whose peer is gone is read again, so its end "
    "is seen",
    "[gateway][socket]") {
  socket_on_pair s(9, 32 * 1024);
  auto& [pair, set, socket] = s;
  while (!socket.write(std::string(4096, 'p')).paused) {
  }
  CHECK((events_now(*set, 9, 20) & EPOLLIN) == 0);  // paused: not read
  pair.reset_by_client();
  // The actor writes on (events keep coming) and finds the connection broken.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::uint32_t seen = 0;
  while ((seen & EPOLLIN) == 0) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    socket.write(std::string(4096, 'q'));
    seen = events_now(*set, 9, 10);
    if (seen & EPOLLOUT) socket.send_kept();
  }
  char c;
  CHECK(recv(pair.server, &c, 1, 0) <= 0);  // the reader sees the end: the actor is told
}
