#include "load/trace_schedule.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace quanta {
namespace {

// Past this a send time is surely a mistake (about 11.6 days), and its ns still fit.
constexpr double kMaxSendTimeUs = 1e12;

// The class a line names: a class's key or label, else an index. Throws the message alone.
uint32_t class_named(const std::string& token, const Workload& workload) {
  const auto& classes = workload.classes();
  // Names first: a class's key is often a number itself ("500", the long class of
  // extreme-bimodal), and it means that class, not index 500.
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (classes[i].key == token || classes[i].label == token) return static_cast<uint32_t>(i);
  }
  char* end = nullptr;
  errno = 0;
  const unsigned long index = std::strtoul(token.c_str(), &end, 10);
  if (!token.empty() && token[0] != '-' && *end == '\0' && errno == 0) {
    if (index < classes.size()) return static_cast<uint32_t>(index);
    throw std::invalid_argument("class index " + token + " is out of range (the workload has " +
                                std::to_string(classes.size()) + " classes, 0 to " +
                                std::to_string(classes.size() - 1) + ")");
  }
  std::string known;
  for (const ServiceClass& c : classes) {
    known += (known.empty() ? "" : ", ") + c.key + (c.label != c.key ? " (" + c.label + ")" : "");
  }
  throw std::invalid_argument("unknown class '" + token + "' (the workload '" + workload.spec() + "' has " + known +
                              ", or an index)");
}

// A send time in us: a finite number from 0 to kMaxSendTimeUs. Throws the message alone.
double send_time_us(const std::string& token) {
  char* end = nullptr;
  const double us = std::strtod(token.c_str(), &end);
  if (end == token.c_str() || *end != '\0' || !std::isfinite(us)) {
    throw std::invalid_argument("'" + token + "' is not a send time (a number of microseconds)");
  }
  if (us < 0) throw std::invalid_argument("send time " + token + " us is negative");
  if (us > kMaxSendTimeUs) throw std::invalid_argument("send time " + token + " us is beyond 1e12 us");
  return us;
}

}  // namespace

std::vector<Arrival> read_trace_schedule(std::istream& in, const std::string& name, const Workload& workload,
                                         uint64_t seed, std::size_t max_requests) {
  // The service-time stream of the drawn schedules (send_schedule.cc, io/schedule.cc),
  // so a trace's unclassed lines get the draws a Poisson run of this seed would.
  Rng services(seed * 2 + 2);
  std::vector<Arrival> schedule;
  std::string line;
  std::size_t line_number = 0;
  double previous_us = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::size_t comment = line.find('#');
    if (comment != std::string::npos) line.resize(comment);
    std::istringstream fields(line);
    std::string time_token, class_token, extra;
    if (!(fields >> time_token)) continue;
    fields >> class_token >> extra;
    const std::string where = name + ":" + std::to_string(line_number) + ": ";
    try {
      if (!extra.empty()) {
        throw std::invalid_argument("expected a send time in us and optionally a class, found more ('" + extra + "')");
      }
      if (schedule.size() >= max_requests) {
        throw std::invalid_argument("more than " + std::to_string(max_requests) + " requests; split the trace");
      }
      const double us = send_time_us(time_token);
      if (us < previous_us) {
        throw std::invalid_argument("send time " + time_token + " us is before the previous line's " +
                                    std::to_string(previous_us) + " us (times must not decrease)");
      }
      previous_us = us;
      const ServiceSample s = class_token.empty() ? workload.sample_at(us * 1e3, services)
                                                  : workload.sample_class(class_named(class_token, workload), services);
      schedule.push_back(make_arrival(std::round(us * 1e3), s));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + e.what());
    }
  }
  if (in.bad()) throw std::invalid_argument(name + ": read error after line " + std::to_string(line_number));
  if (schedule.empty()) throw std::invalid_argument(name + ": no send times (only blank lines or comments)");
  return schedule;
}

std::vector<Arrival> load_trace_schedule(const std::string& path, const Workload& workload, uint64_t seed) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--arrivals-file: cannot read '" + path + "'");
  return read_trace_schedule(in, path, workload, seed);
}

}  // namespace quanta
