// Service-time distributions by name or by spec, and the request classes they define.
// Names follow the papers (DESIGN.md): extreme-bimodal, high-bimodal, exp1, fixed1, tpcc.
// Specs: fixed:X, exp:MEAN, bimodal:P:A:B (P percent of A, the rest B), lognormal:MEAN:SIGMA;
// every time in µs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policy/rng.h"

namespace quanta {

struct ServiceClass {
  std::string key;      // the class's service time in µs as text ("0.5", "500"), the spec for a continuous
                        // one, or an app's name for the class ("get")
  std::string label;    // "short", "long", "all", or the key for classes in between and an app's classes
  double service_us;    // the class's service time (the mean, for a continuous distribution); 0: unknown
  double probability;
};

// A request class as an app declares it (quanta_class): the app's mix replaces --workload.
struct DeclaredClass {
  std::string name;
  double share;         // relative frequency, > 0
  double service_us;    // nominal CPU time, 0 if unknown
};

struct ServiceSample {
  uint32_t class_index;
  double service_ns;
};

class Workload {
 public:
  enum class Shape { kDiscrete, kExponential, kLognormal };

  // Throws std::invalid_argument with a message that names what is wrong in `spec`.
  static Workload parse(std::string_view spec);
  // An app's own classes, in its order. Throws std::invalid_argument naming a bad class
  // (no name, a duplicate name, a share or service time that is not a finite number >= 0,
  // or no class with a share above 0).
  static Workload declared(std::string name, const std::vector<DeclaredClass>& classes);
  static const std::vector<std::string>& names();
  // `first`, whose service times change mid-run: "SPEC@T_S,SPEC@T_S,..." (--workload-shift),
  // each SPEC a workload as parse() takes it, in force from T_S seconds into the run on
  // (T_S above 0, increasing). The classes are the union of every phase's, by key, in
  // order of first appearance (a label two phases give different classes becomes the
  // key); mean_us() stays first's, so --load sets the rate by it and a shift changes the
  // service times, not the rate. An app's own classes cannot shift. Throws
  // std::invalid_argument naming what is wrong.
  static Workload shifting(const Workload& first, std::string_view shifts);

  ServiceSample sample(Rng& rng) const;
  // A draw for a request arriving `t_ns` into the run: from the phase in force then
  // (sample() for a workload that does not shift, with the same draws).
  ServiceSample sample_at(double t_ns, Rng& rng) const;
  // The shift spec ("" when the service times never change).
  const std::string& shift_spec() const { return shift_spec_; }
  // A request of class `class_index` (< classes().size()): a discrete class's service
  // time; a continuous distribution (one class) draws as sample() does.
  ServiceSample sample_class(uint32_t class_index, Rng& rng) const;
  // The mean service time; 0 when an app declared a class without one.
  double mean_us() const { return mean_us_; }
  // Whether every class has a nominal service time (else slowdown uses measured CPU time
  // and --load needs the mean measured first).
  bool service_known() const { return mean_us_ > 0; }
  // An app's classes (Workload::declared) rather than service times.
  bool app_defined() const { return app_defined_; }
  const std::vector<ServiceClass>& classes() const { return classes_; }
  const std::string& spec() const { return spec_; }
  Shape shape() const { return shape_; }

 private:
  static Workload discrete(std::string spec, std::vector<std::pair<double, double>> probability_and_us);
  static Workload continuous(std::string spec, Shape shape, double mean_us, double sigma);

  std::string spec_;
  Shape shape_ = Shape::kDiscrete;
  std::vector<ServiceClass> classes_;
  std::vector<double> cumulative_;  // discrete: running sum of probabilities
  double mean_us_ = 0;
  double sigma_ = 0;                // lognormal shape
  double log_mu_ = 0;               // lognormal location
  bool app_defined_ = false;
  // A shifting workload: the phases after the first, each with the index in classes_ of
  // each of its classes.
  struct Phase {
    double from_ns;
    std::shared_ptr<const Workload> workload;
    std::vector<uint32_t> class_index;
  };
  std::vector<Phase> phases_;
  std::vector<uint32_t> first_class_index_;  // ... and the first phase's (the identity)
  std::shared_ptr<const Workload> first_;   // the first phase as parsed
  std::string shift_spec_;
};

}  // namespace quanta
