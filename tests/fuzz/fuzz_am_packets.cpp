// libFuzzer target: the input is a stream of active-message packets as a
// broken or hostile peer might send them (any header fields, fragments of
// any size, offset and number, notices of abandoned messages, unknown or
// destroyed contexts, short packets), fed to the receive side of the AM
// engine, with contexts destroyed at points the input chooses.
// Some packets come as a transport that receives in place offers them:
// their head to place(), the payload fetched later and reported placed()
// or lost, or a report for a placement never made. Some come as a
// transport that keeps payloads offers them (deliver_parked): the header
// sink sees the head and the kept payload, which it fetches or lets go.
// Invariants (abort on violation), besides what ASan and UBSan see:
//   - handlers only ever see at most CCS_AM_MAX_ARGS arguments, and a
//     payload they can read in full;
//   - the placer is asked only about whole, well-formed heads, and hears
//     once of each place it gave, with the length it was asked for;
//   - the header sink sees a kept payload only behind a large message's
//     header, and never empty;
//   - destroying every context leaves no message half received.
// Fragment totals are either small or beyond what the engine accepts, so
// every run stays within a few MiB.
#include "core/am/am_engine.hpp"
#include "core/context.hpp"
#include "fuzz_input.hpp"

#include <cstddef>
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

// Places payloads of the internal context's handler 1 in its own memory.
class test_placer final : public ccs::packet_placer {
public:
    uint8_t *place(int source, const uint64_t *, size_t nargs, size_t length) override {
        require(source >= 0 && source < procs && nargs <= CCS_AM_MAX_ARGS && length > 0);
        if (length > memory_.size()) return nullptr;
        ++given_;
        lengths_ += length;
        return memory_.data();
    }
    void placed(int source, const uint64_t *, size_t nargs, size_t length, ccs_plugin_status_t status) override {
        require(source >= 0 && source < procs && nargs <= CCS_AM_MAX_ARGS && given_ > 0 && lengths_ >= length);
        if (status == CCS_PLUGIN_OK) g_sink += memory_[length - 1];
        --given_;
        lengths_ -= length;
    }
    size_t given() const { return given_; }

private:
    std::vector<uint8_t> memory_ = std::vector<uint8_t>(4096);
    size_t given_ = 0, lengths_ = 0;
};

// Takes large messages' headers; a kept payload is fetched (the transport
// here is gone, so that fails cleanly) or let go.
class test_header_sink final : public ccs::header_sink {
public:
    void on_header(ccs::context &, int source, uint16_t, const uint64_t *, size_t nargs, const uint8_t *payload,
                   size_t length, bool large, ccs::parked_payload *parked) override {
        require(source >= 0 && source < procs && nargs <= CCS_AM_MAX_ARGS);
        for (size_t i = 0; i < length; ++i) g_sink += payload[i];
        if (!parked) return;
        require(large && parked->held() && parked->length() > 0);
        if (length % 2) require(parked->fetch(nullptr, 1) != CCS_PLUGIN_OK);
        ccs::parked_payload taken = std::move(*parked);  // let go here
        require(!parked->held());
    }
};

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
    test_placer placer;
    engine.set_placer(1, &placer);
    test_header_sink headers;
    engine.set_header_sink(&headers);
    std::vector<uint64_t> placements;
    while (in.n > 0) {
        const uint8_t op = in.byte();
        if (op % 16 == 1) {  // a fetch into place ends: arrived, lost, or never asked for
            const size_t pick = in.byte();
            const auto status = in.byte() % 3 == 0 ? CCS_PLUGIN_ERR_PEER_FAILED : CCS_PLUGIN_OK;
            if (pick % 4 == 0 || placements.empty()) {
                engine.placed(in.byte() * 7919ull, status);
            } else {
                const size_t i = pick % placements.size();
                engine.placed(placements[i], status);
                placements.erase(placements.begin() + static_cast<std::ptrdiff_t>(i));
            }
            continue;
        }
        if (op % 16 == 2) {  // a rendezvous head: where does the rest go?
            const int source = static_cast<int>(in.byte() % (procs + 2)) - 1;
            const std::vector<uint8_t> packet = make_packet(in);
            const size_t head = in.byte() % (packet.size() + 1);
            const size_t rest = in.byte() % 4 == 0 ? in.byte() * 64u : packet.size() - head;
            uint64_t id = 0;
            if (engine.place(source, packet.data(), head, rest, id)) placements.push_back(id);
            continue;
        }
        if (op % 16 == 3) {  // a rendezvous head whose payload the transport keeps
            const int source = static_cast<int>(in.byte() % (procs + 2)) - 1;
            std::vector<uint8_t> packet = make_packet(in);
            if (packet.size() >= sizeof(ccs::wire::header) && in.byte() % 2) packet[5] |= ccs::wire::large;  // flags
            const size_t head = in.byte() % (packet.size() + 1);
            const size_t rest = in.byte() % 4 == 0 ? in.byte() * 64u : packet.size() - head;
            engine.deliver_parked(source, packet.data(), head, rest, {}, 1 + in.byte());
            continue;
        }
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
    for (const uint64_t id : placements) engine.placed(id, CCS_PLUGIN_ERR_PEER_FAILED);
    require(placer.given() == 0);
    for (uint16_t id = 0; id <= live_contexts + 1; ++id) engine.context_destroyed(id);
    require(engine.reassembling() == 0);
    return 0;
}
