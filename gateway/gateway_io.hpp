// The DyPer gateway's sockets: one thread waits (epoll) on the listening socket and on every
// connection. It accepts, reads, and sends output a connection's actor could not write at
// once; framing, XML, routing and replies happen in the connection's actor, which writes to
// its socket itself (gateway/gateway_socket.hpp).
//
// Why not CAF's brokers: a broker runs on CAF's one multiplexer thread, so every request of
// every client was read, parsed, answered and written there, and every reply from the data
// manager came back through the multiplexer's wake-up pipe; with 16 clients that one thread
// was saturated (most of it waking threads) while the workers idled.
#pragma once

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/expected.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gateway/gateway_transport.hpp"
#include "gateway/gateway_socket.hpp"

namespace perfdm {

// The I/O thread sends a connection's actor gateway_input_atom, gateway_closed_atom and
// gateway_drained_atom (gateway/gateway_transport.hpp).
class gateway_io {
 public:
  // Spawns the actor serving a new connection; it receives the messages above.
  using accept_function = std::function<caf::actor(std::shared_ptr<gateway_socket>)>;
  // Reports trouble that is nobody's reply (e.g. out of descriptors).
  using note_function = std::function<void(const std::string&)>;

  // Listens on `host`:`port` (0: the system picks one). Errors: cannot_open_port with why.
  static caf::expected<std::unique_ptr<gateway_io>> listen(const std::string& host,
                                                           std::uint16_t port,
                                                           std::size_t pause_bytes,
                                                           accept_function accept,
                                                           note_function note);
  // An I/O thread without a listening socket, for the connections this process dials
  // (engine --controller): adopt() gives it each one.
  static caf::expected<std::unique_ptr<gateway_io>> without_listener(std::size_t pause_bytes,
                                                                     note_function note);

  // Any thread: the I/O thread reads `fd` (a connected socket; made non-blocking here) for
  // the actor `make` spawns, exactly as it reads an accepted connection.
  void adopt(int fd, accept_function make);

  ~gateway_io();
  gateway_io(const gateway_io&) = delete;
  gateway_io& operator=(const gateway_io&) = delete;

  std::uint16_t port() const { return port_; }

  // Stops the thread and closes the listening socket. Returns the actors of the connections
  // still open, for the caller to stop.
  std::vector<caf::actor> stop();

 private:
  struct connection {
    std::weak_ptr<gateway_socket> socket;  // the actor owns it: gone when the actor is
    caf::actor actor;
    bool ended = false;  // the peer closed; its actor was told
  };

  gateway_io(int listen_fd, std::uint16_t port, std::size_t pause_bytes, accept_function accept,
             note_function note);
  void run();
  void accept_all();
  void add_connection(int fd, const accept_function& make);
  void adopt_pending();
  void on_connection_event(std::uint64_t id, std::uint32_t events);
  void read_from(connection& c, gateway_socket& socket);
  void sweep();

  int listen_fd_;
  std::shared_ptr<const epoll_set> epoll_;
  int wake_fd_ = -1;   // eventfd: stop
  int adopt_fd_ = -1;  // eventfd: adopt() left connections in pending_
  std::mutex pending_mutex_;
  std::vector<std::pair<int, accept_function>> pending_;
  std::uint16_t port_;
  std::size_t pause_bytes_;
  accept_function accept_;
  note_function note_;
  std::map<std::uint64_t, connection> connections_;  // the I/O thread's only, until stop
  std::uint64_t next_id_ = first_connection_id;
  bool listening_ = true;  // false while out of descriptors, until resume_accepting_at_
  std::chrono::steady_clock::time_point resume_accepting_at_;
  std::string read_buffer_;
  std::thread thread_;

  static constexpr std::uint64_t wake_id = 0;
  static constexpr std::uint64_t listen_id = 1;
  static constexpr std::uint64_t adopt_id = 2;
  static constexpr std::uint64_t first_connection_id = 3;
};

}  // namespace perfdm
