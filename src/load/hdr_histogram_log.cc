#include "load/hdr_histogram_log.h"

#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

namespace quanta {
namespace {

// The cookies' low nibble of the second byte names a word size in older encodings; V2's
// readers mask it off. HdrHistogram's Java and Python writers set it to 1, and so do we.
constexpr uint32_t kV2EncodingCookie = 0x1c849303u | 0x10u;
constexpr uint32_t kV2CompressionCookie = 0x1c849304u | 0x10u;
constexpr std::size_t kEncodingHeaderBytes = 40;
constexpr std::size_t kCompressionHeaderBytes = 8;

void put_be32(uint8_t* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

void put_be64(uint8_t* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(v >> (56 - 8 * i));
}

// ZigZag maps small magnitudes of either sign to small unsigned numbers (0, -1, 1, -2 ->
// 0, 1, 2, 3); then 7 bits a byte, low first, the top bit saying another byte follows. A
// 64-bit number needs at most 9 bytes because the ninth carries 8 bits and no flag.
void put_zigzag_varint(std::vector<uint8_t>& out, int64_t signed_value) {
  uint64_t v = (static_cast<uint64_t>(signed_value) << 1) ^ static_cast<uint64_t>(signed_value >> 63);
  for (int byte = 0; byte < 8; ++byte) {
    if (v < 0x80) {
      out.push_back(static_cast<uint8_t>(v));
      return;
    }
    out.push_back(static_cast<uint8_t>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));  // the ninth byte: the last 8 bits
}

}  // namespace

std::vector<uint8_t> hdr_encode_uncompressed(const HdrHistogram& h) {
  std::vector<uint8_t> out(kEncodingHeaderBytes, 0);
  // Only up to the maximum's index: the readers size their array from the header's range.
  const std::size_t limit = h.total_count() > 0 ? h.index_of(h.max()) + 1 : 0;
  for (std::size_t i = 0; i < limit;) {
    const int64_t count = h.count_at_index(i);
    std::size_t next = i + 1;
    if (count == 0) {
      while (next < limit && h.count_at_index(next) == 0) ++next;
    }
    const auto zeros = static_cast<int64_t>(next - i);
    put_zigzag_varint(out, count == 0 && zeros > 1 ? -zeros : count);
    i = next;
  }
  uint8_t* head = out.data();
  put_be32(head, kV2EncodingCookie);
  put_be32(head + 4, static_cast<uint32_t>(out.size() - kEncodingHeaderBytes));
  put_be32(head + 8, 0);  // normalizing index offset: we never shift the array
  put_be32(head + 12, static_cast<uint32_t>(h.significant_digits()));
  put_be64(head + 16, static_cast<uint64_t>(h.lowest_discernible()));
  put_be64(head + 24, static_cast<uint64_t>(h.highest_trackable()));
  const double ratio = 1.0;  // counts are of integer values, not of doubles scaled to them
  uint64_t ratio_bits;
  std::memcpy(&ratio_bits, &ratio, sizeof ratio_bits);
  put_be64(head + 32, ratio_bits);
  return out;
}

std::string hdr_encode_compressed_base64(const HdrHistogram& h) {
  const std::vector<uint8_t> plain = hdr_encode_uncompressed(h);
  uLongf compressed_bytes = compressBound(static_cast<uLong>(plain.size()));
  std::vector<uint8_t> out(kCompressionHeaderBytes + compressed_bytes);
  // zlib's own stream format (header, deflate, Adler-32), as the readers inflate it.
  if (compress(out.data() + kCompressionHeaderBytes, &compressed_bytes, plain.data(),
               static_cast<uLong>(plain.size())) != Z_OK) {
    throw std::runtime_error("zlib could not compress a histogram");
  }
  out.resize(kCompressionHeaderBytes + compressed_bytes);
  put_be32(out.data(), kV2CompressionCookie);
  put_be32(out.data() + 4, static_cast<uint32_t>(compressed_bytes));
  return base64_encode(out);
}

std::string base64_encode(const std::vector<uint8_t>& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    uint32_t group = uint32_t{bytes[i]} << 16;
    if (n > 1) group |= uint32_t{bytes[i + 1]} << 8;
    if (n > 2) group |= bytes[i + 2];
    for (std::size_t k = 0; k < 4; ++k) {
      out += k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 0x3f] : '=';
    }
  }
  return out;
}

HdrHistogramLogWriter::HdrHistogramLogWriter(const std::vector<std::string>& comments, double start_epoch_s,
                                             double max_unit_ratio)
    : max_unit_ratio_(max_unit_ratio) {
  for (const std::string& c : comments) text_ += "#[" + c + "]\n";
  text_ += "#[Histogram log format version 1.3]\n";
  const auto whole_s = static_cast<std::time_t>(std::floor(start_epoch_s));
  std::tm utc{};
  gmtime_r(&whole_s, &utc);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  // The readers take the number up to the first space: keep " (seconds since epoch)" after it.
  char line[160];
  std::snprintf(line, sizeof line, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch_s, date);
  text_ += line;
  std::snprintf(line, sizeof line, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch_s);
  text_ += line;
  text_ += "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
}

void HdrHistogramLogWriter::interval(double start_s, double length_s, const HdrHistogram& h) {
  char head[96];
  std::snprintf(head, sizeof head, "%.3f,%.3f,%.6f,", start_s, length_s,
                static_cast<double>(h.max()) / max_unit_ratio_);
  text_ += head;
  text_ += hdr_encode_compressed_base64(h);
  text_ += '\n';
}

}  // namespace quanta
