// Framing between the judge and the worker over a stream socket: every message is an 8-byte
// little-endian length followed by that many bytes. Both sides link this file, so the format
// lives in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace halo::remote {

inline constexpr size_t kFrameHeaderBytes = 8;

void encode_frame_length(uint64_t length, unsigned char out[kFrameHeaderBytes]);
uint64_t decode_frame_length(const unsigned char in[kFrameHeaderBytes]);

// Blocking write of one frame. Returns false when the peer is gone or the fd fails; never
// raises SIGPIPE.
bool write_frame(int fd, std::string_view payload);

enum class ReadStatus { ok, eof, error, too_large };

// Blocking read of one frame into `out`. `eof` means the peer closed between frames; a frame
// cut short is an `error`. A frame announcing more than `max_bytes` is `too_large` and is left
// unread (the stream cannot be resynchronised after it).
ReadStatus read_frame(int fd, std::string& out, uint64_t max_bytes);

}  // namespace halo::remote
