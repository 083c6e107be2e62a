#include "http/websocket_session.hpp"

#include "actors/performance_stream_actor.hpp"
#include "http/data_event_merge.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <caf/send.hpp>
#include <deque>
#include <mutex>

namespace perfdm {

namespace {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = boost::asio::ip::tcp;

// How long a connection that is being closed may take to send its close frame (a reader
// that stopped reading never lets it through) before its socket is simply shut.
constexpr auto close_grace = std::chrono::seconds(2);

// How long a DATA event may be held for others of its stream to join it (docs/DASHBOARD.md §2):
// a page redraws its charts once a second; a browser pays for each message.
constexpr auto data_hold = std::chrono::milliseconds(100);

// Stream: beast::tcp_stream, or beast::ssl_stream over it (--tls-*).
template <class Stream>
class websocket_session final : public gateway_transport,
                                public server_session,
                                public std::enable_shared_from_this<websocket_session<Stream>> {
 public:
  using std::enable_shared_from_this<websocket_session<Stream>>::shared_from_this;
  using std::enable_shared_from_this<websocket_session<Stream>>::weak_from_this;

  websocket_session(std::shared_ptr<server_context> ctx, Stream stream)
      : ctx_(std::move(ctx)),
        ws_(std::move(stream)),
        close_timer_(ctx_->io),
        hold_timer_(ctx_->io),
        pause_bytes_(ctx_->options.gateway->pause_output_bytes) {
    ++ctx_->open_connections;
  }

  ~websocket_session() override {
    --ctx_->open_connections;
    ctx_->remove(registration_);
  }

  void start(beast::http::request<beast::http::string_body> upgrade) {
    registration_ = ctx_->add(weak_from_this());
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.read_message_max(ctx_->options.max_websocket_message_bytes);
    ws_.text(true);
    ws_.async_accept(upgrade, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return;  // not a WebSocket after all: the socket goes with the session
      self->origin_ = "ws " + std::to_string(self->registration_);
      self->actor_ = spawn_gateway_connection(self->ctx_->sys, self, self->ctx_->options.gateway);
      self->read();
    });
  }

  // ---------------------------------------------------------------- gateway_transport
  // (called by the connection's actor, from any thread)

  write_result send_reply(std::string_view xml) override { return enqueue(xml, false); }
  write_result send_event(std::string_view xml) override { return enqueue(xml, true); }

  void hold_reading(bool hold) override {
    ctx_->post([self = shared_from_this(), hold] {
      self->held_ = hold;
      self->read();
    });
  }

  void close(const std::string& why) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.clear();
      merge_.take();
      unsent_ = 0;
      if (closing_) return;
      closing_ = true;
    }
    ctx_->post([self = shared_from_this(), why] { self->begin_close(why); });
  }

  bool paused() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return paused_;
  }

  std::string origin() const override { return origin_; }

  // ---------------------------------------------------------------- server_session
  void shut_down() override {
    close_timer_.cancel();
    hold_timer_.cancel();
    beast::get_lowest_layer(ws_).close();  // cancels its timers too
  }

  // The engine stops: the client is told so (1001 going away), then the socket closes.
  void stop_serving() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.clear();
      merge_.take();
      unsent_ = 0;
      if (closing_) return;  // a close is under way; it ends within its grace
      closing_ = true;
    }
    close_code_ = websocket::close_code::going_away;
    begin_close("the engine stops");
  }

 private:
  write_result enqueue(std::string_view xml, bool event) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) return {};
    ready_.clear();
    merge_.add(xml, event, ready_);
    for (auto& m : ready_) push(std::move(m));
    if (merge_.holding() && !hold_armed_) {
      hold_armed_ = true;
      ctx_->post([self = shared_from_this()] { self->arm_hold(); });
    }
    return {unsent_, paused_};
  }

  // mutex_ held: `xml` joins the output, and the writer starts if it is idle.
  void push(std::string xml) {
    unsent_ += xml.size();
    queue_.push_back(std::move(xml));
    if (!paused_ && unsent_ > pause_bytes_) paused_ = true;
    if (!writing_) {
      writing_ = true;
      ctx_->post([self = shared_from_this()] { self->write_next(); });
    }
  }

  // I/O thread: a held DATA event goes when its time is up (or sooner, with the next other
  // message).
  void arm_hold() {
    hold_timer_.expires_after(data_hold);
    hold_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      std::lock_guard<std::mutex> lock(self->mutex_);
      self->hold_armed_ = false;
      if (ec || self->closing_) return;
      if (auto held = self->merge_.take()) self->push(std::move(*held));
    });
  }

  // I/O thread from here on.

  void write_next() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.empty() || closing_) {
        writing_ = false;
        if (closing_ && close_pending_) finish_close();
        return;
      }
      current_ = std::move(queue_.front());
      queue_.pop_front();
    }
    ws_.async_write(
        boost::asio::buffer(current_),
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_written(ec); });
  }

  void on_written(beast::error_code ec) {
    bool drained = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (unsent_ >= current_.size()) unsent_ -= current_.size();
      if (paused_ && unsent_ <= pause_bytes_ / 4) {
        paused_ = false;
        drained = true;
      }
      if (ec) {  // the peer is gone: its reader learns it; nothing more is written
        writing_ = false;
        queue_.clear();
        unsent_ = 0;
        return;
      }
    }
    current_.clear();
    if (drained) {
      caf::anon_send(actor_, gateway_drained_atom::value);
      read();
    }
    write_next();
  }

  void read() {
    if (reading_ || read_ended_ || held_ || paused()) return;
    reading_ = true;
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  void on_read(beast::error_code ec) {
    reading_ = false;
    if (ec) {
      // The peer closed, the connection failed, or a message over the limit (Beast has sent
      // the close frame 1009 for it): the actor closes this connection's streams (T3).
      read_ended_ = true;
      caf::anon_send(actor_, gateway_closed_atom::value);
      return;
    }
    caf::anon_send(actor_, gateway_message_atom::value, beast::buffers_to_string(buffer_.data()));
    buffer_.consume(buffer_.size());
    read();
  }

  // A close frame may not overlap a write: it goes once the write in flight finished, and the
  // socket is shut if that takes longer than the grace.
  void begin_close(const std::string& why) {
    close_reason_ = why;
    close_timer_.expires_after(close_grace);
    close_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->shut_down();
    });
    bool now;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      now = !writing_;
      close_pending_ = writing_;
    }
    if (now) finish_close();
  }

  void finish_close() {
    close_pending_ = false;
    websocket::close_reason reason(
        close_reason_.empty() ? websocket::close_code::normal : close_code_, close_reason_);
    ws_.async_close(reason, [self = shared_from_this()](beast::error_code) {
      self->close_timer_.cancel();
      self->shut_down();
    });
  }

  std::shared_ptr<server_context> ctx_;  // first: destroyed last, after the socket
  websocket::stream<Stream> ws_;
  boost::asio::steady_timer close_timer_;
  boost::asio::steady_timer hold_timer_;
  const std::size_t pause_bytes_;
  std::uint64_t registration_ = 0;
  std::string origin_;
  caf::actor actor_;
  beast::flat_buffer buffer_;

  mutable std::mutex mutex_;  // guards the output shared with the actor's thread
  std::deque<std::string> queue_;
  std::size_t unsent_ = 0;
  bool paused_ = false;
  bool writing_ = false;
  bool closing_ = false;
  data_event_merge merge_{default_stream_batch};  // DATA held to be sent with the next ones
  std::vector<std::string> ready_;                // what the merge let go, to be queued
  bool hold_armed_ = false;                       // hold_timer_ runs (or is about to)

  // I/O thread only.
  std::string current_;  // the message being written
  bool reading_ = false;
  bool read_ended_ = false;
  bool held_ = false;
  bool close_pending_ = false;
  std::string close_reason_;
  websocket::close_code close_code_ = websocket::close_code::policy_error;
};

}  // namespace

void start_websocket_session(std::shared_ptr<server_context> ctx, beast::tcp_stream stream,
                             beast::http::request<beast::http::string_body> upgrade) {
  auto session =
      std::make_shared<websocket_session<beast::tcp_stream>>(std::move(ctx), std::move(stream));
  session->start(std::move(upgrade));
}

void start_websocket_session(std::shared_ptr<server_context> ctx,
                             beast::ssl_stream<beast::tcp_stream> stream,
                             beast::http::request<beast::http::string_body> upgrade) {
  auto session = std::make_shared<websocket_session<beast::ssl_stream<beast::tcp_stream>>>(
      std::move(ctx), std::move(stream));
  session->start(std::move(upgrade));
}

}  // namespace perfdm
