// The client against the reference responder, over loopback: counts and ordering only
// (every request sent is answered or counted, ids are unique, TCP replies come in order),
// never timings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "load/load_run.h"
#include "load/load_stats.h"
#include "load/send_schedule.h"
#include "load/target.h"
#include "reference_responder.h"

namespace quanta {
namespace {

using test::ReferenceResponder;
using test::ResponderBehaviour;

// An app that only builds requests: 8 bytes, the request id.
int id_payload(const quanta_request_spec* spec, void* buffer, uint32_t capacity, uint32_t* len) {
  if (capacity < sizeof spec->id) return -1;
  std::memcpy(buffer, &spec->id, sizeof spec->id);
  *len = sizeof spec->id;
  return 0;
}

const quanta_app& id_app() {
  static quanta_app app = [] {
    quanta_app a{};
    a.abi_version = QUANTA_APP_ABI_VERSION;
    a.name = "id-payload";
    a.make_request = id_payload;
    return a;
  }();
  return app;
}

// Exactly `count` requests, evenly spaced at 20 000 per second (50 us apart): the run
// ends half a gap after the last one, so rounding cannot add one more.
std::vector<Arrival> schedule_of(std::size_t count) {
  const Workload workload = Workload::parse("bimodal:50:1:10");
  auto schedule = make_send_schedule(workload, {20'000, (static_cast<double>(count) - 0.5) / 20'000, 7},
                                     ArrivalProcess::kConstant);
  EXPECT_EQ(schedule.size(), count);
  return schedule;
}

LoadRunConfig config_for(ReferenceResponder::Protocol protocol, unsigned port, unsigned connections = 1) {
  LoadRunConfig c;
  c.target = parse_target(std::string(protocol == ReferenceResponder::Protocol::kUdp ? "udp" : "tcp") +
                          "://127.0.0.1:" + std::to_string(port));
  c.connections = connections;
  c.timeout_ms = 200;
  c.app = &id_app();
  return c;
}

// What every run must satisfy, whatever the responder did.
void expect_every_request_accounted(const LoadRunOutcome& o, std::size_t scheduled) {
  const InflightTable& t = o.table;
  EXPECT_EQ(o.sent, scheduled);
  EXPECT_EQ(t.in_flight(), 0u);
  EXPECT_EQ(o.sent, t.answered() + t.dropped() + t.overloaded() + t.bad_request());
  EXPECT_EQ(o.anomalies.unknown, 0u);
  EXPECT_EQ(o.anomalies.malformed, 0u);
  EXPECT_EQ(o.anomalies.out_of_order, 0u);
}

void expect_unique_ids(const std::vector<test::Received>& received, std::size_t scheduled) {
  std::set<uint64_t> ids;
  for (const auto& r : received) {
    EXPECT_LT(r.request_id, scheduled);
    EXPECT_TRUE(ids.insert(r.request_id).second) << "request " << r.request_id << " arrived twice";
  }
}

TEST(LoadClientUdp, EveryRequestIsAnsweredOnce) {
  ReferenceResponder responder(ReferenceResponder::Protocol::kUdp, {});
  const auto schedule = schedule_of(400);
  const LoadRunOutcome o = run_load(config_for(ReferenceResponder::Protocol::kUdp, responder.port()), schedule);
  expect_every_request_accounted(o, schedule.size());
  // Loopback UDP may lose a datagram when a socket buffer overflows; at 20 k/s it does not.
  EXPECT_EQ(o.table.answered(), schedule.size());
  const auto received = responder.received();
  EXPECT_EQ(received.size(), schedule.size());
  expect_unique_ids(received, schedule.size());
  for (std::size_t id = 0; id < schedule.size(); ++id) {
    EXPECT_EQ(o.table[id].outcome, Outcome::kOk) << id;
    EXPECT_GE(o.table[id].reply_tsc, o.table[id].sent_tsc) << id;
  }
}

TEST(LoadClientUdp, UnansweredRequestsAreDroppedAfterTheTimeout) {
  ReferenceResponder responder(ReferenceResponder::Protocol::kUdp, {.drop_every = 5});
  const auto schedule = schedule_of(400);
  const LoadRunOutcome o = run_load(config_for(ReferenceResponder::Protocol::kUdp, responder.port()), schedule);
  expect_every_request_accounted(o, schedule.size());
  EXPECT_EQ(o.table.dropped(), schedule.size() / 5);
  EXPECT_EQ(o.table.answered(), schedule.size() - schedule.size() / 5);
  for (std::size_t id = 4; id < schedule.size(); id += 5) EXPECT_EQ(o.table[id].outcome, Outcome::kDropped) << id;
}

TEST(LoadClientUdp, OverloadedRepliesAreCountedApart) {
  ReferenceResponder responder(ReferenceResponder::Protocol::kUdp, {.overloaded_every = 4});
  const auto schedule = schedule_of(400);
  const LoadRunOutcome o = run_load(config_for(ReferenceResponder::Protocol::kUdp, responder.port()), schedule);
  expect_every_request_accounted(o, schedule.size());
  EXPECT_EQ(o.table.overloaded(), schedule.size() / 4);
  EXPECT_EQ(o.table.answered(), schedule.size() - schedule.size() / 4);
  EXPECT_EQ(o.table.dropped(), 0u);
  // Statistics time only the OK replies, and count the others per class.
  const LoadStats stats = compute_load_stats(o, schedule, 2, 0, true);
  uint64_t timed = 0, overloaded = 0;
  for (const LoadClassStats& c : stats.classes) {
    timed += c.latency_ns.count();
    overloaded += c.overloaded;
  }
  EXPECT_EQ(timed, o.table.answered());
  EXPECT_EQ(overloaded, o.table.overloaded());
}

TEST(LoadClientUdp, ASilentServerLeavesEveryRequestDropped) {
  ReferenceResponder responder(ReferenceResponder::Protocol::kUdp, {.silent = true});
  const auto schedule = schedule_of(100);
  const LoadRunOutcome o = run_load(config_for(ReferenceResponder::Protocol::kUdp, responder.port()), schedule);
  expect_every_request_accounted(o, schedule.size());
  EXPECT_EQ(o.table.dropped(), schedule.size());
  EXPECT_EQ(o.table.answered(), 0u);
  const LoadStats stats = compute_load_stats(o, schedule, 2, 0, true);
  for (const LoadClassStats& c : stats.classes) {
    EXPECT_FALSE(percentile_with_drops(c.latency_ns, c.dropped, 50).has_value());
  }
}

TEST(LoadClientUdp, MalformedRepliesAreCountedAndTheirRequestsDropped) {
  ReferenceResponder responder(ReferenceResponder::Protocol::kUdp, {.garbage_every = 10});
  const auto schedule = schedule_of(200);
  const LoadRunOutcome o = run_load(config_for(ReferenceResponder::Protocol::kUdp, responder.port()), schedule);
  const InflightTable& t = o.table;
  EXPECT_EQ(o.sent, t.answered() + t.dropped() + t.overloaded() + t.bad_request());
  EXPECT_EQ(o.anomalies.malformed, 20u);
  EXPECT_EQ(t.dropped(), 20u);
  EXPECT_EQ(t.answered(), 180u);
}

TEST(LoadClientTcp, AMalformedReplyClosesItsConnectionAndEveryRequestIsStillCounted) {
  // Request 49 (on connection 1 of 2) gets a bad reply: that connection closes; the
  // requests after it on that connection are dropped, the other connection goes on.
  ReferenceResponder responder(ReferenceResponder::Protocol::kTcp, {.garbage_every = 50});
  const auto schedule = schedule_of(100);
  const LoadRunOutcome o = run_load(config_for(ReferenceResponder::Protocol::kTcp, responder.port(), 2), schedule);
  const InflightTable& t = o.table;
  EXPECT_EQ(o.sent, schedule.size());
  EXPECT_EQ(t.in_flight(), 0u);
  EXPECT_EQ(o.sent, t.answered() + t.dropped() + t.overloaded() + t.bad_request());
  EXPECT_EQ(o.anomalies.malformed, 1u);
  EXPECT_EQ(o.closed_connections, 1u);
  for (uint64_t id = 0; id < schedule.size(); id += 2) EXPECT_EQ(t[id].outcome, Outcome::kOk) << id;
  EXPECT_EQ(t[49].outcome, Outcome::kDropped);
  // Those before it on its connection were answered before the bad reply came.
  for (uint64_t id = 1; id < 49; id += 2) EXPECT_EQ(t[id].outcome, Outcome::kOk) << id;
  for (uint64_t id = 51; id < schedule.size(); id += 2) EXPECT_EQ(t[id].outcome, Outcome::kDropped) << id;
}

TEST(LoadClientTcp, RequestsGoRoundRobinAndRepliesComeInOrder) {
  ReferenceResponder responder(ReferenceResponder::Protocol::kTcp, {});
  const auto schedule = schedule_of(600);
  const LoadRunOutcome o =
      run_load(config_for(ReferenceResponder::Protocol::kTcp, responder.port(), 3), schedule);
  expect_every_request_accounted(o, schedule.size());
  EXPECT_EQ(o.table.answered(), schedule.size());
  EXPECT_EQ(responder.connections_accepted(), 3u);
  const auto received = responder.received();
  ASSERT_EQ(received.size(), schedule.size());
  expect_unique_ids(received, schedule.size());
  // Each connection carried one residue of the ids mod 3, in increasing order.
  std::map<unsigned, std::vector<uint64_t>> per_connection;
  for (const auto& r : received) per_connection[r.connection].push_back(r.request_id);
  ASSERT_EQ(per_connection.size(), 3u);
  for (const auto& [connection, ids] : per_connection) {
    EXPECT_EQ(ids.size(), schedule.size() / 3);
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    for (uint64_t id : ids) EXPECT_EQ(id % 3, ids.front() % 3);
  }
}

TEST(LoadClientTcp, DropsAndOverloadsAddUp) {
  ReferenceResponder responder(ReferenceResponder::Protocol::kTcp, {.drop_every = 7, .overloaded_every = 5});
  const auto schedule = schedule_of(350);
  const LoadRunOutcome o =
      run_load(config_for(ReferenceResponder::Protocol::kTcp, responder.port(), 2), schedule);
  expect_every_request_accounted(o, schedule.size());
  uint64_t dropped = 0, overloaded = 0;
  for (uint64_t id = 0; id < schedule.size(); ++id) {
    if (id % 7 == 6) {
      ++dropped;
    } else if (id % 5 == 0) {
      ++overloaded;
    }
  }
  EXPECT_EQ(o.table.dropped(), dropped);
  EXPECT_EQ(o.table.overloaded(), overloaded);
  EXPECT_EQ(o.table.answered(), schedule.size() - dropped - overloaded);
}

TEST(LoadClientTcp, ASilentServerLeavesEveryRequestDropped) {
  ReferenceResponder responder(ReferenceResponder::Protocol::kTcp, {.silent = true});
  const auto schedule = schedule_of(100);
  const LoadRunOutcome o = run_load(config_for(ReferenceResponder::Protocol::kTcp, responder.port()), schedule);
  expect_every_request_accounted(o, schedule.size());
  EXPECT_EQ(o.table.dropped(), schedule.size());
}

TEST(LoadClientTcp, NoServerIsAnErrorBeforeAnythingIsSent) {
  // A port the responder held and released: nothing listens there now.
  unsigned port = 0;
  { ReferenceResponder gone(ReferenceResponder::Protocol::kTcp, {}); port = gone.port(); }
  EXPECT_THROW(run_load(config_for(ReferenceResponder::Protocol::kTcp, port), schedule_of(10)), std::runtime_error);
}

}  // namespace
}  // namespace quanta
