#include "frame.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace halo::remote {
namespace {

// send() with MSG_NOSIGNAL keeps a vanished peer from killing us with SIGPIPE; plain write()
// is the fallback for pipes and files in tests.
ssize_t write_some(int fd, const char* data, size_t size) {
  ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
  if (n < 0 && errno == ENOTSOCK) n = write(fd, data, size);
  return n;
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write_some(fd, data, size);
    if (n > 0) {
      data += n;
      size -= size_t(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};  // a non-blocking fd: wait instead of spinning
      if (poll(&p, 1, -1) < 0 && errno != EINTR) return false;
    } else {
      return false;
    }
  }
  return true;
}

// Reads exactly `size` bytes. Returns the number read before EOF, or -1 on error.
ssize_t read_all(int fd, char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, data + done, size - done);
    if (n > 0) {
      done += size_t(n);
    } else if (n == 0) {
      break;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, -1) < 0 && errno != EINTR) return -1;
    } else {
      return -1;
    }
  }
  return ssize_t(done);
}

}  // namespace

void encode_frame_length(uint64_t length, unsigned char out[kFrameHeaderBytes]) {
  for (size_t k = 0; k < kFrameHeaderBytes; ++k) out[k] = static_cast<unsigned char>(length >> (8 * k));
}

uint64_t decode_frame_length(const unsigned char in[kFrameHeaderBytes]) {
  uint64_t length = 0;
  for (size_t k = 0; k < kFrameHeaderBytes; ++k) length |= uint64_t(in[k]) << (8 * k);
  return length;
}

bool write_frame(int fd, std::string_view payload) {
  unsigned char header[kFrameHeaderBytes];
  encode_frame_length(payload.size(), header);
  return write_all(fd, reinterpret_cast<const char*>(header), sizeof header) &&
         write_all(fd, payload.data(), payload.size());
}

ReadStatus read_frame(int fd, std::string& out, uint64_t max_bytes) {
  unsigned char header[kFrameHeaderBytes];
  ssize_t got = read_all(fd, reinterpret_cast<char*>(header), sizeof header);
  if (got == 0) return ReadStatus::eof;
  if (got != ssize_t(sizeof header)) return ReadStatus::error;
  uint64_t length = decode_frame_length(header);
  if (length > max_bytes) return ReadStatus::too_large;
  out.resize(length);
  got = read_all(fd, out.data(), length);
  return got == ssize_t(length) ? ReadStatus::ok : ReadStatus::error;
}

}  // namespace halo::remote
