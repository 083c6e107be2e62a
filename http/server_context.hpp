// What the dashboard server's sessions share (http/http_server.cpp, http/websocket_session.cpp):
// the I/O context and its thread's bookkeeping. Sessions hold it by shared_ptr, declared
// first so that it outlives their sockets.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <caf/actor_system.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "http/http_server.hpp"

namespace perfdm {

// A session the server closes when it stops (I/O thread only).
class server_session {
 public:
  virtual ~server_session() = default;
  virtual void shut_down() = 0;
  // The server stops: a session may end more politely than shut_down() (within a grace).
  virtual void stop_serving() { shut_down(); }
};

struct server_context {
  server_context(caf::actor_system& s, http_server_options o) : sys(s), options(std::move(o)) {}

  caf::actor_system& sys;
  const http_server_options options;
  boost::asio::io_context io;
  std::atomic<std::size_t> open_connections{0};  // HTTP and WebSocket, for the limit
  std::optional<boost::asio::ssl::context> tls;  // with --tls-*: every connection is TLS

  // Runs `f` on the I/O thread unless the server stopped (then nothing runs there any more,
  // and a posted handler would only keep its session alive).
  template <class F>
  void post(F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopped_) boost::asio::post(io, std::forward<F>(f));
  }

  std::uint64_t add(std::weak_ptr<server_session> s) {
    std::lock_guard<std::mutex> lock(mutex_);
    sessions_[next_id_] = std::move(s);
    return next_id_++;
  }
  void remove(std::uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    sessions_.erase(id);
  }
  // I/O thread: every session still there is closed; posting stops.
  void shut_down_all() {
    std::map<std::uint64_t, std::weak_ptr<server_session>> all;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
      all.swap(sessions_);
    }
    for (auto& [id, s] : all)
      if (auto live = s.lock()) live->stop_serving();
  }

 private:
  std::mutex mutex_;
  bool stopped_ = false;
  std::map<std::uint64_t, std::weak_ptr<server_session>> sessions_;
  std::uint64_t next_id_ = 1;
};

}  // namespace perfdm
