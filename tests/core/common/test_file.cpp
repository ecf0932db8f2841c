// Tests for isocost/detail/file.hpp: write_atomically replaces regular files
// through a temporary (keeping their mode and owner), follows symbolic links
// and keeps them, writes devices, FIFOs and descriptor aliases directly, and
// on failure leaves the old file and no temporary; open_for_reading says why
// a file cannot be opened.
#include "isocost/detail/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>

#include "isocost/error.hpp"
#include "support/expect_error.hpp"

namespace {

namespace fs = std::filesystem;
using isocost::detail::open_for_reading;
using isocost::detail::write_atomically;
using isocost::testing::error_of;
using isocost::testing::expect_error;
using isocost::testing::has;

std::string ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void Write(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

void WriteText(const fs::path& path, const std::string& text) {
  write_atomically(path.string(), [&](std::ostream& out) { out << text; });
}

// Every name below `dir` (so a leftover temporary shows up). Lexical:
// fs::relative would resolve links, and following them could loop.
std::set<std::string> Listing(const fs::path& dir) {
  std::set<std::string> names;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    names.insert(it->path().lexically_relative(dir).string());
    if (it->is_symlink()) it.disable_recursion_pending();
  }
  return names;
}

struct stat Lstat(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

class File : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "isocost_file_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  fs::path dir;
};

// ---------------------------------------------------------------------------
// Regular files

TEST_F(File, NewFileGetsTheTextAndTheUsualMode) {
  const mode_t mask = ::umask(022);  // a known umask: new files are 0666 & ~022
  WriteText(dir / "out.txt", "hello\n");
  ::umask(mask);
  EXPECT_EQ(ReadWhole(dir / "out.txt"), "hello\n");
  EXPECT_EQ(Lstat(dir / "out.txt").st_mode & 07777, 0644u);
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"out.txt"}));
}

TEST_F(File, ExistingFileIsReplacedAndKeepsItsMode) {
  Write(dir / "out.txt", "old contents that are longer than the new\n");
  ASSERT_EQ(::chmod((dir / "out.txt").c_str(), 0604), 0);
  const ino_t before = Lstat(dir / "out.txt").st_ino;
  WriteText(dir / "out.txt", "new\n");
  EXPECT_EQ(ReadWhole(dir / "out.txt"), "new\n");
  const struct stat st = Lstat(dir / "out.txt");
  EXPECT_EQ(st.st_mode & 07777, 0604u);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_NE(st.st_ino, before) << "not replaced by a rename: a reader could see a partial file";
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"out.txt"}));
}

TEST_F(File, ReplacedFileKeepsItsOwnerWhereAllowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root may give a file to another user";
  Write(dir / "out.txt", "old\n");
  ASSERT_EQ(::chown((dir / "out.txt").c_str(), 12345, 23456), 0);
  WriteText(dir / "out.txt", "new\n");
  const struct stat st = Lstat(dir / "out.txt");
  EXPECT_EQ(st.st_uid, 12345u);
  EXPECT_EQ(st.st_gid, 23456u);
  EXPECT_EQ(ReadWhole(dir / "out.txt"), "new\n");
}

TEST_F(File, ALongNameStillGetsATemporary) {
  const std::string name(250, 'n');  // the temporary's name must stay within NAME_MAX
  WriteText(dir / name, "x");
  EXPECT_EQ(ReadWhole(dir / name), "x");
  EXPECT_EQ(Listing(dir), (std::set<std::string>{name}));
}

TEST_F(File, AnExceptionFromTheWriterLeavesTheOldFileAndNoTemporary) {
  Write(dir / "out.txt", "old\n");
  EXPECT_THROW(write_atomically((dir / "out.txt").string(),
                                [](std::ostream& out) {
                                  out << std::string(200000, 'p');  // some of it reached the disk
                                  throw std::runtime_error("writer failed");
                                }),
               std::runtime_error);
  EXPECT_EQ(ReadWhole(dir / "out.txt"), "old\n");
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"out.txt"}));
  // A new file is not created either.
  EXPECT_THROW(write_atomically((dir / "new.txt").string(),
                                [](std::ostream&) { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"out.txt"}));
}

TEST_F(File, UnwritablePlacesAreErrorsNamingThePath) {
  const fs::path missing = dir / "no" / "such" / "out.txt";
  expect_error([&] { WriteText(missing, "x"); }, {"cannot write", "'" + missing.string() + "'"});
  fs::create_directory(dir / "sub");
  expect_error([&] { WriteText(dir / "sub", "x"); },
               {"'" + (dir / "sub").string() + "'", "is a directory"});
  Write(dir / "plain", "p");
  expect_error([&] { WriteText(dir / "plain" / "out.txt", "x"); }, {"not a directory"});
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"sub", "plain"}));
  expect_error([] { write_atomically("", [](std::ostream&) {}); }, {"expected a file name"});
}

// ---------------------------------------------------------------------------
// Symbolic links

TEST_F(File, ALinkIsKeptAndItsTargetReplacedInTheTargetsFolder) {
  fs::create_directories(dir / "data");
  fs::create_directories(dir / "links");
  Write(dir / "data" / "real.txt", "old\n");
  ASSERT_EQ(::chmod((dir / "data" / "real.txt").c_str(), 0640), 0);
  fs::create_symlink("../data/real.txt", dir / "links" / "link");  // relative to its folder
  fs::create_symlink("link", dir / "links" / "link2");             // a chain of two
  const auto before = Listing(dir);

  WriteText(dir / "links" / "link2", "new\n");
  EXPECT_TRUE(fs::is_symlink(dir / "links" / "link2"));
  EXPECT_TRUE(fs::is_symlink(dir / "links" / "link"));
  EXPECT_EQ(fs::read_symlink(dir / "links" / "link"), fs::path("../data/real.txt"));
  EXPECT_EQ(ReadWhole(dir / "data" / "real.txt"), "new\n");
  EXPECT_EQ(Lstat(dir / "data" / "real.txt").st_mode & 07777, 0640u);
  EXPECT_EQ(Listing(dir), before);
}

TEST_F(File, ADanglingLinkGetsItsTargetCreated) {
  fs::create_symlink("made.txt", dir / "link");
  WriteText(dir / "link", "made\n");
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(ReadWhole(dir / "made.txt"), "made\n");
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"link", "made.txt"}));
}

TEST_F(File, ALinkLoopIsAnError) {
  fs::create_symlink("b", dir / "a");
  fs::create_symlink("a", dir / "b");
  expect_error([&] { WriteText(dir / "a", "x"); }, {"cannot write", "symbolic links"});
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"a", "b"}));
}

// ---------------------------------------------------------------------------
// Devices, FIFOs and descriptors: written in place

TEST_F(File, AFifoIsWrittenDirectly) {
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  // A non-blocking reader lets the writer's open() return at once, and the
  // text fits in the pipe's buffer: nothing here can block.
  const int reader = ::open((dir / "fifo").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  WriteText(dir / "fifo", "through the pipe\n");
  char buffer[256];
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe\n");
  EXPECT_TRUE(S_ISFIFO(Lstat(dir / "fifo").st_mode));
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"fifo"}));
}

TEST_F(File, DevNullStaysACharacterDevice) {
  WriteText("/dev/null", "discarded\n");
  const struct stat st = Lstat("/dev/null");
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
}

TEST_F(File, ADeviceNodeIsWrittenNotReplaced) {
  // Our own /dev/null beside the others, when the system lets us make one.
  if (::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot create a device node here";
  WriteText(dir / "null", "discarded\n");
  const struct stat st = Lstat(dir / "null");
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"null"}));
}

TEST_F(File, AFullDeviceIsAnErrorNamingIt) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  expect_error([] { WriteText("/dev/full", "x"); }, {"'/dev/full'", "no space left"});
  EXPECT_TRUE(S_ISCHR(Lstat("/dev/full").st_mode));
}

TEST_F(File, DescriptorAliasesWriteToTheDescriptorItself) {
  // A file opened for appending, as by `>> log`: /dev/fd/N must append to it,
  // neither truncate it nor put another file in its place.
  Write(dir / "log", "earlier\n");
  const ino_t inode = Lstat(dir / "log").st_ino;
  const int fd = ::open((dir / "log").c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  WriteText("/dev/fd/" + std::to_string(fd), "appended\n");
  WriteText("/proc/self/fd/" + std::to_string(fd), "again\n");
  // A link to an alias, as a link to /dev/stdout: /proc/self/fd/N itself
  // links to "pipe:[…]" or to the file, neither of which may be followed.
  fs::create_symlink("/dev/fd/" + std::to_string(fd), dir / "fdlink");
  WriteText(dir / "fdlink", "linked\n");
  ::close(fd);
  EXPECT_EQ(ReadWhole(dir / "log"), "earlier\nappended\nagain\nlinked\n");
  EXPECT_EQ(Lstat(dir / "log").st_ino, inode);
  EXPECT_EQ(Listing(dir), (std::set<std::string>{"log", "fdlink"}));
  // A descriptor that is not open.
  expect_error([] { WriteText("/dev/fd/987654", "x"); }, {"'/dev/fd/987654'", "bad file"});
}

// ---------------------------------------------------------------------------
// open_for_reading

TEST_F(File, OpenForReadingSaysWhy) {
  Write(dir / "ok.txt", "fine");
  auto in = open_for_reading((dir / "ok.txt").string());
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "fine");

  const std::string d = dir.string();
  EXPECT_TRUE(
      has(error_of([&] { open_for_reading(d); }), "cannot open '" + d + "': is a directory"));
  const std::string missing = (dir / "missing.txt").string();
  EXPECT_TRUE(has(error_of([&] { open_for_reading(missing); }),
                  "cannot open '" + missing + "': no such file or directory"));
  fs::create_symlink("gone.txt", dir / "dangling");
  const std::string dangling = (dir / "dangling").string();
  EXPECT_TRUE(has(error_of([&] { open_for_reading(dangling); }),
                  "cannot open '" + dangling + "': dangling symbolic link to 'gone.txt'"));
  const std::string under_file = (dir / "ok.txt" / "x").string();
  EXPECT_TRUE(has(error_of([&] { open_for_reading(under_file); }), "not a directory"));
  EXPECT_TRUE(has(error_of([] { open_for_reading(""); }), "expected a file name"));
  // Permission: root reads anything, so only an ordinary user can see this one.
  Write(dir / "secret.txt", "s");
  ASSERT_EQ(::chmod((dir / "secret.txt").c_str(), 0), 0);
  if (::access((dir / "secret.txt").c_str(), R_OK) != 0) {
    EXPECT_TRUE(has(error_of([&] { open_for_reading((dir / "secret.txt").string()); }),
                    "permission denied"));
  }
  // A name with a control character is escaped: the message stays one line.
  const std::string odd = (dir / "a\nb").string();
  const std::string e = error_of([&] { open_for_reading(odd); });
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_TRUE(has(e, "a\\nb")) << e;
}

}  // namespace
