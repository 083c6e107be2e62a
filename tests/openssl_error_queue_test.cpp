// cli/openssl_error_queue.cpp: an error another TLS connection left in this thread's OpenSSL
// error queue does not make a healthy connection's "nothing to read yet" look like a failure
// (CAF 0.17.6 closes a connection on SSL_ERROR_SSL). Two real TLS endpoints over a socket
// pair, in this thread, as CAF's multiplexer runs them.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

namespace {

using ctx_ptr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using ssl_ptr = std::unique_ptr<SSL, decltype(&SSL_free)>;

// TLS 1.2 with anonymous ECDH, as CAF without certificates: no certificate files needed.
ctx_ptr anonymous_context(const SSL_METHOD* method) {
  ctx_ptr ctx(SSL_CTX_new(method), SSL_CTX_free);
  REQUIRE(ctx);
  SSL_CTX_set_max_proto_version(ctx.get(), TLS1_2_VERSION);
  REQUIRE(SSL_CTX_set_cipher_list(ctx.get(), "AECDH-AES256-SHA:@SECLEVEL=0") == 1);
  return ctx;
}

// Drives both ends' handshakes (non-blocking sockets) until both are done.
bool handshake(SSL* client, SSL* server) {
  bool client_done = false, server_done = false;
  for (int round = 0; round < 100 && !(client_done && server_done); ++round) {
    if (!client_done) client_done = SSL_do_handshake(client) == 1;
    if (!server_done) server_done = SSL_do_handshake(server) == 1;
  }
  return client_done && server_done;
}

// An established TLS connection between two ends of a socket pair.
struct tls_pair {
  ctx_ptr client_ctx = anonymous_context(TLS_client_method());
  ctx_ptr server_ctx = anonymous_context(TLS_server_method());
  ssl_ptr client{SSL_new(client_ctx.get()), SSL_free};
  ssl_ptr server{SSL_new(server_ctx.get()), SSL_free};
  int fds[2] = {-1, -1};
  tls_pair() {
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) == 0);
    SSL_set_fd(client.get(), fds[0]);
    SSL_set_fd(server.get(), fds[1]);
    SSL_set_connect_state(client.get());
    SSL_set_accept_state(server.get());
    ERR_clear_error();
    REQUIRE(handshake(client.get(), server.get()));
  }
  ~tls_pair() {
    close(fds[0]);
    close(fds[1]);
  }
};

// What a peer closing mid-handshake leaves queued (OpenSSL 3: an unexpected EOF is an error).
void leave_stale_error() {
  ERR_raise(ERR_LIB_SSL, SSL_R_UNEXPECTED_EOF_WHILE_READING);
  REQUIRE(ERR_peek_error() != 0);
}

}  // namespace

TEST_CASE("OpenSSL error queue: a stale error does not fail a read that has nothing yet", "[tls]") {
  tls_pair p;
  char buf[16];
  leave_stale_error();
  int n = SSL_read(p.client.get(), buf, sizeof buf);
  CHECK(n <= 0);
  CHECK(SSL_get_error(p.client.get(), n) == SSL_ERROR_WANT_READ);

  // The connection is intact: what one end writes, the other reads.
  leave_stale_error();
  REQUIRE(SSL_write(p.server.get(), "ping", 4) == 4);
  leave_stale_error();
  n = SSL_read(p.client.get(), buf, sizeof buf);
  REQUIRE(n == 4);
  CHECK(std::string(buf, 4) == "ping");
}

TEST_CASE("OpenSSL error queue: a real failure is still reported as one", "[tls]") {
  tls_pair p;
  // The server end stops sending without close_notify (a shutdown, not a close: the alert the
  // client then sends must not raise SIGPIPE in the test).
  REQUIRE(shutdown(p.fds[1], SHUT_WR) == 0);
  char buf[16];
  int n = SSL_read(p.client.get(), buf, sizeof buf);
  CHECK(n <= 0);
  auto e = SSL_get_error(p.client.get(), n);
  CHECK((e == SSL_ERROR_SSL || e == SSL_ERROR_SYSCALL));
}
