//===- Expected.h - Results of runtime calls: a value or an error message ------===//
//
// The runtime links neither LLVM nor MLIR, and reports errors without exceptions: every call that can fail
// returns an Error (empty on success) or an Expected<T>.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_EXPECTED_H
#define BRICK_RUNTIME_EXPECTED_H

#include <string>
#include <utility>
#include <variant>

namespace brick::runtime {

/// A failure's message; a default-constructed Error means success.
class [[nodiscard]] Error {
public:
  Error() = default;
  explicit Error(std::string message) : message_(std::move(message)) {}
  /// True when this is a failure.
  explicit operator bool() const { return !message_.empty(); }
  const std::string &message() const { return message_; }

private:
  std::string message_;
};

template <class T> class [[nodiscard]] Expected {
public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Error error) : state_(std::move(error)) {}
  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  T &operator*() { return std::get<T>(state_); }
  const T &operator*() const { return std::get<T>(state_); }
  T *operator->() { return &std::get<T>(state_); }
  const T *operator->() const { return &std::get<T>(state_); }
  /// The failure (empty when ok()).
  Error error() const { return ok() ? Error() : std::get<Error>(state_); }

private:
  std::variant<T, Error> state_;
};

} // namespace brick::runtime

#endif // BRICK_RUNTIME_EXPECTED_H
