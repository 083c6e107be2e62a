// inspect() for plain structs, spelled once: PERFDM_INSPECT(type, x.a, x.b) makes the struct
// printable and serialisable by CAF under the name of its type, its doubles exact
// (messages/exact_doubles.hpp).
#pragma once

#include <caf/meta/type_name.hpp>

#include "messages/exact_doubles.hpp"

#define PERFDM_INSPECT(type, ...)                                  \
  template <class Inspector>                                       \
  typename Inspector::result_type inspect(Inspector& f, type& x) { \
    return ::perfdm::inspect_fields(f, #type, __VA_ARGS__);        \
  }
#define PERFDM_INSPECT_EMPTY(type)                                 \
  template <class Inspector>                                       \
  typename Inspector::result_type inspect(Inspector& f, type&) {   \
    return f(caf::meta::type_name(#type));                         \
  }
