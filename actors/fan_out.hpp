// Fanning one request out to many actors and going on once all have answered: the one way
// the engine's actors count replies down (the data manager's metric instances and streams,
// the registry's sources, a data source's definitions, SETDETAIL's enables).
#pragma once

#include <caf/actor.hpp>
#include <caf/error.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

namespace perfdm {

// Counts the replies of one fan-out down. `expect` before each request, `arrived` in each
// reply handler: `done` runs once, when the last expected reply arrived. After `fail` the
// fan-out is over: later replies are ignored and `done` never runs (the caller answered
// with the error). A countdown made with `guard` expects one extra arrival, the caller's
// own `release()` once every request is out, so replies that come back at once cannot
// finish it early.
class countdown {
 public:
  static std::shared_ptr<countdown> make(std::function<void()> done, bool guard = false) {
    auto c = std::make_shared<countdown>(std::move(done));
    c->left_ = guard ? 1 : 0;
    return c;
  }
  explicit countdown(std::function<void()> done) : done_(std::move(done)) {}

  void expect(std::size_t n = 1) { left_ += n; }
  void arrived() {
    if (failed_ || left_ == 0) return;
    if (--left_ == 0) done_();
  }
  void release() { arrived(); }
  // True the first time: the caller reports the error then.
  bool fail() {
    if (failed_) return false;
    failed_ = true;
    return true;
  }
  bool failed() const { return failed_; }

 private:
  std::function<void()> done_;
  std::size_t left_ = 0;
  bool failed_ = false;
};

// How the sender waits for the replies: `await` keeps its other messages waiting until the
// replies came (the data manager runs each request to completion before the next); `then`
// lets them in meanwhile.
enum class reply_wait { await, then };

// Sends `msg` to every handle of `targets` (pairs of a key and an actor handle), calls
// `each(key, reply)` per reply, then `done()` once all have answered (at once when there is
// no target). The first error calls `failed(key, error)` and ends the fan-out; with
// `tolerate_errors`, an error counts as an answer instead (a source that ended meanwhile).
template <class Reply, class Self, class Timeout, class Targets, class Message, class Each,
          class Done, class Failed>
void fan_out(Self* self, reply_wait wait, Timeout timeout, const Targets& targets,
             const Message& msg, Each each, Done done, Failed failed,
             bool tolerate_errors = false) {
  auto count = countdown::make(std::function<void()>(std::move(done)), true);
  for (auto& [key, handle] : targets) {
    count->expect();
    auto k = key;
    auto on_reply = [=](Reply& r) mutable {
      if (count->failed()) return;
      each(k, r);
      count->arrived();
    };
    auto on_error = [=](caf::error& e) mutable {
      if (tolerate_errors) return count->arrived();
      if (count->fail()) failed(k, e);
    };
    auto handle_of_request = self->request(handle, timeout, msg);
    if (wait == reply_wait::await)
      handle_of_request.await(on_reply, on_error);
    else
      handle_of_request.then(on_reply, on_error);
  }
  count->release();
}

}  // namespace perfdm
