// The boundary of the public API: whatever goes wrong inside leaves as gj2k::Error.
#pragma once

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gj2k/error.h"

namespace gj2k::detail {

// Calls f() and returns its result. Every exception leaves as gj2k::Error:
//  - an Error keeps its code; its message is prefixed with "<name>: " unless name is empty or
//    the message already starts with it;
//  - std::bad_alloc and std::length_error (a size no allocation can serve) become kResource,
//    any other exception kInternal (a bug), each naming `name` and `stage` ("decoding", ...).
template <class F>
decltype(auto) guard(const std::string& name, const char* stage, F&& f) {
  const std::string where = name.empty() ? std::string() : name + ": ";
  try {
    return f();
  } catch (const Error& e) {
    if (name.empty() || std::string_view(e.what()).starts_with(where)) throw;
    throw Error(e.code(), where + e.what());
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kResource, where + "out of memory while " + stage);
  } catch (const std::length_error& e) {
    throw Error(ErrorCode::kResource, where + "a buffer too large for this machine while " + stage +
                                          " (" + e.what() + ")");
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kInternal,
                where + "unexpected failure while " + stage + ": " + e.what());
  } catch (...) {
    throw Error(ErrorCode::kInternal, where + "unexpected failure while " + stage);
  }
}

}  // namespace gj2k::detail
