#include "core/rma/rma_wire.hpp"

#include <cstring>

namespace ccs {

std::vector<uint8_t> write_piece_list(const ccs_plugin_remote_v1_t *pieces, size_t count, size_t extra) {
    std::vector<uint8_t> out(8 + 16 * count + extra);
    const uint64_t n = count;
    std::memcpy(out.data(), &n, 8);
    for (size_t i = 0; i < count; ++i) {
        const uint64_t pair[2] = {pieces[i].address, pieces[i].length};
        std::memcpy(out.data() + 8 + 16 * i, pair, 16);
    }
    return out;
}

bool read_piece_list(const uint8_t *payload, size_t size, piece_list &out) {
    uint64_t n = 0;
    if (size < 8) return false;
    std::memcpy(&n, payload, 8);
    if (n > (size - 8) / 16) return false;
    out.pieces.resize(n);
    out.total = 0;
    for (size_t i = 0; i < n; ++i) {
        uint64_t pair[2];
        std::memcpy(pair, payload + 8 + 16 * i, 16);
        if (pair[1] > UINT64_MAX - out.total) return false;
        out.pieces[i] = {pair[0], static_cast<size_t>(pair[1])};
        out.total += pair[1];
    }
    out.data = payload + 8 + 16 * n;
    out.data_length = size - 8 - 16 * n;
    return true;
}

bool read_atomic_message(const uint64_t *args, size_t nargs, atomic_message &out) {
    if (nargs < 6) return false;
    out.token = args[0];
    out.handle = args[1];
    out.address = args[2];
    const uint64_t op = args[3] & 0xff, width = (args[3] >> 8) & 0xff;
    if (op > CCS_ATOMIC_SET || (width != 4 && width != 8) || out.address % width != 0) return false;
    out.atomic.op = static_cast<uint8_t>(op);
    out.atomic.width = static_cast<uint8_t>(width);
    out.atomic.operand = args[4];
    out.atomic.compare = args[5];
    return true;
}

bool read_accumulate_message(const uint64_t *args, size_t nargs, const uint8_t *payload, size_t size,
                             accumulate_message &out) {
    if (nargs < 7) return false;
    const uint64_t how = args[2];
    const uint64_t op = how & 0xff, type = (how >> 8) & 0xff;
    if (op > CCS_ACC_REPLACE || type > CCS_ACC_COMPLEX_DOUBLE) return false;
    out.token = args[0];
    out.handle = args[1];
    out.offset = args[3];
    out.acc.op = static_cast<uint8_t>(op);
    out.acc.type = static_cast<uint8_t>(type);
    std::memcpy(out.acc.scale, &args[4], 16);
    out.fetch = (how >> 16) & 1;
    out.pieces.clear();
    if (how & pieces_in_payload) {
        piece_list list;
        if (!read_piece_list(payload, size, list) || list.total != list.data_length) return false;
        out.pieces = std::move(list.pieces);
        out.data = list.data;
        out.data_length = list.data_length;
    } else {
        out.pieces.push_back({args[6], size});
        out.data = payload;
        out.data_length = size;
    }
    const size_t element = acc_element_size(out.acc.type), align = acc_alignment(out.acc.type);
    for (const ccs_plugin_remote_v1_t &p : out.pieces)
        if (p.address % align != 0 || p.length % element != 0) return false;
    return true;
}

bool read_indexed_message(const uint64_t *args, size_t nargs, indexed_message &out) {
    if (nargs < 4 || args[2] % 8 != 0) return false;
    out.token = args[0];
    out.handle = args[1];
    out.pointer = args[2];
    out.limit = args[3];
    return true;
}

}  // namespace ccs
