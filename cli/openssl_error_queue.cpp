// Every TLS read, write and handshake step starts with this thread's OpenSSL error queue empty.
//
// Why: OpenSSL's SSL_get_error() decides from the calling thread's error queue, which
// SSL_get_error(3) says must be empty before the I/O call. CAF 0.17.6 (libcaf-openssl) runs
// every TLS connection of a process on its one multiplexer thread and never empties that
// queue: its only ERR_get_error() calls are inside log statements, which Debian's build
// (CAF_LOG_LEVEL_QUIET) compiles out. So when one connection fails (a peer that closes before
// or during the handshake, as the reachability probe of `perfdm client` and `perfdm daemon`
// does; a client refused for its certificate; a client that leaves without close_notify),
// its error stays queued, and the next SSL_read() on a healthy connection that merely has
// nothing to read (-1, want-read) is reported as SSL_ERROR_SSL: CAF closes that connection.
// An engine publishing with TLS thus dropped its daemons whenever anyone else connected, and a
// daemon whose own probe was handled after its real connection was up did not get registered.
// (Evidence and the story: docs/PROTOCOL.md §11.)
//
// How: this executable defines the four functions CAF calls. The dynamic linker binds
// libcaf_openssl's calls to these definitions first (the executable precedes the libraries in
// symbol lookup), and each clears the queue, then calls the real function of libssl. Only the
// calls that CAF makes are covered: SSL_read, SSL_write, SSL_connect, SSL_accept.
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cstdio>
#include <cstdlib>

namespace {

// The next definition of `name` after this executable's: libssl's.
template <class F>
F real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr, "perfdm: cannot find OpenSSL's %s: %s\n", name, dlerror());
    std::abort();  // not reachable with libssl linked: TLS cannot work without it
  }
  return reinterpret_cast<F>(f);
}

}  // namespace

extern "C" {

int SSL_read(SSL* ssl, void* buf, int num) {
  static const auto next = real<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  return next(ssl, buf, num);
}

int SSL_write(SSL* ssl, const void* buf, int num) {
  static const auto next = real<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return next(ssl, buf, num);
}

int SSL_connect(SSL* ssl) {
  static const auto next = real<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return next(ssl);
}

int SSL_accept(SSL* ssl) {
  static const auto next = real<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  return next(ssl);
}

}  // extern "C"
