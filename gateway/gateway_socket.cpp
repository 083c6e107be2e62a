#include "gateway/gateway_socket.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace perfdm {

epoll_set::epoll_set() : fd_(epoll_create1(EPOLL_CLOEXEC)) {
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
}

epoll_set::~epoll_set() {
  ::close(fd_);
}

gateway_socket::gateway_socket(int fd, std::shared_ptr<const epoll_set> epoll, std::uint64_t id,
                               std::size_t pause_bytes)
    : fd_(fd), epoll_(std::move(epoll)), id_(id), pause_bytes_(pause_bytes) {}

gateway_socket::~gateway_socket() {
  close();
  ::close(fd_);
}

void gateway_socket::start_reading() {
  std::lock_guard<std::mutex> lock(mutex_);
  update_interest_locked();
}

void gateway_socket::send_locked(std::string_view bytes, std::size_t& sent) {
  while (sent < bytes.size()) {
    auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      broken_ = true;
      return;
    }
  }
}

gateway_socket::write_result gateway_socket::write(std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_ || broken_) return {};
  std::size_t sent = 0;
  if (kept_offset_ == kept_.size()) {
    kept_.clear();
    kept_offset_ = 0;
    send_locked(bytes, sent);
  } else if (kept_offset_ > kept_.size() / 2) {
    kept_.erase(0, kept_offset_);
    kept_offset_ = 0;
  }
  if (broken_) {
    kept_.clear();
    kept_offset_ = 0;
  } else {
    kept_.append(bytes.substr(sent));
  }
  auto unsent = kept_.size() - kept_offset_;
  if (!paused_ && unsent > pause_bytes_) paused_ = true;
  update_interest_locked();
  return {unsent, paused_};
}

bool gateway_socket::send_kept() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_ || broken_) return false;
  std::size_t sent = 0;
  send_locked(std::string_view(kept_).substr(kept_offset_), sent);
  kept_offset_ += sent;
  if (broken_ || kept_offset_ == kept_.size()) {
    kept_.clear();
    kept_offset_ = 0;
  }
  bool resumed = false;
  if (paused_ && kept_.size() - kept_offset_ <= pause_bytes_ / 4) {
    paused_ = false;
    resumed = true;
  }
  update_interest_locked();
  return resumed;
}

void gateway_socket::stop_reading() {
  std::lock_guard<std::mutex> lock(mutex_);
  reading_ = false;
  update_interest_locked();
}

void gateway_socket::hold_reading(bool hold) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_ = hold;
  update_interest_locked();
}

void gateway_socket::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return;
  closed_ = true;
  kept_.clear();
  kept_offset_ = 0;
  update_interest_locked();
  ::shutdown(fd_, SHUT_RDWR);
}

bool gateway_socket::paused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return paused_;
}

// Level-triggered interest: reading unless paused or ended, writing while output is kept.
// A socket with no interest left is taken out of the set: epoll reports a hang-up even to an
// empty interest, and a reader that no longer reads would be woken for it forever.
void gateway_socket::update_interest_locked() {
  std::uint32_t want = 0;
  // A broken connection is read even when paused: the reader's error or end of stream is
  // how the connection's actor learns that the client is gone.
  if (!closed_ && reading_ && ((!paused_ && !held_) || broken_)) want |= EPOLLIN;
  if (!closed_ && !broken_ && kept_offset_ < kept_.size()) want |= EPOLLOUT;
  if (want == interest_) return;
  epoll_event ev{};
  ev.events = want;
  ev.data.u64 = id_;
  if (interest_ == 0)
    epoll_ctl(epoll_->fd(), EPOLL_CTL_ADD, fd_, &ev);
  else if (want == 0)
    epoll_ctl(epoll_->fd(), EPOLL_CTL_DEL, fd_, nullptr);
  else
    epoll_ctl(epoll_->fd(), EPOLL_CTL_MOD, fd_, &ev);
  interest_ = want;
}

}  // namespace perfdm
