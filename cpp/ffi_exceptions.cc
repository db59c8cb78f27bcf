// What happens when a C++ exception leaves an FFI handler, and how a handler keeps it in (chapter 11,
// section 8). Three handlers compute take(table, index): out[i] = table[index[i]], checking each index
// with a library function that throws:
//   Take          lets the library's std::out_of_range escape;
//   TakeOwnError  lets an exception of the library's own type, not derived from std::exception, escape;
//   TakeSafe      catches every exception and returns it as an ffi::Error, as every handler should.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// A library that reports a bad index by throwing, as much C++ code does: once a std::out_of_range,
// once an error type of its own.
struct IndexError {
  std::int64_t index;
};

static float At(const float* data, std::int64_t size, std::int64_t i) {
  if (i < 0 || i >= size) {
    throw std::out_of_range("index " + std::to_string(i) + " is outside [0, " + std::to_string(size) + ")");
  }
  return data[i];
}

static float AtOrThrowOwn(const float* data, std::int64_t size, std::int64_t i) {
  if (i < 0 || i >= size) throw IndexError{i};
  return data[i];
}

template <float (*Lookup)(const float*, std::int64_t, std::int64_t)>
static ffi::Error TakeWith(ffi::Buffer<ffi::F32> table, ffi::Buffer<ffi::S32> index,
                           ffi::ResultBuffer<ffi::F32> out) {
  if (out->element_count() != index.element_count()) {
    return ffi::Error::InvalidArgument("take: out must have as many elements as index");
  }
  const std::int64_t size = static_cast<std::int64_t>(table.element_count());
  for (std::size_t i = 0; i < index.element_count(); ++i) {
    out->typed_data()[i] = Lookup(table.typed_data(), size, index.typed_data()[i]);
  }
  return ffi::Error::Success();
}

// The fix: the implementation catches whatever the code it calls may throw, and returns it as an
// ffi::Error, which reaches Python as a JaxRuntimeError with this message.
static ffi::Error TakeSafeImpl(ffi::Buffer<ffi::F32> table, ffi::Buffer<ffi::S32> index,
                               ffi::ResultBuffer<ffi::F32> out) {
  try {
    return TakeWith<AtOrThrowOwn>(table, index, out);
  } catch (const IndexError& err) {
    return ffi::Error::InvalidArgument("take: index " + std::to_string(err.index) + " is out of range");
  } catch (const std::exception& err) {
    return ffi::Error::Internal(std::string("take: ") + err.what());
  } catch (...) {
    return ffi::Error::Internal("take: an unknown C++ exception");
  }
}

#define TAKE_BINDING                              \
  ffi::Ffi::Bind()                                \
      .Arg<ffi::Buffer<ffi::F32>>() /* table */   \
      .Arg<ffi::Buffer<ffi::S32>>() /* index */   \
      .Ret<ffi::Buffer<ffi::F32>>() /* out */

XLA_FFI_DEFINE_HANDLER_SYMBOL(Take, TakeWith<At>, TAKE_BINDING);
XLA_FFI_DEFINE_HANDLER_SYMBOL(TakeOwnError, TakeWith<AtOrThrowOwn>, TAKE_BINDING);
XLA_FFI_DEFINE_HANDLER_SYMBOL(TakeSafe, TakeSafeImpl, TAKE_BINDING);

// For the child process the chapter runs: when an exception reaches std::terminate, say so and end
// the process with exit code 70, instead of the default abort() (which may leave a core dump or
// start the system's crash reporter).
extern "C" void exit_quietly_on_terminate() {
  std::set_terminate([] {
    std::fputs("std::terminate was called: an exception escaped and nothing caught it\n", stderr);
    std::_Exit(70);
  });
}
