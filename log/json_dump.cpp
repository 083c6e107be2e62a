#include "log/json_dump.hpp"

#include <cmath>

namespace perfdm {

namespace {

void append_scalar(std::string& out, const nlohmann::ordered_json& value) {
  out += value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

void append_json(std::string& out, const nlohmann::ordered_json& value, json_real_writer real) {
  using type = nlohmann::ordered_json::value_t;
  switch (value.type()) {
    case type::object: {
      out += '{';
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (it != value.begin()) out += ',';
        append_scalar(out, it.key());
        out += ':';
        append_json(out, it.value(), real);
      }
      out += '}';
      break;
    }
    case type::array: {
      out += '[';
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (it != value.begin()) out += ',';
        append_json(out, *it, real);
      }
      out += ']';
      break;
    }
    case type::number_float: {
      const double v = value.get<double>();
      if (std::isfinite(v)) {
        real(out, v);
      } else {
        append_scalar(out, value);
      }
      break;
    }
    default:
      append_scalar(out, value);
  }
}

}  // namespace perfdm
