#include "core/rma/beside_operations.hpp"

#include <mutex>
#include <new>

namespace ccs {
namespace {

constexpr uint32_t records_per_table = 256;
constexpr uint32_t max_tables = 4096;  // threads that ever started one; more take the locked path

struct alignas(64) table {
    std::atomic<uint32_t> busy{0};  // records in flight
    uint32_t index = 0;
    // Its thread's alone (handed on under g_registry).
    uint32_t generation = 0;
    uint32_t next = 0;  // where it looks for a free record first
    bool taken = true;  // by a live thread; under g_registry
    beside_operations::record records[records_per_table];
};

// Tables are never freed: a record may finish after its thread ended, and
// the next new thread takes the table over.
std::mutex g_registry;
std::atomic<table *> g_tables[max_tables];
std::atomic<uint32_t> g_table_count{0};
thread_local table *t_table __attribute__((tls_model("initial-exec"))) = nullptr;

struct table_owner {
    table *t = nullptr;
    ~table_owner() {
        if (!t) return;
        const std::lock_guard<std::mutex> hold(g_registry);
        t->taken = false;
        t_table = nullptr;
    }
};

table *own_table() noexcept {
    static thread_local table_owner owner;
    const std::lock_guard<std::mutex> hold(g_registry);
    const uint32_t n = g_table_count.load(std::memory_order_relaxed);
    table *t = nullptr;
    for (uint32_t i = 0; i < n && !t; ++i) {
        table *free = g_tables[i].load(std::memory_order_relaxed);
        if (!free->taken) t = free;
    }
    if (t) {
        t->taken = true;
    } else {
        if (n == max_tables || !(t = new (std::nothrow) table)) return nullptr;
        t->index = n;
        g_tables[n].store(t, std::memory_order_release);
        g_table_count.store(n + 1, std::memory_order_release);
    }
    owner.t = t;
    t_table = t;
    return t;
}

// Token: the bit, the record's generation (31 bits), its table, its index.
uint64_t make_token(const table &t, uint32_t record) {
    return beside_operations::token_bit | (uint64_t{t.generation & 0x7fffffffu} << 32) | (uint64_t{t.index} << 16) |
           record;
}

beside_operations::record *record_of(uint64_t token) {
    const auto index = static_cast<uint32_t>(token >> 16) & 0xffffu;
    const auto record = static_cast<uint32_t>(token) & 0xffffu;
    if (!beside_operations::owns(token) || index >= g_table_count.load(std::memory_order_acquire) ||
        record >= records_per_table)
        return nullptr;
    return &g_tables[index].load(std::memory_order_acquire)->records[record];
}

// Calls visit(record, token) for each record in flight.
template <typename Visit>
void each_in_flight(Visit visit) {
    const uint32_t n = g_table_count.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n; ++i) {
        const table &t = *g_tables[i].load(std::memory_order_acquire);
        if (t.busy.load(std::memory_order_acquire) == 0) continue;
        for (const beside_operations::record &r : t.records)
            if (const uint64_t token = r.token.load(std::memory_order_acquire)) visit(r, token);
    }
}

}  // namespace

beside_operations::record *beside_operations::start(uint16_t ctx, kind what, int32_t target, ccs_counter_t *counter,
                                                     uint64_t &token) noexcept {
    table *t = t_table;
    if (!t && !(t = own_table())) return nullptr;
    for (uint32_t k = 0; k < records_per_table; ++k) {
        const uint32_t i = (t->next + k) % records_per_table;
        record &r = t->records[i];
        if (r.token.load(std::memory_order_acquire) != 0) continue;
        r.ctx.store(ctx, std::memory_order_relaxed);
        r.what.store(what, std::memory_order_relaxed);
        r.target.store(target, std::memory_order_relaxed);
        r.counter.store(counter, std::memory_order_relaxed);
        ++t->generation;
        token = make_token(*t, i);
        t->busy.fetch_add(1, std::memory_order_relaxed);
        r.token.store(token, std::memory_order_release);
        t->next = i + 1;
        return &r;
    }
    return nullptr;
}

bool beside_operations::finish(uint64_t token, finished *out) noexcept {
    record *r = record_of(token);
    if (!r || r->token.load(std::memory_order_acquire) != token) return false;
    // Read before the swap: once free, its thread may fill it again.
    finished f{r->ctx.load(std::memory_order_relaxed), r->what.load(std::memory_order_relaxed),
               r->target.load(std::memory_order_relaxed), r->counter.load(std::memory_order_relaxed)};
    uint64_t expected = token;
    if (!r->token.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return false;
    const auto index = static_cast<uint32_t>(token >> 16) & 0xffffu;
    g_tables[index].load(std::memory_order_relaxed)->busy.fetch_sub(1, std::memory_order_release);
    if (out) *out = f;
    return true;
}

bool beside_operations::in_flight(uint64_t token) noexcept {
    const record *r = record_of(token);
    return r && r->token.load(std::memory_order_acquire) == token;
}

uint64_t beside_operations::count(uint16_t ctx, int target) noexcept {
    uint64_t n = 0;
    each_in_flight([&](const record &r, uint64_t) {
        if (r.ctx.load(std::memory_order_relaxed) == ctx &&
            (target < 0 || r.target.load(std::memory_order_relaxed) == target))
            ++n;
    });
    return n;
}

bool beside_operations::any() noexcept {
    const uint32_t n = g_table_count.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n; ++i)
        if (g_tables[i].load(std::memory_order_acquire)->busy.load(std::memory_order_acquire) != 0) return true;
    return false;
}

std::vector<uint64_t> beside_operations::to(int target) {
    std::vector<uint64_t> tokens;
    each_in_flight([&](const record &r, uint64_t token) {
        if (r.target.load(std::memory_order_relaxed) == target) tokens.push_back(token);
    });
    return tokens;
}

}  // namespace ccs
