"""A small UDP responder on loopback, written from include/quanta/wire.h, that `quanta load`
tests send to: it answers each request OK with its payload, or OVERLOADED, or not at all,
as the test asks, and records the request ids it saw."""
import socket
import struct
import threading

REQUEST_MAGIC, REPLY_MAGIC = 0x5131, 0x5231
OK, OVERLOADED = 0, 1


def reply_bytes(kind, request_id, payload=b""):
    body = payload if kind == OK else b""
    return struct.pack("<HHIQQiI", REPLY_MAGIC, kind, len(body), request_id, request_id, 0, 0) + body


class UdpResponder:
    """Answers every request OK with its payload, except ids where drop(id) says no reply."""

    def __init__(self, drop=lambda request_id: False, overloaded=lambda request_id: False):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.drop, self.overloaded = drop, overloaded
        self.ids = []
        self.classes = []  # each request's class index, as sent
        self.stopping = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stopping:
            try:
                data, peer = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            magic, class_index, length, request_id = struct.unpack_from("<HHIQ", data)
            assert magic == REQUEST_MAGIC and length == len(data) - 16
            self.ids.append(request_id)
            self.classes.append(class_index)
            if self.drop(request_id):
                continue
            kind = OVERLOADED if self.overloaded(request_id) else OK
            self.sock.sendto(reply_bytes(kind, request_id, data[16:]), peer)

    def close(self):
        self.stopping = True
        self.thread.join()
        self.sock.close()
