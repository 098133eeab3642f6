// The socket calls the front ends make on every poll and every request, as plain system
// calls rather than through libc's wrappers.
//
// Why: recv, send, epoll_wait and the *mmsg calls are pthread cancellation points, so glibc wraps each in
// __pthread_enable_asynccancel / __pthread_disable_asynccancel once the process has a
// second thread (two atomic updates of the thread's cancel state around the call).
// quanta never cancels a thread, so that work buys nothing, and the one-thread server
// pays it two or three times per request (callgrind: ~95 instructions per request,
// experiments/tcp_instructions_per_request.py). syscall(2) is not a cancellation point.
// Each returns what the libc call would, with errno set the same way.
//
// Sanitizer builds keep libc's calls: their interceptors check the buffers the kernel
// reads and writes (ASan) and see the descriptors' synchronisation (TSan).
#pragma once

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define QUANTA_NET_LIBC_CALLS 1
#endif
#endif

namespace quanta::plain {

inline ssize_t recv(int fd, void* buf, std::size_t len, int flags) {
#ifdef QUANTA_NET_LIBC_CALLS
  return ::recv(fd, buf, len, flags);
#else
  return ::syscall(SYS_recvfrom, fd, buf, len, flags, nullptr, nullptr);
#endif
}

inline ssize_t send(int fd, const void* buf, std::size_t len, int flags) {
#ifdef QUANTA_NET_LIBC_CALLS
  return ::send(fd, buf, len, flags);
#else
  return ::syscall(SYS_sendto, fd, buf, len, flags, nullptr, 0);
#endif
}

inline int epoll_wait(int epoll_fd, epoll_event* events, int max_events, int timeout_ms) {
#ifdef QUANTA_NET_LIBC_CALLS
  return ::epoll_wait(epoll_fd, events, max_events, timeout_ms);
#else
  return static_cast<int>(::syscall(SYS_epoll_wait, epoll_fd, events, max_events, timeout_ms));
#endif
}

inline int recvmmsg(int fd, mmsghdr* messages, unsigned int count, int flags) {
#ifdef QUANTA_NET_LIBC_CALLS
  return ::recvmmsg(fd, messages, count, flags, nullptr);
#else
  return static_cast<int>(::syscall(SYS_recvmmsg, fd, messages, count, flags, nullptr));
#endif
}

inline ssize_t sendmsg(int fd, const msghdr* message, int flags) {
#ifdef QUANTA_NET_LIBC_CALLS
  return ::sendmsg(fd, message, flags);
#else
  return ::syscall(SYS_sendmsg, fd, message, flags);
#endif
}

inline int sendmmsg(int fd, mmsghdr* messages, unsigned int count, int flags) {
#ifdef QUANTA_NET_LIBC_CALLS
  return ::sendmmsg(fd, messages, count, flags);
#else
  return static_cast<int>(::syscall(SYS_sendmmsg, fd, messages, count, flags));
#endif
}

}  // namespace quanta::plain
