#include "net/net_counters.h"

#include <string>

#include "net/wire_format.h"

namespace quanta {

const char* net_counter_name(NetCounter counter) {
  switch (counter) {
    case NetCounter::kUdpDatagrams: return "udp.datagrams";
    case NetCounter::kUdpRequests: return "udp.requests";
    case NetCounter::kUdpRepliesOk: return "udp.replies_ok";
    case NetCounter::kUdpOverloaded: return "udp.overloaded";
    case NetCounter::kUdpEmpty: return "udp.dropped_empty";
    case NetCounter::kUdpTruncated: return "udp.bad_truncated";
    case NetCounter::kUdpBadMagic: return "udp.bad_magic";
    case NetCounter::kUdpBadClass: return "udp.bad_class";
    case NetCounter::kUdpTooLarge: return "udp.bad_too_large";
    case NetCounter::kUdpLengthMismatch: return "udp.bad_length_mismatch";
    case NetCounter::kUdpProtocolRefused: return "udp.refused_by_protocol";
    case NetCounter::kUdpBadDatagramHeader: return "udp.bad_datagram_header";
    case NetCounter::kUdpSendErrors: return "udp.send_errors";
    case NetCounter::kUdpReplyBatches: return "udp.reply_batches";
    case NetCounter::kUdpReceiveErrors: return "udp.receive_errors";
    case NetCounter::kUdpDroppedByKernel: return "udp.dropped_by_kernel";
    case NetCounter::kTcpConnections: return "tcp.connections";
    case NetCounter::kTcpRefusedOverLimit: return "tcp.refused_over_limit";
    case NetCounter::kTcpClosedByPeer: return "tcp.closed_by_peer";
    case NetCounter::kTcpPeerStoppedMidRequest: return "tcp.closed_mid_request";
    case NetCounter::kTcpRequests: return "tcp.requests";
    case NetCounter::kTcpRepliesOk: return "tcp.replies_ok";
    case NetCounter::kTcpOverloaded: return "tcp.overloaded";
    case NetCounter::kTcpBadMagic: return "tcp.bad_magic";
    case NetCounter::kTcpBadClass: return "tcp.bad_class";
    case NetCounter::kTcpTooLarge: return "tcp.bad_too_large";
    case NetCounter::kTcpProtocolRefused: return "tcp.refused_by_protocol";
    case NetCounter::kTcpClosedByProtocol: return "tcp.closed_by_protocol";
    case NetCounter::kTcpPaused: return "tcp.paused_at_in_flight_limit";
    case NetCounter::kTcpClosedSlowReader: return "tcp.closed_slow_reader";
    case NetCounter::kTcpClosedError: return "tcp.closed_error";
    case NetCounter::kTcpRepliesDiscarded: return "tcp.replies_discarded";
    case NetCounter::kTcpEpollWaits: return "tcp.epoll_waits";
    case NetCounter::kTcpReads: return "tcp.reads";
    case NetCounter::kTcpSends: return "tcp.sends";
    case NetCounter::kTcpPollRingErrors: return "tcp.poll_ring_errors";
    case NetCounter::kCount: break;
  }
  return "?";
}

NetCounter refusal_counter(bool udp, RefusalReason why) {
  switch (why) {
    case RefusalReason::kBadMagic: return udp ? NetCounter::kUdpBadMagic : NetCounter::kTcpBadMagic;
    case RefusalReason::kTooLarge: return udp ? NetCounter::kUdpTooLarge : NetCounter::kTcpTooLarge;
    case RefusalReason::kBadClass: return udp ? NetCounter::kUdpBadClass : NetCounter::kTcpBadClass;
    case RefusalReason::kTruncated: return udp ? NetCounter::kUdpTruncated : NetCounter::kTcpPeerStoppedMidRequest;
    case RefusalReason::kLengthMismatch: return udp ? NetCounter::kUdpLengthMismatch : NetCounter::kTcpTooLarge;
    case RefusalReason::kProtocolRefused:
    case RefusalReason::kNone: break;
  }
  return udp ? NetCounter::kUdpProtocolRefused : NetCounter::kTcpProtocolRefused;
}

nlohmann::json NetCounters::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (uint32_t i = 0; i < static_cast<uint32_t>(NetCounter::kCount); ++i) {
    const std::string name = net_counter_name(static_cast<NetCounter>(i));
    const std::size_t dot = name.find('.');
    out[name.substr(0, dot)][name.substr(dot + 1)] = values_[i].load(std::memory_order_relaxed);
  }
  return out;
}

}  // namespace quanta
