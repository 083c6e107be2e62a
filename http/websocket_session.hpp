// One WebSocket of the dashboard server (/ws): the transport of a gateway connection
// (actors/gateway_connection_actor.hpp) whose messages are WebSocket text frames, one request, reply
// or stream event per frame, with the TCP gateway's flow control: above the pause threshold
// of unsent output the socket is not read; above the maximum the connection is closed with
// 1008 (policy) "too much output unread"; a message over the size limit closes it with 1009.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <memory>

#include "http/server_context.hpp"

namespace perfdm {

// Takes over the connection after the HTTP upgrade request `upgrade` was read from it (a client
// sends nothing more before the handshake's answer), completes
// the WebSocket handshake and starts the connection's actor.
// `stream`: the connection, plain or TLS, its own timeout off.
void start_websocket_session(std::shared_ptr<server_context> ctx, boost::beast::tcp_stream stream,
                             boost::beast::http::request<boost::beast::http::string_body> upgrade);
void start_websocket_session(std::shared_ptr<server_context> ctx,
                             boost::beast::ssl_stream<boost::beast::tcp_stream> stream,
                             boost::beast::http::request<boost::beast::http::string_body> upgrade);

}  // namespace perfdm
