#include "gateway/gateway_io.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <caf/sec.hpp>
#include <caf/send.hpp>
#include <cerrno>
#include <cstring>

namespace perfdm {

namespace {

// Bytes asked of a socket per read.
constexpr std::size_t read_chunk = 64 * 1024;

// How long the gateway stops accepting when the process is out of descriptors (accepting
// again at once would only spin).
constexpr auto accept_pause = std::chrono::milliseconds(100);

caf::error cannot_listen(const std::string& why) {
  return caf::make_error(caf::sec::cannot_open_port, why);
}

// A listening socket on host:port (the first address of the host that binds).
caf::expected<int> open_listener(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found))
    return cannot_listen("cannot resolve '" + host + "': " + gai_strerror(rc));
  std::string why = "no address";
  int fd = -1;
  for (auto* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return cannot_listen("cannot listen on " + host + ":" + service + ": " + why);
  return fd;
}

std::uint16_t bound_port(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
}

void watch(int epoll_fd, int fd, std::uint64_t id) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = id;
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

}  // namespace

caf::expected<std::unique_ptr<gateway_io>> gateway_io::listen(const std::string& host,
                                                              std::uint16_t port,
                                                              std::size_t pause_bytes,
                                                              accept_function accept,
                                                              note_function note) {
  auto fd = open_listener(host, port);
  if (!fd) return fd.error();
  try {
    return std::unique_ptr<gateway_io>(
        new gateway_io(*fd, bound_port(*fd), pause_bytes, std::move(accept), std::move(note)));
  } catch (const std::system_error& e) {
    return cannot_listen(e.what());
  }
}

caf::expected<std::unique_ptr<gateway_io>> gateway_io::without_listener(std::size_t pause_bytes,
                                                                        note_function note) {
  try {
    return std::unique_ptr<gateway_io>(new gateway_io(-1, 0, pause_bytes, {}, std::move(note)));
  } catch (const std::system_error& e) {
    return cannot_listen(e.what());
  }
}

void gateway_io::adopt(int fd, accept_function make) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  {
    std::lock_guard<std::mutex> guard(pending_mutex_);
    pending_.emplace_back(fd, std::move(make));
  }
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(adopt_fd_, &one, sizeof one);
}

void gateway_io::adopt_pending() {
  std::uint64_t count;
  [[maybe_unused]] auto n = ::read(adopt_fd_, &count, sizeof count);
  std::vector<std::pair<int, accept_function>> adopted;
  {
    std::lock_guard<std::mutex> guard(pending_mutex_);
    adopted.swap(pending_);
  }
  for (auto& [fd, make] : adopted) add_connection(fd, make);
}

gateway_io::gateway_io(int listen_fd, std::uint16_t port, std::size_t pause_bytes,
                       accept_function accept, note_function note)
    : listen_fd_(listen_fd),
      port_(port),
      pause_bytes_(pause_bytes),
      accept_(std::move(accept)),
      note_(std::move(note)),
      read_buffer_(read_chunk, '\0') {
  try {
    epoll_ = std::make_shared<epoll_set>();
  } catch (...) {
    if (listen_fd_ >= 0) ::close(listen_fd_);
    throw;
  }
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  adopt_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0 || adopt_fd_ < 0) {
    auto error = errno;
    if (listen_fd_ >= 0) ::close(listen_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    if (adopt_fd_ >= 0) ::close(adopt_fd_);
    throw std::system_error(error, std::generic_category(), "eventfd");
  }
  watch(epoll_->fd(), wake_fd_, wake_id);
  watch(epoll_->fd(), adopt_fd_, adopt_id);
  if (listen_fd_ >= 0) watch(epoll_->fd(), listen_fd_, listen_id);
  thread_ = std::thread([this] { run(); });
}

gateway_io::~gateway_io() {
  stop();
}

std::vector<caf::actor> gateway_io::stop() {
  std::vector<caf::actor> open;
  if (!thread_.joinable()) return open;
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
  thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::close(wake_fd_);
  ::close(adopt_fd_);
  {
    std::lock_guard<std::mutex> guard(pending_mutex_);
    for (auto& p : pending_) ::close(p.first);  // adopted after the thread stopped
    pending_.clear();
  }
  for (auto& [id, c] : connections_)
    if (!c.socket.expired()) open.push_back(c.actor);
  connections_.clear();
  return open;
}

void gateway_io::run() {
  epoll_event events[64];
  for (;;) {
    int timeout = -1;
    if (!listening_) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          resume_accepting_at_ - std::chrono::steady_clock::now());
      timeout = static_cast<int>(std::max<std::int64_t>(0, left.count()));
    }
    int n = epoll_wait(epoll_->fd(), events, 64, timeout);
    if (n < 0 && errno != EINTR) {
      note_(std::string("the gateway stopped: epoll_wait: ") + std::strerror(errno));
      return;
    }
    if (!listening_ && listen_fd_ >= 0 &&
        std::chrono::steady_clock::now() >= resume_accepting_at_) {
      watch(epoll_->fd(), listen_fd_, listen_id);
      listening_ = true;
    }
    for (int i = 0; i < n; ++i) {
      auto id = events[i].data.u64;
      if (id == wake_id) return;
      if (id == listen_id)
        accept_all();
      else if (id == adopt_id)
        adopt_pending();
      else
        on_connection_event(id, events[i].events);
    }
  }
}

void gateway_io::accept_all() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      note_(std::string("cannot accept a connection: ") + std::strerror(errno) +
            "; accepting again in 100 ms");
      epoll_ctl(epoll_->fd(), EPOLL_CTL_DEL, listen_fd_, nullptr);
      listening_ = false;
      resume_accepting_at_ = std::chrono::steady_clock::now() + accept_pause;
      return;
    }
    add_connection(fd, accept_);
  }
}

void gateway_io::add_connection(int fd, const accept_function& make) {
  // Replies are single small writes a client waits for: never hold them back (Nagle).
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sweep();
  auto id = next_id_++;
  auto socket = std::make_shared<gateway_socket>(fd, epoll_, id, pause_bytes_);
  auto actor = make(socket);
  connections_.emplace(id, connection{socket, actor, false});
  socket->start_reading();
}

void gateway_io::on_connection_event(std::uint64_t id, std::uint32_t events) {
  auto i = connections_.find(id);
  if (i == connections_.end()) return;
  auto socket = i->second.socket.lock();
  if (!socket) {  // its actor is gone, and the socket with it
    connections_.erase(i);
    return;
  }
  if ((events & (EPOLLOUT | EPOLLERR)) && socket->send_kept())
    caf::anon_send(i->second.actor, gateway_drained_atom::value);
  if (!i->second.ended && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) read_from(i->second, *socket);
}

void gateway_io::read_from(connection& c, gateway_socket& socket) {
  ssize_t n;
  do {
    n = recv(socket.fd(), read_buffer_.data(), read_buffer_.size(), MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    caf::anon_send(c.actor, gateway_input_atom::value,
                   std::string(read_buffer_.data(), static_cast<std::size_t>(n)));
  } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
    c.ended = true;
    socket.stop_reading();
    caf::anon_send(c.actor, gateway_closed_atom::value);
  }
}

// Forgets connections whose actors are gone.
void gateway_io::sweep() {
  for (auto i = connections_.begin(); i != connections_.end();)
    i = i->second.socket.expired() ? connections_.erase(i) : std::next(i);
}

}  // namespace perfdm
