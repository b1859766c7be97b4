// libFuzzer target: the input is a stream of active-message packets as a
// broken or hostile peer might send them (any header fields, fragments of
// any size, offset and number, notices of abandoned messages, unknown or
// destroyed contexts, short packets), fed to the receive side of the AM
// engine, with contexts destroyed at points the input chooses.
// Invariants (abort on violation), besides what ASan and UBSan see:
//   - handlers only ever see at most CCS_AM_MAX_ARGS arguments, and a
//     payload they can read in full;
//   - destroying every context leaves no message half received.
// Fragment totals are either small or beyond what the engine accepts, so
// every run stays within a few MiB.
#include "core/am/am_engine.hpp"
#include "core/context.hpp"
#include "fuzz_input.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using fuzz::input;
using fuzz::require;

constexpr int procs = 3;
constexpr uint16_t live_contexts = 3;  // internal (0), ordered (1), unordered (2); 3 is destroyed, 4 never made

uint64_t g_sink = 0;  // keeps the handler's reads from being optimized away

void on_message(const ccs_am_message_t *m, void *) {
    require(m->nargs <= CCS_AM_MAX_ARGS);
    for (size_t i = 0; i < m->nargs; ++i) g_sink += m->args[i];
    const auto *p = static_cast<const uint8_t *>(m->payload);
    for (size_t i = 0; i < m->payload_size; ++i) g_sink += p[i];
}

void on_error(ccs_context_t, ccs_status_t, int, const char *, void *) {}

uint64_t fragment_total(input &in) {
    switch (in.byte() % 8) {
    case 0: return 0;
    case 1: return (1ull << 40) + 1;  // over the engine's limit
    case 2: return ~0ull;
    default: return 1 + in.byte() * 16ull;  // up to 4 KiB
    }
}

std::vector<uint8_t> make_packet(input &in) {
    ccs::wire::header h{};
    h.context = static_cast<uint16_t>(in.byte() % 5);
    const uint8_t handler = in.byte();
    h.handler = handler == 255 ? CCS_AM_MAX_HANDLERS : handler % 4;  // 3: not registered
    h.nargs = static_cast<uint8_t>(in.byte() % (CCS_AM_MAX_ARGS + 2));
    h.flags = static_cast<uint8_t>(in.byte() & 7);
    h.seq = in.byte() % 8;
    const size_t payload = in.byte();
    h.length = static_cast<uint32_t>(in.byte() % 16 == 0 ? in.byte() * 4096u : payload);  // sometimes a lie
    std::vector<uint8_t> packet(sizeof h);
    std::memcpy(packet.data(), &h, sizeof h);
    for (size_t i = 0; i < h.nargs * sizeof(uint64_t); ++i) packet.push_back(in.byte());
    if (h.flags & ccs::wire::fragment) {
        ccs::wire::fragment_header f{};
        f.message = in.byte() % 4;
        f.total = fragment_total(in);
        f.offset = in.byte() * 16ull;
        const size_t at = packet.size();
        packet.resize(at + sizeof f);
        std::memcpy(packet.data() + at, &f, sizeof f);
    }
    for (size_t i = 0; i < payload; ++i) packet.push_back(in.byte());
    if (in.byte() % 8 == 0) packet.resize(in.byte() % (packet.size() + 1));  // cut short
    return packet;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    setenv("CCS_LOG_LEVEL", "error", 1);  // every malformed packet is a warning
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    input in{data, length};
    ccs::context_table contexts;
    for (uint16_t id = 0; id <= live_contexts; ++id) {
        ccs::context *ctx = nullptr;
        require(contexts.create(id == 2 ? CCS_CONTEXT_UNORDERED : 0, nullptr, procs, ctx) == CCS_OK);
        for (uint16_t h = 0; h < 3; ++h) ctx->handler(h) = {on_message, nullptr};
        ctx->set_error_handler(on_error, nullptr);
    }
    contexts.destroy(live_contexts);
    ccs::am_engine engine(contexts, 0, procs, 1 << 20, 1 << 20);
    while (in.n > 0) {
        const uint8_t op = in.byte();
        if (op % 16 == 0) {  // a context goes away mid-stream
            const auto id = static_cast<uint16_t>(1 + in.byte() % 2);
            if (contexts.by_id(id)) {
                engine.context_destroyed(id);
                contexts.destroy(id);
            }
            continue;
        }
        const int source = static_cast<int>(in.byte() % (procs + 2)) - 1;  // -1 and procs: out of range
        const std::vector<uint8_t> packet = make_packet(in);
        engine.deliver(source, packet.data(), packet.size());
    }
    for (uint16_t id = 0; id <= live_contexts + 1; ++id) engine.context_destroyed(id);
    require(engine.reassembling() == 0);
    return 0;
}
