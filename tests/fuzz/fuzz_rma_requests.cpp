// libFuzzer target: the RMA engine's request messages (core/rma/rma_wire.hpp)
// as a broken or hostile process might send them: argument words and a
// payload for the piece-list, atomic, accumulate and indexed-put readers.
// The first byte picks the reader, the second the number of argument
// words (0-8), then the words, then the payload.
// Invariants (abort on violation), besides what ASan and UBSan see:
//   - every piece list accepted lies inside the payload, its lengths sum
//     to its total without overflow, and written again reads back alike;
//   - an atomic accepted has a known op and a width of 4 or 8 its address
//     is aligned to;
//   - an accumulate accepted has a known op and type, every target piece
//     aligned for the type and whole elements, the pieces' bytes exactly
//     the data, and the data inside the payload;
//   - an indexed put accepted has its pointer aligned to 8 bytes.
#include "fuzz_input.hpp"
#include "core/rma/rma_wire.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

using fuzz::require;

namespace {

bool inside(const uint8_t *data, size_t length, const std::vector<uint8_t> &payload) {
    return data >= payload.data() && static_cast<size_t>(data - payload.data()) <= payload.size() &&
           length <= payload.size() - static_cast<size_t>(data - payload.data());
}

void check_piece_list(const std::vector<uint8_t> &payload) {
    ccs::piece_list list;
    if (!ccs::read_piece_list(payload.data(), payload.size(), list)) return;
    require(inside(list.data, list.data_length, payload));
    uint64_t total = 0;
    for (const auto &p : list.pieces) {
        require(p.length <= UINT64_MAX - total);
        total += p.length;
    }
    require(total == list.total);
    const std::vector<uint8_t> again = ccs::write_piece_list(list.pieces.data(), list.pieces.size(), list.data_length);
    require(std::memcmp(again.data(), payload.data(), again.size() - list.data_length) == 0);
}

void check_atomic(const uint64_t *args, size_t nargs) {
    ccs::atomic_message q;
    if (!ccs::read_atomic_message(args, nargs, q)) return;
    require(q.atomic.op <= CCS_ATOMIC_SET);
    require(q.atomic.width == 4 || q.atomic.width == 8);
    require(q.address % q.atomic.width == 0);
}

void check_accumulate(const uint64_t *args, size_t nargs, const std::vector<uint8_t> &payload) {
    ccs::accumulate_message q;
    if (!ccs::read_accumulate_message(args, nargs, payload.data(), payload.size(), q)) return;
    require(q.acc.op <= CCS_ACC_REPLACE && q.acc.type <= CCS_ACC_COMPLEX_DOUBLE);
    require(inside(q.data, q.data_length, payload));
    const size_t element = ccs::acc_element_size(q.acc.type), align = ccs::acc_alignment(q.acc.type);
    uint64_t total = 0;
    for (const auto &p : q.pieces) {
        require(p.address % align == 0 && p.length % element == 0);
        require(p.length <= UINT64_MAX - total);
        total += p.length;
    }
    require(total == q.data_length);
}

void check_indexed(const uint64_t *args, size_t nargs) {
    ccs::indexed_message q;
    if (!ccs::read_indexed_message(args, nargs, q)) return;
    require(q.pointer % 8 == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    fuzz::input in{data, length};
    const uint8_t which = in.byte() % 4;
    const size_t nargs = in.byte() % 9;
    uint64_t args[8] = {};
    for (size_t i = 0; i < nargs; ++i)
        for (int b = 0; b < 8; ++b) args[i] |= static_cast<uint64_t>(in.byte()) << (8 * b);
    // The payload in its own allocation, so ASan sees any read past it.
    const std::vector<uint8_t> payload(in.p, in.p + in.n);
    switch (which) {
    case 0: check_piece_list(payload); break;
    case 1: check_atomic(args, nargs); break;
    case 2: check_accumulate(args, nargs, payload); break;
    default: check_indexed(args, nargs); break;
    }
    return 0;
}
