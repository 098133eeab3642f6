#include "policy/classed_policy.h"

#include "policy/finite_number.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace quanta {

ClassedPolicy::ClassedPolicy(std::string_view inner, std::size_t max_tasks, std::vector<ClassParams> classes)
    : class_of_(max_tasks, 0),
      bandwidth_(classes),
      name_(std::string(inner) + "+classes") {
  if (classes.empty() || classes.size() > kMaxClasses) {
    throw std::invalid_argument("class schedule: from 1 to " + std::to_string(kMaxClasses) + " classes");
  }
  for (std::size_t i = 0; i < classes.size(); ++i) queues_.push_back(make_local_policy(inner, max_tasks));
}

void ClassedPolicy::set_class(TaskId task, uint32_t class_index) {
  // A class the schedule does not name is scheduled as the last one it names.
  class_of_[task] = class_index < queues_.size() ? class_index : static_cast<uint32_t>(queues_.size() - 1);
}

void ClassedPolicy::admit(TaskId task) {
  queues_[class_of_[task]]->admit(task);
  ++waiting_;
}

void ClassedPolicy::requeue(TaskId task, uint64_t attained_service) {
  queues_[class_of_[task]]->requeue(task, attained_service);
  ++waiting_;
}

std::optional<TaskId> ClassedPolicy::pick() {
  last_class_.reset();
  bool waiting[kMaxClasses];
  for (std::size_t c = 0; c < queues_.size(); ++c) waiting[c] = queues_[c]->waiting() > 0;
  const std::optional<uint32_t> c = bandwidth_.pick(now_, std::span<const bool>(waiting, queues_.size()));
  if (!c) return std::nullopt;
  last_class_ = *c;
  --waiting_;
  return queues_[*c]->pick();
}

std::vector<ClassParams> parse_class_schedule(std::string_view spec, double scale) {
  std::vector<ClassParams> classes;
  const std::string whole(spec);
  std::size_t index = 0;
  while (true) {
    const std::size_t comma = spec.find(',');
    const std::string entry(spec.substr(0, comma));
    const std::string where = "class schedule '" + whole + "', class " + std::to_string(index) + " ('" + entry + "'): ";
    ClassParams p;
    std::size_t at = 0;
    auto next_field = [&]() {
      const std::size_t colon = entry.find(':', at);
      std::string field = entry.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
      at = colon == std::string::npos ? entry.size() + 1 : colon + 1;
      return field;
    };
    const std::string kind = next_field();
    if (kind == "lc") {
      p.latency_critical = true;
      p.priority = 1;
    } else if (kind == "be") {
      p.latency_critical = false;
    } else {
      throw std::invalid_argument(where + "the kind must be lc or be");
    }
    while (at <= entry.size()) {
      const std::string field = next_field();
      if (field == "cap") {
        p.capped = true;
      } else if (!field.empty() && field[0] == 'p') {
        char* end = nullptr;
        const long v = std::strtol(field.c_str() + 1, &end, 10);
        if (end == field.c_str() + 1 || *end != '\0' || v < -1000 || v > 1000) {
          throw std::invalid_argument(where + "a priority is p followed by a whole number from -1000 to 1000");
        }
        p.priority = static_cast<int>(v);
      } else {
        const std::size_t slash = field.find('/');
        const std::optional<double> runtime = parse_finite_number(std::string_view(field).substr(0, slash));
        const std::optional<double> period =
            slash == std::string::npos ? std::nullopt : parse_finite_number(std::string_view(field).substr(slash + 1));
        if (!runtime || !period || *runtime <= 0 || *period <= 0 || *runtime > 1e9 || *period > 1e9) {
          throw std::invalid_argument(where + "'" + field + "' is not RUNTIME/PERIOD (positive numbers), cap or pN");
        }
        p.runtime = static_cast<uint64_t>(std::llround(*runtime * scale));
        p.period = static_cast<uint64_t>(std::llround(*period * scale));
        if (p.runtime == 0) p.runtime = 1;
      }
    }
    classes.push_back(p);
    if (comma == std::string_view::npos) break;
    spec = spec.substr(comma + 1);
    ++index;
  }
  try {
    ClassBandwidth check(classes);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("class schedule '" + whole + "': " + e.what());
  }
  return classes;
}

}  // namespace quanta
