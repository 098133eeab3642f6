#include "runtime/probe_records.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "quanta/probe_record.h"

// The object tests/CMakeLists.txt compiles from probe_records_input.c with the pass.
#ifndef QUANTA_PROBE_RECORDS_INPUT_OBJECT
#error "tests/CMakeLists.txt passes the instrumented input object's path"
#endif

namespace quanta {
namespace {

const std::string kInputObject = QUANTA_PROBE_RECORDS_INPUT_OBJECT;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file under the test temp directory, removed when the test is done with it.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& bytes)
      : path_(testing::TempDir() + "quanta_probe_records_" + std::to_string(::getpid()) + "_" + name) {
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A minimal relocatable ELF64 with the given sections (name, contents) plus the section
// name table: just what the reader looks at.
std::string make_elf(const std::vector<std::pair<std::string, std::string>>& sections) {
  std::string names(1, '\0');
  std::string body;
  std::vector<Elf64_Shdr> headers(1);  // index 0: the null section
  for (const auto& [name, contents] : sections) {
    Elf64_Shdr h{};
    h.sh_name = static_cast<Elf64_Word>(names.size());
    h.sh_type = SHT_PROGBITS;
    h.sh_offset = sizeof(Elf64_Ehdr) + body.size();
    h.sh_size = contents.size();
    names += name + '\0';
    body += contents;
    headers.push_back(h);
  }
  Elf64_Shdr strtab{};
  strtab.sh_name = static_cast<Elf64_Word>(names.size());
  names += std::string(".shstrtab") + '\0';
  strtab.sh_type = SHT_STRTAB;
  strtab.sh_offset = sizeof(Elf64_Ehdr) + body.size();
  strtab.sh_size = names.size();
  body += names;
  headers.push_back(strtab);
  while (body.size() % 8) body += '\0';

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_REL;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shoff = sizeof(Elf64_Ehdr) + body.size();
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<Elf64_Half>(headers.size());
  eh.e_shstrndx = static_cast<Elf64_Half>(headers.size() - 1);
  std::string out(reinterpret_cast<const char*>(&eh), sizeof eh);
  out += body;
  out.append(reinterpret_cast<const char*>(headers.data()), headers.size() * sizeof(Elf64_Shdr));
  return out;
}

std::string record_bytes(uint32_t magic, uint16_t mode, uint32_t probes, const char* module) {
  quanta_probe_record r{};
  r.magic = magic;
  r.version = QUANTA_PROBE_RECORD_VERSION;
  r.mode = mode;
  r.probes = probes;
  r.lock_sites = 4;
  r.functions = 3;
  r.twins = mode == QUANTA_PROBE_MODE_FLAG ? 2 : 0;
  std::strncpy(r.module, module, sizeof r.module - 1);
  return std::string(reinterpret_cast<const char*>(&r), sizeof r);
}

// The message of the std::invalid_argument that reading `path` throws ("" if none).
std::string read_error(const std::string& path) {
  try {
    read_probe_records(path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ProbeRecords, ReadsTheRecordOfAnObjectCompiledWithThePass) {
  const std::vector<ProbeRecord> records = read_probe_records(kInputObject);
  ASSERT_EQ(records.size(), 1u);
  const ProbeRecord& r = records[0];
  EXPECT_EQ(r.mode, "clock");
  EXPECT_GT(r.probes, 0u);
  EXPECT_EQ(r.lock_sites, 2u);  // pthread_mutex_lock and _unlock
  EXPECT_EQ(r.functions, 2u);
  EXPECT_TRUE(ends_with(r.module, "probe_records_input.c")) << r.module;
}

TEST(ProbeRecords, FindsTheSameRecordLinkedIntoThisExecutable) {
  const ProbeRecord object = read_probe_records(kInputObject).at(0);
  int found = 0;
  for (const ProbeRecord& r : read_probe_records("/proc/self/exe")) {
    if (!ends_with(r.module, "probe_records_input.c")) continue;
    ++found;
    EXPECT_EQ(r.mode, object.mode);
    EXPECT_EQ(r.probes, object.probes);
    EXPECT_EQ(r.lock_sites, object.lock_sites);
    EXPECT_EQ(r.functions, object.functions);
  }
  EXPECT_EQ(found, 1);
}

// This program's quanta_text section (the instrumented input object's functions), as the
// file says and as the linker's __start/__stop symbols place it once loaded.
extern "C" const char __start_quanta_text[] __attribute__((weak));
extern "C" const char __stop_quanta_text[] __attribute__((weak));

TEST(ProbeRecords, FindsTheAddressRangeOfANamedSection) {
  ASSERT_NE(__start_quanta_text, nullptr);
  const auto ranges = read_section_ranges("/proc/self/exe", "quanta_text");
  ASSERT_EQ(ranges.size(), 1u);
  const auto [begin, end] = ranges[0];
  EXPECT_EQ(end - begin, static_cast<uint64_t>(__stop_quanta_text - __start_quanta_text));
  // A position-independent executable is loaded at some base: the offset is the same.
  const auto load_base = reinterpret_cast<uintptr_t>(__start_quanta_text) - begin;
  EXPECT_EQ(load_base % 4096, 0u);
  EXPECT_TRUE(read_section_ranges("/proc/self/exe", "no_such_section").empty());
}

TEST(ProbeRecords, DecodesEveryFieldAndEveryMode) {
  std::string records;
  records += record_bytes(QUANTA_PROBE_RECORD_MAGIC, QUANTA_PROBE_MODE_FLAG, 7, "a/flag.c");
  records += record_bytes(QUANTA_PROBE_RECORD_MAGIC, QUANTA_PROBE_MODE_COUNTER, 8, "counter.cc");
  records += record_bytes(QUANTA_PROBE_RECORD_MAGIC, QUANTA_PROBE_MODE_LOCKS_ONLY, 0, "locks.c");
  const TempFile file("modes.o", make_elf({{".text", "\xc3"}, {QUANTA_PROBE_RECORD_SECTION, records}}));
  const std::vector<ProbeRecord> got = read_probe_records(file.path());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].mode, "flag");
  EXPECT_EQ(got[0].probes, 7u);
  EXPECT_EQ(got[0].lock_sites, 4u);
  EXPECT_EQ(got[0].functions, 3u);
  EXPECT_EQ(got[0].twins, 2u);
  EXPECT_EQ(got[0].module, "a/flag.c");
  EXPECT_EQ(got[1].mode, "counter");
  EXPECT_EQ(got[1].twins, 0u);
  EXPECT_EQ(got[2].mode, "locks");
}

TEST(ProbeRecords, AnElfFileWithoutTheSectionHasNoRecords) {
  const TempFile file("plain.o", make_elf({{".text", "\xc3"}, {".data", "12345678"}}));
  EXPECT_TRUE(read_probe_records(file.path()).empty());
}

TEST(ProbeRecords, AMissingFileNamesThePath) {
  const std::string path = testing::TempDir() + "quanta_probe_records_no_such_file";
  const std::string error = read_error(path);
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
}

TEST(ProbeRecords, ANonElfFileIsRejectedByName) {
  const TempFile file("notes.txt", "these are not the sections you are looking for\n");
  const std::string error = read_error(file.path());
  EXPECT_NE(error.find(file.path()), std::string::npos) << error;
  EXPECT_NE(error.find("not an ELF file"), std::string::npos) << error;
}

TEST(ProbeRecords, A32BitElfFileIsRejected) {
  std::string bytes = file_bytes(kInputObject);
  bytes[EI_CLASS] = ELFCLASS32;
  const TempFile file("elf32.o", bytes);
  EXPECT_NE(read_error(file.path()).find("not a 64-bit ELF file"), std::string::npos);
}

TEST(ProbeRecords, ATruncatedFileIsRejected) {
  const std::string bytes = file_bytes(kInputObject);
  ASSERT_GT(bytes.size(), 200u);
  const TempFile file("cut.o", bytes.substr(0, 200));
  const std::string error = read_error(file.path());
  EXPECT_NE(error.find(file.path()), std::string::npos) << error;
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

TEST(ProbeRecords, ARecordWithBadMagicIsRejected) {
  std::string records = record_bytes(QUANTA_PROBE_RECORD_MAGIC, QUANTA_PROBE_MODE_CLOCK, 1, "good.c");
  records += record_bytes(0x12345678, QUANTA_PROBE_MODE_CLOCK, 1, "bad.c");
  const TempFile file("magic.o", make_elf({{QUANTA_PROBE_RECORD_SECTION, records}}));
  const std::string error = read_error(file.path());
  EXPECT_NE(error.find(file.path()), std::string::npos) << error;
  EXPECT_NE(error.find("record 1"), std::string::npos) << error;
  EXPECT_NE(error.find("bad magic 0x12345678"), std::string::npos) << error;
}

TEST(ProbeRecords, TheOldEightByteCountIsNotMistakenForRecords) {
  const TempFile file("old.o", make_elf({{QUANTA_PROBE_RECORD_SECTION, std::string("\x05\0\0\0\0\0\0\0", 8)}}));
  EXPECT_NE(read_error(file.path()).find("not a whole number of 128-byte records"), std::string::npos);
}

}  // namespace
}  // namespace quanta
