#include "runtime/probe_records.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "quanta/probe_record.h"

namespace quanta {
namespace {

// Reads only the pieces it needs (ELF header, section headers, their name table, the one
// section) at their offsets: a binary with debug info can be hundreds of MB.
class ElfFile {
 public:
  explicit ElfFile(const std::string& path) : path_(path) {
    fd_.value = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_.value < 0) fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_.value, &st) != 0) fail(std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) fail("not a regular file");
    size_bytes_ = static_cast<uint64_t>(st.st_size);
  }

  uint64_t size_bytes() const { return size_bytes_; }

  // `length` bytes at `offset`; `what` names them when the file ends first.
  void read_at(uint64_t offset, void* out, uint64_t length, const char* what) const {
    if (offset > size_bytes_ || length > size_bytes_ - offset) {
      fail(std::string("truncated: ") + what + " runs past the end of the file (" +
           std::to_string(size_bytes_) + " bytes)");
    }
    auto* dst = static_cast<char*>(out);
    while (length > 0) {
      ssize_t n = ::pread(fd_.value, dst, length, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(std::string("read error: ") + std::strerror(errno));
      if (n == 0) fail(std::string("truncated while reading ") + what);
      dst += n;
      offset += static_cast<uint64_t>(n);
      length -= static_cast<uint64_t>(n);
    }
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw std::invalid_argument("'" + path_ + "': " + problem);
  }

 private:
  // Closes the file also when the constructor throws after opening it.
  struct Fd {
    int value = -1;
    Fd() = default;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
      if (value >= 0) ::close(value);
    }
  };
  std::string path_;
  Fd fd_;
  uint64_t size_bytes_ = 0;
};

Elf64_Ehdr read_header(const ElfFile& file) {
  unsigned char ident[EI_NIDENT] = {};
  const uint64_t have = file.size_bytes() < EI_NIDENT ? file.size_bytes() : EI_NIDENT;
  file.read_at(0, ident, have, "the ELF identification");
  if (have < SELFMAG || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    // An -flto object is LLVM bitcode until the link: worth saying so.
    if (have >= 2 && ident[0] == 'B' && ident[1] == 'C') {
      file.fail("not an ELF file (LLVM bitcode: an -flto object?)");
    }
    file.fail("not an ELF file");
  }
  if (have < EI_NIDENT) file.fail("truncated: shorter than an ELF identification");
  if (ident[EI_CLASS] != ELFCLASS64) file.fail("not a 64-bit ELF file (only 64-bit little-endian ELF is read)");
  if (ident[EI_DATA] != ELFDATA2LSB) file.fail("not a little-endian ELF file (only 64-bit little-endian ELF is read)");
  Elf64_Ehdr header;
  file.read_at(0, &header, sizeof header, "the ELF header");
  return header;
}

std::vector<Elf64_Shdr> read_section_headers(const ElfFile& file, const Elf64_Ehdr& header) {
  if (header.e_shoff == 0) return {};  // no section header table: no sections to look in
  if (header.e_shentsize != sizeof(Elf64_Shdr)) {
    file.fail("unexpected section header size " + std::to_string(header.e_shentsize));
  }
  // Past 0xff00 sections the count lives in the first header's sh_size (ELF extended
  // numbering), as can happen for large -ffunction-sections objects.
  Elf64_Shdr first;
  file.read_at(header.e_shoff, &first, sizeof first, "the section header table");
  const uint64_t count = header.e_shnum != 0 ? header.e_shnum : first.sh_size;
  if (count > file.size_bytes() / sizeof(Elf64_Shdr)) {
    file.fail("truncated: " + std::to_string(count) + " section headers do not fit in the file");
  }
  std::vector<Elf64_Shdr> sections(count);
  file.read_at(header.e_shoff, sections.data(), count * sizeof(Elf64_Shdr), "the section header table");
  return sections;
}

std::string read_section_names(const ElfFile& file, const Elf64_Ehdr& header,
                               const std::vector<Elf64_Shdr>& sections) {
  const uint64_t index = header.e_shstrndx == SHN_XINDEX ? sections[0].sh_link : header.e_shstrndx;
  if (index == SHN_UNDEF) return {};
  if (index >= sections.size()) {
    file.fail("the section name table index " + std::to_string(index) + " is out of range");
  }
  const Elf64_Shdr& table = sections[index];
  if (table.sh_size > file.size_bytes()) {  // before allocating for it
    file.fail("truncated: the section name table runs past the end of the file");
  }
  std::string names(table.sh_size, '\0');
  file.read_at(table.sh_offset, names.data(), names.size(), "the section name table");
  return names;
}

bool has_name(const std::string& names, uint32_t offset, const char* wanted) {
  if (offset >= names.size()) return false;
  const size_t end = names.find('\0', offset);  // npos: unterminated, not a match
  return end != std::string::npos && names.compare(offset, end - offset, wanted) == 0;
}

std::string mode_name(uint16_t mode) {
  switch (mode) {
    case QUANTA_PROBE_MODE_LOCKS_ONLY: return "locks";
    case QUANTA_PROBE_MODE_CLOCK: return "clock";
    case QUANTA_PROBE_MODE_FLAG: return "flag";
    case QUANTA_PROBE_MODE_COUNTER: return "counter";
  }
  return {};
}

void decode_section(const ElfFile& file, const Elf64_Shdr& section, std::vector<ProbeRecord>& out) {
  const char* name = QUANTA_PROBE_RECORD_SECTION;
  if (section.sh_type == SHT_NOBITS) file.fail(std::string("section ") + name + " has no contents in the file");
  if (section.sh_size % sizeof(quanta_probe_record) != 0) {
    file.fail(std::string("section ") + name + " is " + std::to_string(section.sh_size) +
              " bytes, not a whole number of " + std::to_string(sizeof(quanta_probe_record)) +
              "-byte records (built by an older quanta pass?)");
  }
  // Checked before the vector is sized from it: a corrupt size must not allocate.
  if (section.sh_size > file.size_bytes()) {
    file.fail(std::string("truncated: section ") + name + " runs past the end of the file");
  }
  std::vector<quanta_probe_record> records(section.sh_size / sizeof(quanta_probe_record));
  file.read_at(section.sh_offset, records.data(), section.sh_size, name);
  for (size_t i = 0; i < records.size(); ++i) {
    const quanta_probe_record& r = records[i];
    const std::string which = "record " + std::to_string(i) + " of section " + name;
    if (r.magic != QUANTA_PROBE_RECORD_MAGIC) {
      char magic[16];
      std::snprintf(magic, sizeof magic, "0x%08x", r.magic);
      file.fail(which + " has bad magic " + magic + " (expected 0x42525051, \"QPRB\")");
    }
    if (r.version != QUANTA_PROBE_RECORD_VERSION) {
      file.fail(which + " has version " + std::to_string(r.version) + "; this quanta reads version " +
                std::to_string(QUANTA_PROBE_RECORD_VERSION));
    }
    ProbeRecord rec;
    rec.mode = mode_name(r.mode);
    if (rec.mode.empty()) file.fail(which + " has unknown mode " + std::to_string(r.mode));
    rec.module.assign(r.module, strnlen(r.module, sizeof r.module));
    rec.probes = r.probes;
    rec.lock_sites = r.lock_sites;
    rec.functions = r.functions;
    rec.twins = r.twins;
    out.push_back(std::move(rec));
  }
}

}  // namespace

std::vector<ProbeRecord> read_probe_records(const std::string& path) {
  const ElfFile file(path);
  const Elf64_Ehdr header = read_header(file);
  const std::vector<Elf64_Shdr> sections = read_section_headers(file, header);
  if (sections.empty()) return {};
  const std::string names = read_section_names(file, header, sections);
  std::vector<ProbeRecord> records;
  // Normally one section; a relocatable object may split a named section into several
  // of the same name (groups, differing flags), and each holds whole records.
  for (const Elf64_Shdr& section : sections) {
    if (has_name(names, section.sh_name, QUANTA_PROBE_RECORD_SECTION)) decode_section(file, section, records);
  }
  return records;
}

std::vector<std::pair<uint64_t, uint64_t>> read_section_ranges(const std::string& path, const char* name) {
  const ElfFile file(path);
  const Elf64_Ehdr header = read_header(file);
  const std::vector<Elf64_Shdr> sections = read_section_headers(file, header);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  if (sections.empty()) return ranges;
  const std::string names = read_section_names(file, header, sections);
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_size > 0 && has_name(names, section.sh_name, name)) {
      ranges.emplace_back(section.sh_addr, section.sh_addr + section.sh_size);
    }
  }
  return ranges;
}

}  // namespace quanta
