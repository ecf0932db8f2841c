#include "isocost/detail/file.hpp"

#include <filesystem>
#include <fstream>
#include <random>

#include "isocost/error.hpp"

namespace isocost::detail {

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  // A random name: two processes writing the same file never share a temporary.
  const fs::path temp =
      target.parent_path() / (".isocost-" + std::to_string(std::random_device{}()) + "-" +
                              target.filename().string() + ".tmp");
  auto discard = [&] {
    std::error_code ignored;
    fs::remove(temp, ignored);
  };
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write '" + path + "': cannot create " + temp.string());
    try {
      write(out);
    } catch (...) {
      out.close();
      discard();
      throw;
    }
    out.close();
    if (!out) {
      discard();
      throw Error("cannot write '" + path + "': write to " + temp.string() + " failed");
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    discard();
    throw Error("cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace isocost::detail
