// One client connection of the DyPer gateway, shared by the gateway's I/O thread
// (gateway/gateway_io.hpp), which reads it and sends what could not be written at once, and by
// the connection's actor, which writes replies and events from whichever worker runs it.
// Writing straight from the actor spares every reply a hop through the I/O thread: on a
// machine where waking a thread costs tens of microseconds, the hops are the round trip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace perfdm {

// An epoll instance, closed when its last user is gone: sockets may outlive the I/O thread,
// and one that changed its interest in a closed, reused descriptor would touch another set.
class epoll_set {
 public:
  epoll_set();  // throws std::system_error when the system has none to give
  ~epoll_set();
  epoll_set(const epoll_set&) = delete;
  epoll_set& operator=(const epoll_set&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

class gateway_socket {
 public:
  // Takes `fd`, a connected non-blocking socket; `epoll` is the I/O thread's set, where
  // the socket's events carry `id`. Above `pause_bytes` of output not yet sent, the socket
  // is no longer read until the output drains to a quarter of it.
  gateway_socket(int fd, std::shared_ptr<const epoll_set> epoll, std::uint64_t id,
                 std::size_t pause_bytes);
  ~gateway_socket();  // closes the descriptor
  gateway_socket(const gateway_socket&) = delete;
  gateway_socket& operator=(const gateway_socket&) = delete;

  // Puts the socket in the I/O thread's set for reading (once its actor exists).
  void start_reading();

  struct write_result {
    std::size_t unsent = 0;  // bytes written here or earlier that the socket has not taken yet
    bool paused = false;     // reading stopped: too much output waits
  };

  // Sends `bytes` as far as the socket takes them now and keeps the rest, behind anything
  // kept before, for the I/O thread. A connection the peer reset takes the bytes and drops
  // them: its reader sees the end.
  write_result write(std::string_view bytes);

  // I/O thread, when the socket is writable: sends what was kept. True when that drained the
  // output far enough for reading to resume (and it resumed).
  bool send_kept();

  // I/O thread, when the peer closed or the socket failed: no more reading.
  void stop_reading();

  // The connection's actor, while too many requests wait for their turn: not read until
  // released, so a client that sends faster than it is answered is slowed by TCP.
  void hold_reading(bool hold);

  // Both directions end now; kept output is dropped. Either side may call it.
  void close();

  bool paused() const;
  std::uint64_t id() const { return id_; }
  int fd() const { return fd_; }

 private:
  void send_locked(std::string_view bytes, std::size_t& sent);
  void update_interest_locked();

  const int fd_;
  const std::shared_ptr<const epoll_set> epoll_;
  const std::uint64_t id_;
  const std::size_t pause_bytes_;
  mutable std::mutex mutex_;
  std::string kept_;             // output the socket did not take yet
  std::size_t kept_offset_ = 0;  // of it, already sent
  bool paused_ = false;
  bool held_ = false;
  bool reading_ = true;
  bool closed_ = false;
  bool broken_ = false;         // a send failed: the peer is gone
  std::uint32_t interest_ = 0;  // the epoll events registered now
};

}  // namespace perfdm
