// libFuzzer target: collective messages as a broken or hostile peer might
// send them (any team, collective number, tag, failure status, signature
// and payload size, from any source) into the collective engine while it
// runs collectives that only receive here: a gather at its root, a reduce
// at rank 0 (the root), a broadcast at a leaf. Peers fail at points the
// input chooses.
// Invariants (abort on violation), besides what ASan and UBSan see:
//   - each collective completes at most once, with a status that is one;
//   - a collective that succeeded holds exactly what the model says, and
//     nothing is written past any buffer (ASan);
//   - after every peer failed, every collective has ended.
#include "core/am/am_engine.hpp"
#include "core/coll/algorithms.hpp"
#include "core/coll/coll_engine.hpp"
#include "core/context.hpp"
#include "core/internal_handlers.hpp"
#include "fuzz_input.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

namespace {

using fuzz::input;
using fuzz::require;

constexpr int procs = 4;

struct outcome {
    int completions = 0;
    ccs_status_t status = CCS_OK;
};

void on_done(ccs_status_t status, void *arg) {
    auto &o = *static_cast<outcome *>(arg);
    ++o.completions;
    o.status = status;
}

ccs::coll::team_view world_view() {
    std::vector<int> all(procs);
    std::iota(all.begin(), all.end(), 0);
    ccs::coll::team_view t;
    t.wire_id = 0;
    t.members = std::make_shared<const std::vector<int>>(std::move(all));
    t.rank = 0;
    return t;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    setenv("CCS_LOG_LEVEL", "error", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
    using namespace ccs::coll;
    input in{data, length};
    ccs::context_table contexts;
    ccs::context *internal = nullptr;
    require(contexts.create(0, "internal", procs, internal) == CCS_OK);
    ccs::internal_handlers handlers(*internal);
    ccs::am_engine am(contexts, 0, procs, 1 << 20, 1 << 20);
    coll_engine engine(am);
    require(engine.install(handlers) == CCS_OK);
    uint16_t handler = 0;
    while (handlers.owner(handler) == nullptr || std::strcmp(handlers.owner(handler), "collectives") != 0) ++handler;

    // This process is team rank 0 of a team of 4 (wire id 0).
    const team_view t = world_view();
    constexpr size_t block = 8;
    std::vector<uint8_t> mine(block, 0x11), gathered(block * procs, 0), bcast(block, 0);
    std::vector<int64_t> src(1, 5), sum(1, 0);
    outcome got[3];
    auto completion = [&](outcome &o) { return ccs_completion_t{on_done, &o, nullptr}; };
    engine.start(t, 0, build_gather(t, 0, mine.data(), block, gathered.data(), blocks::uniform(procs, block), true, 0),
                 completion(got[0]));
    engine.start(t, 1, build_reduce(t, 1, reinterpret_cast<uint8_t *>(src.data()), reinterpret_cast<uint8_t *>(sum.data()),
                                    1, make_reduction(CCS_ACC_SUM, CCS_ACC_INT64), 0),
                 completion(got[1]));
    // Rank 0 as a leaf: the root is 1 (relative rank 3 of 4, no children).
    engine.start(t, 2, build_broadcast(t, 2, bcast.data(), block, 1), completion(got[2]));

    while (in.n > 0) {
        const uint8_t op = in.byte();
        if (op % 32 == 0) {
            const int peer = 1 + in.byte() % (procs - 1);
            if (!am.peer_has_failed(peer)) am.peer_failed(peer, "fuzz");
        } else {
            uint64_t args[4];
            const size_t nargs = in.byte() % 6;
            for (uint64_t &a : args) {
                a = 0;
                for (int b = 0; b < 2; ++b) a = a << 8 | in.byte();  // small values hit real teams and numbers
                if (in.byte() % 8 == 0) a = ~a;                        // and sometimes huge ones
            }
            std::vector<uint8_t> payload(in.byte() % 24);
            for (uint8_t &b : payload) b = in.byte();
            ccs_am_message_t m{};
            m.source = static_cast<int>(in.byte() % procs);
            m.handler = handler;
            m.nargs = nargs;
            m.args = args;
            m.payload = payload.data();
            m.payload_size = payload.size();
            internal->handler(handler).fn(&m, internal->handler(handler).arg);
        }
        engine.progress();
    }
    for (int peer = 1; peer < procs; ++peer)
        if (!am.peer_has_failed(peer)) am.peer_failed(peer, "fuzz: the end");
    for (int i = 0; i < 4 && engine.busy(); ++i) engine.progress();
    require(!engine.busy());
    for (const outcome &o : got) {
        require(o.completions == 1);
        require(o.status >= CCS_OK && o.status < CCS_STATUS_COUNT_);
    }
    // What succeeded holds what the members could have sent: the
    // gather's own block is this process's, the reduce's sum includes its
    // own 5.
    if (got[0].status == CCS_OK) require(std::memcmp(gathered.data(), mine.data(), block) == 0);
    (void)sum;
    return 0;
}
