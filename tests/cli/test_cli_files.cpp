// End-to-end tests of how isocost treats files: -o never replaces what it must
// not (devices, FIFOs, links), "-o -" is stdout, every input error names its
// file and says why, and a bad field is quoted escaped and bounded — even a
// 100 000-deep JSON array gives one clean line and exit code 2.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cli_test.hpp"

namespace {

const std::vector<std::string> kCut{"cut", "--domain", "6:1000", "--ranks", "2"};

// ---------------------------------------------------------------------------
// -o

TEST_F(Cli, OutputToDevNullKeepsTheDevice) {
  const Outcome r = Isocost(Cat(kCut, {"-o", "/dev/null"}));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
}

TEST_F(Cli, OutputDashIsStandardOutput) {
  const std::string expected = Ok(kCut);
  ASSERT_FALSE(expected.empty());
  const auto before = Listing(dir);
  EXPECT_EQ(Ok(Cat(kCut, {"-o", "-"})), expected);
  EXPECT_EQ(Ok(Cat(kCut, {"--output", "-"})), expected);
  EXPECT_EQ(Listing(dir), before) << "a file named '-' was written";
}

TEST_F(Cli, OutputToDevStdoutGoesToTheCapturedStdout) {
  const std::string expected = Ok(kCut);
  EXPECT_EQ(Ok(Cat(kCut, {"-o", "/dev/stdout"})), expected);
}

TEST_F(Cli, OutputThroughALinkKeepsTheLink) {
  const std::string expected = Ok(kCut);
  fs::create_directories(dir / "results");
  File("results/real.txt", "old result\n");
  ASSERT_EQ(::chmod((dir / "results" / "real.txt").c_str(), 0640), 0);
  fs::create_symlink("results/real.txt", dir / "link");
  const auto before = Listing(dir);
  EXPECT_EQ(Ok(Cat(kCut, {"-o", "link"})), "");
  EXPECT_TRUE(fs::is_symlink(dir / "link")) << "the link was replaced by a file";
  EXPECT_EQ(fs::read_symlink(dir / "link"), fs::path("results/real.txt"));
  EXPECT_EQ(ReadFile(dir / "results" / "real.txt"), expected);
  EXPECT_EQ(fs::status(dir / "results" / "real.txt").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(Listing(dir), before) << "a temporary was left behind";
}

TEST_F(Cli, OutputToAFifoIsWrittenIntoIt) {
  const std::string expected = Ok(kCut);
  ASSERT_LT(expected.size(), 4096u);  // fits the pipe's buffer: the writer never blocks
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  // Opened without blocking before the command runs, so the command's open()
  // for writing returns at once: no thread, and no hang if it went wrong.
  const int reader = ::open((dir / "fifo").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const Outcome r = Isocost(Cat(kCut, {"-o", "fifo"}));
  std::string got(8192, '\0');
  const ssize_t n = ::read(reader, got.data(), got.size());
  ::close(reader);
  got.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(got, expected);
  struct stat st {};
  ASSERT_EQ(::lstat((dir / "fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a file";
}

TEST_F(Cli, AFailedWriteIsExitOneAndLeavesNothing) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const auto before = Listing(dir);
  const Outcome r = Isocost(Cat(kCut, {"-o", "/dev/full"}));
  EXPECT_EQ(r.code, 1) << r.err;  // the result was computed and lost: not bad input
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(Has(r.err, "'/dev/full'")) << r.err;
  EXPECT_TRUE(Has(r.err, "no space left on device")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(Listing(dir), before);
}

// ---------------------------------------------------------------------------
// Input files

TEST_F(Cli, ADirectoryGivenAsAnInputFileIsBadInput) {
  fs::create_directories(dir / "data");
  const std::string d = (dir / "data").string();
  const std::string loads = File("loads.txt", "1\n2\n");
  const std::string graph = File("graph.txt", "0 1\n");
  const std::string because = "'" + d + "': is a directory";
  ExpectRejected({"cut", "--model", "pchip", "--samples", d, "--ranks", "2"}, {because});
  ExpectRejected({"cut", "--model", "discrete", "--weights", d, "--ranks", "2"}, {because});
  ExpectRejected({"fit", "--model", "power", d}, {because});
  ExpectRejected({"metrics", d}, {because});
  ExpectRejected({"metrics", loads, "--modelled", d}, {because});
  ExpectRejected({"diffuse", "--loads", d, "--graph", graph}, {because});
  ExpectRejected({"diffuse", "--loads", loads, "--graph", d}, {because});
  ExpectRejected({"diffuse", "--tasks", d, "--graph", graph}, {because});
  ExpectRejected({"partition", "--weights", d, "--shape", "2x2", "--ranks", "2"}, {because});
}

TEST_F(Cli, AnUnreadableInputSaysWhy) {
  fs::create_symlink("nowhere.txt", dir / "dangling");
  ExpectRejected({"metrics", "dangling"},
                 {"'dangling'", "dangling symbolic link to 'nowhere.txt'"});
  ExpectRejected({"metrics", "absent.txt"}, {"'absent.txt'", "no such file or directory"});
  File("plain.txt", "1\n");
  ExpectRejected({"metrics", "plain.txt/x"}, {"'plain.txt/x'", "not a directory"});
}

TEST_F(Cli, AByteOrderMarkIsIgnoredByEveryReader) {
  const std::string bom = "\xEF\xBB\xBF";
  File("loads.txt", "1\n2\n4\n");
  File("bom_loads.txt", bom + "1\n2\n4\n");
  EXPECT_EQ(Ok({"metrics", "bom_loads.txt"}),
            Ok({"metrics", "loads.txt"}).replace(7, 9, "bom_loads.txt"));
  File("phases.csv", bom + "rank,phase,time\n0,a,1\n1,a,2\n");
  Ok({"metrics", "phases.csv"});
  File("w.txt", bom + "1\n2\n3\n4\n");
  Ok({"cut", "--model", "discrete", "--weights", "w.txt", "--ranks", "2"});
  File("s.csv", bom + "x,t\n0,0\n1,1\n2,4\n3,9\n4,16\n");
  Ok({"cut", "--model", "pchip", "--samples", "s.csv", "--ranks", "2"});
  File("s.json", bom +
                     "{\"cumulative\": [{\"x\": 0, \"t\": 0}, {\"x\": 1, \"t\": 1}, "
                     "{\"x\": 2, \"t\": 4}, {\"x\": 3, \"t\": 9}]}\n");
  Ok({"fit", "--model", "power", "s.json"});
  File("graph.txt", bom + "0 1\n");
  File("two.txt", bom + "1\n3\n");
  Ok({"diffuse", "--loads", "two.txt", "--graph", "graph.txt"});
  File("tasks.csv", bom + "rank,id,load\n0,1,1\n0,2,1\n1,3,0.5\n");
  Ok({"diffuse", "--tasks", "tasks.csv", "--graph", "graph.txt"});
  File("grid.txt", bom + "1 2\n3 4\n");
  Ok({"partition", "--weights", "grid.txt", "--shape", "2x2", "--ranks", "2"});
}

TEST_F(Cli, AFileNameThatIsNotUtf8StillGivesJson) {
  // JSON is UTF-8: the byte 0xFF of a file name becomes U+FFFD ("\xEF\xBF\xBD")
  // instead of an exception (exit 1, "internal error", no result).
  const std::string name = "s\xFF.csv", shown = "s\xEF\xBF\xBD.csv";
  File(name, "x,t\n0,0\n1,1\n2,4\n3,9\n4,16\n");
  File("l\xFF.txt", "1\n3\n");
  File("g.txt", "0 1\n");
  const std::vector<std::vector<std::string>> commands{
      {"fit", "--model", "power", name, "--json"},
      {"cut", "--model", "pchip", "--samples", name, "--ranks", "2", "--json"},
      {"metrics", "l\xFF.txt", "--json"},
      {"diffuse", "--loads", "l\xFF.txt", "--graph", "g.txt", "--json"}};
  for (const auto& args : commands) {
    const std::string out = Ok(args);
    json j;
    EXPECT_NO_THROW(j = json::parse(out)) << args[0];  // throws on invalid UTF-8
    EXPECT_EQ(j.value("command", ""), args[0]);
    EXPECT_FALSE(Has(out, "\xFF")) << args[0];
  }
  EXPECT_TRUE(Has(Ok({"fit", "--model", "power", name, "--json"}), "\"file\": \"" + shown + "\""));
}

// ---------------------------------------------------------------------------
// Quoting bad fields

TEST_F(Cli, ACarriageReturnInABadFieldIsEscaped) {
  File("cr.txt", "1\n2\r3\n4\n");
  ExpectRejected({"metrics", "cr.txt"}, {"cr.txt:2:", "'2\\r3'"});
  const Outcome r = Isocost({"metrics", "cr.txt"});
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "a raw CR rewrites the terminal line";
}

TEST_F(Cli, AHugeBadFieldIsQuotedShort) {
  const std::string huge(10000, '7');
  File("huge.csv", "x,t\n0,0\n1," + huge + "x\n");
  ExpectRejected({"fit", "--model", "power", "huge.csv"}, {"huge.csv:3:", "(10001 bytes)"});
  const Outcome r = Isocost({"fit", "--model", "power", "huge.csv"});
  const auto got = r.err.find("got '");
  ASSERT_NE(got, std::string::npos) << r.err;
  EXPECT_LE(r.err.size() - got, 90u) << r.err;  // "got '…' (10001 bytes)\n"
  // The same on the command line.
  const Outcome c = Isocost({"cut", "--domain", "6:1000", "--ranks", std::string(10000, 'r')});
  EXPECT_EQ(c.code, 2);
  EXPECT_LE(c.err.size(), 200u) << c.err;
  EXPECT_TRUE(Has(c.err, "(10000 bytes)")) << c.err;
}

TEST_F(Cli, AVeryDeepJsonArrayIsACleanError) {
  const std::size_t depth = 100000;
  File("deep.json", std::string(depth, '[') + std::string(depth, ']') + "\n");
  ExpectRejected({"fit", "--model", "power", "deep.json"}, {"deep.json:1:", "(array)"});
  File("deep_key.json",
       "{\"cumulative\": " + std::string(depth, '[') + std::string(depth, ']') + "}\n");
  ExpectRejected({"fit", "--model", "power", "deep_key.json"}, {"deep_key.json:1:", "(array)"});
  File("deep_value.json", "{\"cumulative\": [{\"x\": " + std::string(depth, '[') +
                              std::string(depth, ']') + ", \"t\": 0}]}\n");
  ExpectRejected({"fit", "--model", "power", "deep_value.json"}, {"'x': expected a number"});
  const Outcome r = Isocost({"fit", "--model", "power", "deep.json"});
  EXPECT_LE(r.err.size(), 300u) << r.err;
}

TEST_F(Cli, AnUnknownKeyCutInsideAUtf8CharacterIsACleanError) {
  // Fuzz finding: a key quoted short was cut inside the 3 bytes of U+FEFF and
  // nlohmann's dump() threw on the half character (exit 1).
  const std::string bom = "\xEF\xBB\xBF";
  File("key.json", "[{\"N7nl:h" + bom + "mann16i_v2_11_74detail9cualutm" + bom +
                       "mann16i_v2_11_74deive\": 5}]\n");
  ExpectRejected({"fit", "--model", "power", "key.json"},
                 {"key.json:1:", "sample 0: expected an object", "(object)"});
}

}  // namespace
