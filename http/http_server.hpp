// perfdm engine --http: the dashboard's server (docs/DASHBOARD.md). Boost.Beast on an I/O
// thread of its own serves the page's static files, the charting library, GET /metrics
// (Prometheus) and WebSockets at /ws that carry the XML command language, one message per
// frame, through the same connection actors as the TCP gateway (actors/gateway_connection_actor.hpp).
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "actors/gateway_connection_actor.hpp"
#include "http/static_files.hpp"

namespace perfdm {

struct http_server_options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0: the system picks one
  static_roots roots;
  // What the WebSocket connections serve (targets, log writer, output limits, the count of
  // open connections, which /metrics shows too). targets must hold the data manager.
  std::shared_ptr<const gateway_options> gateway;
  // Connections at once (HTTP and WebSocket together); one more is answered 503 and closed.
  std::size_t max_connections = 64;
  // A WebSocket message longer than this closes the connection with 1009 (message too big).
  std::size_t max_websocket_message_bytes = 1u << 20;
  // TLS (OpenSSL): the server's certificate chain and key (PEM); with a CA file, clients must
  // present a certificate signed by it. Empty: plain HTTP.
  std::string tls_cert, tls_key, tls_ca;
};

class http_server {
 public:
  // Listens and starts the I/O thread. Errors: cannot_open_port with why.
  static caf::expected<std::unique_ptr<http_server>> start(caf::actor_system& sys,
                                                           http_server_options options);
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  std::uint16_t port() const;

  // Closes the listening socket and every connection (their streams are closed, T3) and
  // stops the I/O thread.
  void stop();

  struct impl;

 private:
  explicit http_server(std::shared_ptr<impl> p) : impl_(std::move(p)) {}
  std::shared_ptr<impl> impl_;
};

}  // namespace perfdm
