#include "load/load_run.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "core/tsc.h"
#include "load/channel.h"
#include "quanta/wire.h"
#include "runtime/cpu_layout.h"

namespace quanta {
namespace {

// A poll costs a system call per socket (about a microsecond); closer than this to the
// next send time the loop keeps spinning instead, so the send is not late because of it.
constexpr double kPollMarginNs = 2000;
// ... but it polls at least this often, so replies do not pile up in the kernel's buffers
// while the loop is behind and sending back to back.
constexpr double kPollEveryNs = 20000;
// A send later than this counts as late.
constexpr double kLateSendNs = 1000;
// --wait block: sleep only when the next send is further than this, and wake this long
// before it (the kernel's wake-up takes tens of microseconds, more when the CPU is busy).
constexpr double kBlockMarginNs = 50000;

class ProgressLine {
 public:
  ProgressLine(bool enabled, double duration_s, uint64_t start_tsc)
      : enabled_(enabled), duration_s_(duration_s), start_tsc_(start_tsc),
        second_cycles_(ns_to_cycles(1e9)), next_tsc_(start_tsc + second_cycles_) {}

  void maybe_print(uint64_t now, const LoadRunOutcome& o) {
    if (!enabled_ || now < next_tsc_) return;
    next_tsc_ += second_cycles_;
    const double elapsed_s = cycles_to_ns(now - start_tsc_) * 1e-9;
    std::fprintf(stderr,
                 "quanta load: %.0f/%.0f s  sent %llu  answered %llu  in flight %llu  dropped %llu  overloaded %llu  "
                 "late sends %llu\n",
                 elapsed_s, duration_s_, static_cast<unsigned long long>(o.sent),
                 static_cast<unsigned long long>(o.table.answered()),
                 static_cast<unsigned long long>(o.table.in_flight()),
                 static_cast<unsigned long long>(o.table.dropped()),
                 static_cast<unsigned long long>(o.table.overloaded()),
                 static_cast<unsigned long long>(o.late_sends));
  }

 private:
  bool enabled_;
  double duration_s_;
  uint64_t start_tsc_, second_cycles_, next_tsc_;
};

}  // namespace

LoadRunOutcome run_load(const LoadRunConfig& config, const std::vector<Arrival>& schedule) {
  LoadRunOutcome out(schedule.size());
  const ReplyFraming framing(config.app->protocol);
  std::unique_ptr<Channel> channel = open_channel(config.target, framing, config.connections,
                                                  static_cast<unsigned>(std::max(1.0, config.timeout_ms)));
  std::optional<ScopedPin> pin;
  if (config.cpu >= 0) pin.emplace(config.cpu);

  const double cycles_per_ns = tsc_per_ns();
  const uint64_t timeout_cycles = ns_to_cycles(config.timeout_ms * 1e6);
  const uint64_t poll_margin_cycles = ns_to_cycles(kPollMarginNs);
  const uint64_t poll_every_cycles = ns_to_cycles(kPollEveryNs);
  const uint64_t late_cycles = ns_to_cycles(kLateSendNs);
  const uint64_t block_margin_cycles = ns_to_cycles(kBlockMarginNs);

  // The default protocol puts its header before what make_request builds; an app's own
  // protocol sends make_request's bytes as they are.
  const uint32_t header_bytes = framing.app_protocol() ? 0 : QUANTA_WIRE_REQUEST_HEADER;
  std::vector<unsigned char> buffer(header_bytes + config.max_payload_bytes);
  uint64_t rng = config.seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
  // Builds request `id` into `buffer`; its length, or 0 when the app could not.
  auto build = [&](std::size_t id) -> std::size_t {
    const Arrival& a = schedule[id];
    const quanta_request_spec spec{id, a.class_index, config.app_classes ? 0u : a.service_ns, &rng};
    uint32_t len = 0;
    if (config.app->make_request(&spec, buffer.data() + header_bytes, config.max_payload_bytes, &len) != 0 ||
        len == 0 || len > config.max_payload_bytes) {
      return 0;
    }
    if (header_bytes > 0) {
      const quanta_wire_request header{static_cast<uint16_t>(a.class_index), len, id};
      quanta_wire_encode_request(buffer.data(), &header);
    }
    return header_bytes + len;
  };

  // Start a millisecond from now: room for the first build and the pin to settle.
  out.start_tsc = read_tsc() + ns_to_cycles(1e6);
  auto intended = [&](std::size_t id) {
    return out.start_tsc + static_cast<uint64_t>(static_cast<double>(schedule[id].arrival_ns) * cycles_per_ns);
  };
  ProgressLine progress(config.progress, config.duration_s, out.start_tsc);

  std::size_t next = 0;
  std::size_t next_len = schedule.empty() ? 0 : build(0);
  uint64_t last_poll = read_tsc();
  while (next < schedule.size()) {
    uint64_t now = read_tsc();
    const uint64_t due = intended(next);
    if (now >= due && now - last_poll < poll_every_cycles) {
      if (next_len == 0) {
        out.table.mark_build_failed(next);
        ++out.build_failures;
      } else {
        // Lag is how late the send call starts: the call itself (a few us over loopback UDP,
        // which delivers to the receiver inside it) is the same for every request.
        const uint64_t lag = now - due;
        if (lag > late_cycles) ++out.late_sends;
        out.worst_send_lag_cycles = std::max(out.worst_send_lag_cycles, lag);
        const bool ok = channel->send(next, buffer.data(), next_len);
        now = read_tsc();
        ++out.sent;
        if (ok) {
          out.table.mark_sent(next, now);
        } else {
          out.table.mark_send_failed(next, now);
          ++out.send_failures;
        }
      }
      ++next;
      if (next < schedule.size()) next_len = build(next);
      continue;
    }
    if (due > now && due - now < poll_margin_cycles) continue;  // spin: the send is close
    if (config.block_between_sends && due > now + 2 * block_margin_cycles) {
      channel->wait_readable(static_cast<uint64_t>(cycles_to_ns(due - now - block_margin_cycles)));
    }
    channel->poll(out.table, out.anomalies);
    last_poll = read_tsc();
    if (last_poll > timeout_cycles) out.table.sweep(last_poll - timeout_cycles, next);
    progress.maybe_print(last_poll, out);
  }
  // Every request is out: wait for the last replies, or their timeouts.
  while (out.table.in_flight() > 0) {
    channel->poll(out.table, out.anomalies);
    const uint64_t now = read_tsc();
    if (now > timeout_cycles) out.table.sweep(now - timeout_cycles, next);
    progress.maybe_print(now, out);
    if (config.block_between_sends) {
      channel->wait_readable(1'000'000);  // a millisecond at most: the timeout sweep goes on
    } else {
      cpu_relax();
    }
  }
  out.end_tsc = read_tsc();
  out.receive_errors = channel->receive_errors();
  out.closed_connections = channel->closed_connections();
  return out;
}

}  // namespace quanta
