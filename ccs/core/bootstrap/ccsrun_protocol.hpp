// Wire protocol between ccsrun and the processes it starts, over the Unix
// socket named by CCS_BOOTSTRAP_SOCKET. Shared by the core and tools/ccsrun.
//
//   client -> server: frame{op = hello,     rank, length = 0}
//   client -> server: frame{op = allgather, rank, length = n} + n bytes
//   server -> client: frame{op = allgather, rank = size, length = total}
//                     + for each rank: u64 length + bytes
//                  or frame{op = rank_gone, rank = r, length = n} + n bytes
//                     of text: rank r ended (how) and the exchange cannot
//                     complete
//   client -> server: frame{op = abort, rank, length = 4 + n} + int32 exit
//                     code + n bytes of reason: end the job with that code
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include <unistd.h>

namespace ccs::ccsrun_protocol {

enum op : uint32_t { hello = 1, allgather = 2, rank_gone = 3, abort = 4 };

struct frame {
    uint32_t op;
    uint32_t rank;
    uint64_t length;
};

// Largest blob one process may contribute; protects ccsrun from junk.
constexpr uint64_t max_blob = 64ull << 20;

inline bool write_full(int fd, const void *data, size_t n) {
    auto p = static_cast<const uint8_t *>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

inline bool read_full(int fd, void *data, size_t n) {
    auto p = static_cast<uint8_t *>(data);
    while (n > 0) {
        const ssize_t r = ::read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r;
        n -= static_cast<size_t>(r);
    }
    return true;
}

}  // namespace ccs::ccsrun_protocol
