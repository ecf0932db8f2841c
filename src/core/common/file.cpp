#include "isocost/detail/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <string_view>
#include <system_error>
#include <vector>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

namespace {

namespace fs = std::filesystem;

// A path in a message: escaped like any field, but never cut short.
std::string quoted(const std::string& path) {
  return quote(path, std::numeric_limits<std::size_t>::max());
}

// strerror's text in lower case, to continue a message: "no such file or directory".
std::string reason(int err) {
  std::string text = std::generic_category().message(err);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z' && (text.size() < 2 || text[1] > 'Z'))
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return text;
}

// A stream buffer over a file descriptor that keeps the first write error's
// errno, so the message can say "no space left on device" rather than "failed".
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd), buffer_(1 << 16) { reset(); }
  int error() const { return error_; }
  bool flush() {
    for (const char* p = pbase(); p < pptr() && error_ == 0;) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n >= 0)
        p += n;
      else if (errno != EINTR)
        error_ = errno;
    }
    reset();  // after an error the rest is dropped: the stream is bad anyway
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!flush()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return flush() ? 0 : -1; }

 private:
  void reset() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  int fd_;
  int error_ = 0;
  std::vector<char> buffer_;
};

// Runs `write` on `fd` and flushes; the errno of a failed write, else 0.
int write_to(int fd, const std::function<void(std::ostream&)>& write) {
  FdBuffer buffer(fd);
  std::ostream out(&buffer);
  write(out);
  out.flush();
  return buffer.error() != 0 ? buffer.error() : (out ? 0 : EIO);
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: writing goes to the
// descriptor itself. Reopening the name would truncate a file the shell opened
// for appending, and renaming over it would replace the file, not write to it.
std::optional<int> descriptor_alias(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.rfind(prefix, 0) != 0) continue;
    const std::string digits = path.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::stoi(digits);
  }
  return std::nullopt;
}

// Follows symbolic links from `path` to the file they finally name (relative
// links resolve against the link's directory). `st` gets its lstat, or
// `exists` false when nothing is there yet (a new file or a dangling link);
// `alias` the descriptor when a link leads to one (a link to /dev/stdout).
fs::path follow_links(const std::string& path, struct stat& st, bool& exists,
                      std::optional<int>& alias) {
  fs::path current(path);
  for (int hops = 0; hops <= 40; ++hops) {
    if ((alias = descriptor_alias(current.string()))) return current;
    if (::lstat(current.c_str(), &st) != 0) {
      const int err = errno;
      if (err != ENOENT) throw Error("cannot write " + quoted(path) + ": " + reason(err));
      exists = false;
      return current;
    }
    if (!S_ISLNK(st.st_mode)) {
      exists = true;
      return current;
    }
    std::error_code ec;
    const fs::path to = fs::read_symlink(current, ec);
    if (ec) throw Error("cannot write " + quoted(path) + ": " + reason(ec.value()));
    current = to.is_absolute() ? to : current.parent_path() / to;
  }
  throw Error("cannot write " + quoted(path) + ": " + reason(ELOOP));
}

void write_directly(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot write " + quoted(path) + ": " + reason(errno));
  int err = 0;
  try {
    err = write_to(fd, write);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
  if (err != 0) throw Error("cannot write " + quoted(path) + ": " + reason(err));
}

void write_to_descriptor(int fd, const std::string& path,
                         const std::function<void(std::ostream&)>& write) {
  // What the program already printed comes first.
  if (fd == 1) {
    std::cout.flush();
    std::fflush(stdout);
  } else if (fd == 2) {
    std::clog.flush();
    std::fflush(stderr);
  }
  if (const int err = write_to(fd, write); err != 0)
    throw Error("cannot write " + quoted(path) + ": " + reason(err));
}

// Writes a temporary in `target`'s directory and renames it over `target`.
// `old` is the lstat of the file being replaced, or null for a new file.
void replace(const std::string& path, const fs::path& target, const struct stat* old,
             const std::function<void(std::ostream&)>& write) {
  const fs::path folder = target.parent_path();
  // A hidden random name, short enough for NAME_MAX whatever the target's name;
  // O_EXCL so that two writers never share a temporary.
  const std::string base = target.filename().string().substr(0, 100);
  std::random_device entropy;
  fs::path temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temp = folder / ("." + base + ".isocost-" + std::to_string(entropy()) + ".tmp");
    // A new file gets 0666 less the umask, as any file the user creates; a
    // replaced one gets its old mode below.
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, old ? 0600 : 0666);
    if (fd < 0 && errno != EEXIST) {
      const int err = errno;
      throw Error("cannot write " + quoted(path) + ": cannot create a file in " +
                  quoted(folder.empty() ? "." : folder.string()) + ": " + reason(err));
    }
  }
  if (fd < 0) throw Error("cannot write " + quoted(path) + ": no free temporary name");
  auto discard = [&] { ::unlink(temp.c_str()); };
  int err = 0;
  try {
    err = write_to(fd, write);
  } catch (...) {
    ::close(fd);
    discard();
    throw;
  }
  if (old != nullptr) {
    // Keep who owns the file and who may read it. The owner can only be kept
    // where the system allows it (root, or a group the user is in); chown
    // clears set-id bits, so the mode comes after it.
    if (old->st_uid != ::geteuid() || old->st_gid != ::getegid()) {
      [[maybe_unused]] const int ignored = ::fchown(fd, old->st_uid, old->st_gid);
    }
    if (err == 0 && ::fchmod(fd, old->st_mode & 07777) != 0) err = errno;
  }
  // On disk before the rename: after a crash the name holds the old file or
  // the whole new one, never an empty one.
  if (err == 0 && ::fsync(fd) != 0 && errno != EINVAL) err = errno;
  if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
  if (err == 0 && ::rename(temp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    discard();
    throw Error("cannot write " + quoted(path) + ": " + reason(err));
  }
  // Make the rename itself durable; a failure here loses nothing already done.
  if (const int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
      dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) throw Error("cannot write '': expected a file name");
  struct stat st {};
  bool exists = false;
  std::optional<int> alias;
  const fs::path target = follow_links(path, st, exists, alias);
  if (alias) return write_to_descriptor(*alias, path, write);
  if (!exists) return replace(path, target, nullptr, write);
  if (S_ISDIR(st.st_mode))
    throw Error("cannot write " + quoted(path) + ": is a directory, expected a file name");
  if (S_ISREG(st.st_mode)) return replace(path, target, &st, write);
  write_directly(target.string(), write);  // a device, FIFO or socket
}

std::ifstream open_for_reading(const std::string& path) {
  if (path.empty()) throw Error("cannot open '': expected a file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat link {};
    std::error_code ec;
    if (err == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      throw Error("cannot open " + quoted(path) + ": dangling symbolic link to " +
                  quoted(fs::read_symlink(path, ec).string()));
    throw Error("cannot open " + quoted(path) + ": " + reason(err));
  }
  if (S_ISDIR(st.st_mode)) throw Error("cannot open " + quoted(path) + ": is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw Error("cannot open " + quoted(path) + (err != 0 ? ": " + reason(err) : " for reading"));
  }
  return in;
}

}  // namespace isocost::detail
