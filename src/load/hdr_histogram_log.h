// HdrHistogram's interval log format, written from scratch: the text file that
// HdrHistogram's HistogramLogReader, HistogramLogProcessor and plotters and the `hdrh`
// Python package read. Each interval line carries one histogram in HdrHistogram's "V2"
// encoding:
//
//   base64( compression header | zlib( encoding header | counts ) )
//
//   compression header (8 bytes, big-endian): cookie 0x1c849304 (| 0x10), compressed length
//   encoding header (40 bytes, big-endian): cookie 0x1c849303 (| 0x10), counts length in
//     bytes, normalizing index offset (0), significant digits, lowest discernible value
//     (int64), highest trackable value (int64), integer-to-double ratio (IEEE double 1.0)
//   counts: the counts array up to the index of the maximum, each count ZigZag-mapped and
//     written as a little-endian base-128 varint of at most 9 bytes; a run of two or more
//     zero counts is written as one negative count, minus the run's length.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "load/hdr_histogram.h"

namespace quanta {

// The encoding header and counts, uncompressed (what zlib compresses).
std::vector<uint8_t> hdr_encode_uncompressed(const HdrHistogram& histogram);

// The whole wrapped encoding of an interval line's last column: compressed, base64.
// Throws std::runtime_error if zlib fails.
std::string hdr_encode_compressed_base64(const HdrHistogram& histogram);

// Standard base64 with padding (RFC 4648), as the log's readers decode it.
std::string base64_encode(const std::vector<uint8_t>& bytes);

// Writes the log's text: header first, then one line per interval.
class HdrHistogramLogWriter {
 public:
  // `comments`: lines of text put in the header as "#[...]" comments (no newlines).
  // `start_epoch_s`: when the run started, as StartTime and BaseTime, so that interval
  // timestamps are seconds since the start. `max_unit_ratio`: the Interval_Max column is
  // the histogram's maximum divided by it (1e6 turns nanoseconds into milliseconds, as
  // HdrHistogram's own writer does by default).
  HdrHistogramLogWriter(const std::vector<std::string>& comments, double start_epoch_s, double max_unit_ratio);

  void interval(double start_s, double length_s, const HdrHistogram& histogram);

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  double max_unit_ratio_;
};

}  // namespace quanta
