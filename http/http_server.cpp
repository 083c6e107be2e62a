#include "http/http_server.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <caf/sec.hpp>
#include <optional>
#include <thread>
#include <type_traits>

#include "http/metrics_scrape.hpp"
#include "http/prometheus_text.hpp"
#include "http/server_context.hpp"
#include "http/websocket_session.hpp"

namespace perfdm {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// A request's head and body are small (the page sends only GETs and the WebSocket upgrade);
// a client gets this long to send one, and to take a response.
constexpr std::size_t max_request_head = 16 * 1024;
constexpr std::size_t max_request_body = 16 * 1024;
constexpr auto request_timeout = std::chrono::seconds(30);

constexpr const char* websocket_path = "/ws";
constexpr const char* metrics_path = "/metrics";

std::string path_of(beast::string_view target) {
  auto t = std::string(target);
  if (auto q = t.find('?'); q != std::string::npos) t.resize(q);
  return t;
}

// A WebSocket from another site's page would act with the user's engine: a browser always
// says where the page came from, and only the dashboard's own origin is let in. Clients that
// are not browsers send no Origin.
bool same_origin(const http::request<http::string_body>& req) {
  auto origin = req[http::field::origin];
  if (origin.empty()) return true;
  auto host = std::string(req[http::field::host]);
  return origin == "http://" + host || origin == "https://" + host;
}

using tls_stream = beast::ssl_stream<beast::tcp_stream>;

// Stream: beast::tcp_stream, or tls_stream (--tls-*), whose handshake comes first.
template <class Stream>
class http_session final : public server_session,
                           public std::enable_shared_from_this<http_session<Stream>> {
 public:
  using std::enable_shared_from_this<http_session<Stream>>::shared_from_this;
  using std::enable_shared_from_this<http_session<Stream>>::weak_from_this;
  static constexpr bool tls = std::is_same_v<Stream, tls_stream>;

  template <class... Args>
  http_session(std::shared_ptr<server_context> ctx, Args&&... args)
      : ctx_(std::move(ctx)), stream_(std::forward<Args>(args)...) {
    ++ctx_->open_connections;
  }
  ~http_session() override {
    --ctx_->open_connections;
    ctx_->remove(registration_);
  }

  void start(bool refuse) {
    registration_ = ctx_->add(weak_from_this());
    if constexpr (tls) {
      beast::get_lowest_layer(stream_).expires_after(request_timeout);
      stream_.async_handshake(net::ssl::stream_base::server,
                              [self = shared_from_this(), refuse](beast::error_code ec) {
                                if (!ec) self->begin(refuse);  // else: not TLS, or refused
                              });
    } else {
      begin(refuse);
    }
  }

  void shut_down() override { beast::get_lowest_layer(stream_).close(); }

 private:
  void begin(bool refuse) {
    if (refuse) {
      // Over the connection limit: a clear answer, then the connection ends.
      respond_text(http::status::service_unavailable, 11, false,
                   "too many connections to this perfdm engine\n");
      return;
    }
    read();
  }

  // The response ends the connection: TLS says so first (close_notify).
  void end_connection() {
    if constexpr (tls) {
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(2));
      stream_.async_shutdown([self = shared_from_this()](beast::error_code) {
        beast::get_lowest_layer(self->stream_).close();
      });
    } else {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
  }

  void read() {
    parser_.emplace();
    parser_->header_limit(max_request_head);
    parser_->body_limit(max_request_body);
    beast::get_lowest_layer(stream_).expires_after(request_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) return end_connection();
    if (ec == http::error::header_limit || ec == http::error::body_limit) {
      respond_text(http::status::payload_too_large, 11, false, "request too large\n");
      return;
    }
    if (ec) return;  // timeout or reset: the session ends
    auto req = parser_->release();
    auto path = path_of(req.target());
    if (websocket::is_upgrade(req)) {
      if (path != websocket_path)
        return respond_text(http::status::not_found, req.version(), false, "no WebSocket here\n");
      if (!same_origin(req))
        return respond_text(http::status::forbidden, req.version(), false,
                            "WebSocket from another origin refused\n");
      beast::get_lowest_layer(stream_).expires_never();  // the WebSocket has its own
      start_websocket_session(ctx_, std::move(stream_), std::move(req));
      return;
    }
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return respond_text(http::status::method_not_allowed, req.version(), req.keep_alive(),
                          "only GET and HEAD\n");
    if (path == metrics_path) return serve_metrics(req.version(), req.keep_alive());
    serve_file(req);
  }

  void serve_metrics(unsigned version, bool keep_alive) {
    auto dm = ctx_->options.gateway->targets.find(data_manager_target);
    if (dm == ctx_->options.gateway->targets.end())
      return respond_text(http::status::internal_server_error, version, false, "no data manager\n");
    // The session waits for nothing else meanwhile: the scrape holds it.
    auto self = shared_from_this();
    auto ctx = ctx_;
    scrape_metrics(ctx_->sys, dm->second, ctx_->options.gateway->open_connections,
                   [ctx, self, version, keep_alive](prometheus_snapshot s, std::string error) {
                     auto text = error.empty() ? prometheus_exposition(s) : error + "\n";
                     ctx->post([self, version, keep_alive, ok = error.empty(),
                                text = std::move(text)]() mutable {
                       self->respond_text(ok ? http::status::ok : http::status::service_unavailable,
                                          version, keep_alive, std::move(text),
                                          "text/plain; version=0.0.4; charset=utf-8");
                     });
                   });
  }

  void serve_file(const http::request<http::string_body>& req) {
    auto target = req.target();
    auto file =
        static_file_for(ctx_->options.roots, std::string_view(target.data(), target.size()));
    if (!file) return respond_text(http::status::bad_request, req.version(), false, "bad path\n");
    beast::error_code ec;
    http::file_body::value_type body;
    body.open(file->c_str(), beast::file_mode::scan, ec);
    if (ec)
      return respond_text(http::status::not_found, req.version(), req.keep_alive(),
                          "not found: " + path_of(req.target()) + "\n");
    auto size = body.size();
    auto res = std::make_shared<http::response<http::file_body>>(
        std::piecewise_construct, std::make_tuple(std::move(body)),
        std::make_tuple(http::status::ok, req.version()));
    res->set(http::field::content_type, content_type_for(*file));
    res->set(http::field::cache_control, "no-cache");
    res->content_length(size);
    res->keep_alive(req.keep_alive());
    if (req.method() == http::verb::head) {
      auto head =
          std::make_shared<http::response<http::empty_body>>(http::status::ok, req.version());
      head->set(http::field::content_type, content_type_for(*file));
      head->content_length(size);
      head->keep_alive(req.keep_alive());
      return send(head);
    }
    send(res);
  }

  void respond_text(http::status status, unsigned version, bool keep_alive, std::string text,
                    const char* type = "text/plain; charset=utf-8") {
    auto res = std::make_shared<http::response<http::string_body>>(status, version);
    res->set(http::field::content_type, type);
    res->set(http::field::cache_control, "no-cache");
    res->keep_alive(keep_alive);
    res->body() = std::move(text);
    res->prepare_payload();
    send(res);
  }

  template <class Response>
  void send(std::shared_ptr<Response> res) {
    beast::get_lowest_layer(stream_).expires_after(request_timeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                        if (ec) return;
                        if (res->need_eof()) return self->end_connection();
                        self->read();
                      });
  }

  std::shared_ptr<server_context> ctx_;  // first: destroyed last, after the socket
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::uint64_t registration_ = 0;
};

class listener final : public server_session, public std::enable_shared_from_this<listener> {
 public:
  listener(std::shared_ptr<server_context> ctx, tcp::acceptor acceptor)
      : ctx_(std::move(ctx)), acceptor_(std::move(acceptor)) {}

  void start() {
    ctx_->add(weak_from_this());
    accept();
  }
  void shut_down() override {
    beast::error_code ignored;
    acceptor_.close(ignored);
  }

 private:
  void accept() {
    acceptor_.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket s) {
      if (ec == net::error::operation_aborted) return;
      if (!ec) {
        bool refuse = self->ctx_->open_connections >= self->ctx_->options.max_connections;
        if (self->ctx_->tls)
          std::make_shared<http_session<tls_stream>>(self->ctx_, std::move(s), *self->ctx_->tls)
              ->start(refuse);
        else
          std::make_shared<http_session<beast::tcp_stream>>(self->ctx_, std::move(s))
              ->start(refuse);
      }
      // Out of descriptors and the like: the next accept may succeed, the others go on.
      self->accept();
    });
  }

  std::shared_ptr<server_context> ctx_;
  tcp::acceptor acceptor_;
};

caf::error cannot_listen(const std::string& why) {
  return caf::make_error(caf::sec::cannot_open_port, why);
}

}  // namespace

struct http_server::impl {
  std::shared_ptr<server_context> ctx;
  std::uint16_t port = 0;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::thread thread;
};

caf::expected<std::unique_ptr<http_server>> http_server::start(caf::actor_system& sys,
                                                               http_server_options options) {
  auto ctx = std::make_shared<server_context>(sys, std::move(options));
  auto& o = ctx->options;
  beast::error_code ec;
  if (!o.tls_cert.empty()) {
    // The certificate's chain and key; with a CA file, clients must show a certificate it
    // signed (as --publish's peers do).
    ctx->tls.emplace(net::ssl::context::tls_server);
    auto& t = *ctx->tls;
    t.set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                  net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                  net::ssl::context::no_tlsv1_1);
    t.use_certificate_chain_file(o.tls_cert, ec);
    if (ec) return cannot_listen("cannot use the certificate " + o.tls_cert + ": " + ec.message());
    t.use_private_key_file(o.tls_key, net::ssl::context::pem, ec);
    if (ec) return cannot_listen("cannot use the key " + o.tls_key + ": " + ec.message());
    if (!o.tls_ca.empty()) {
      t.load_verify_file(o.tls_ca, ec);
      if (ec) return cannot_listen("cannot use the CA file " + o.tls_ca + ": " + ec.message());
      t.set_verify_mode(net::ssl::verify_peer | net::ssl::verify_fail_if_no_peer_cert);
    }
  }
  auto address = net::ip::make_address(o.host, ec);
  if (ec) {
    tcp::resolver resolver(ctx->io);
    auto found = resolver.resolve(o.host, std::to_string(o.port), ec);
    if (ec || found.empty())
      return cannot_listen("cannot resolve '" + o.host + "': " + ec.message());
    address = found.begin()->endpoint().address();
  }
  tcp::acceptor acceptor(ctx->io);
  tcp::endpoint endpoint(address, o.port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    return cannot_listen("cannot listen on " + o.host + ":" + std::to_string(o.port) + ": " +
                         ec.message());
  auto p = std::make_shared<impl>();
  p->ctx = ctx;
  p->port = acceptor.local_endpoint().port();
  std::make_shared<listener>(ctx, std::move(acceptor))->start();
  p->work.emplace(net::make_work_guard(ctx->io));
  p->thread = std::thread([ctx] { ctx->io.run(); });
  return std::unique_ptr<http_server>(new http_server(std::move(p)));
}

http_server::~http_server() {
  stop();
}

std::uint16_t http_server::port() const {
  return impl_->port;
}

void http_server::stop() {
  if (!impl_->thread.joinable()) return;
  auto ctx = impl_->ctx;
  // Every socket closes on the I/O thread; their operations end, and with the work guard
  // gone the thread's run() returns once the last handler ran.
  ctx->post([ctx] { ctx->shut_down_all(); });
  impl_->work.reset();
  impl_->thread.join();
}

}  // namespace perfdm
