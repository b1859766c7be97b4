#include "handles.hpp"

#include <deque>
#include <mutex>

namespace ccs::armci {

struct slot {
    ccs_counter_t counter{};
    uint64_t issued = 0;
    uint32_t generation = 0;
    bool in_use = false;
    size_t index = 0;
};

namespace {
constexpr int aggregate_flag = 1;
constexpr uint32_t generation_mask = 0x3fff'ffffu;

struct handle_table {
    std::mutex lock;
    std::deque<slot> slots;  // never moves: CCS holds pointers to the counters
    std::vector<size_t> free;
    slot implicit;
};
handle_table &table() {
    static handle_table t;
    return t;
}

// The slot `hdl` names, or nullptr when it names none (fresh, or its slot
// was given back since). Under the table's lock.
slot *named(handle_table &t, const armci_hdl_t *hdl) {
    const size_t index = static_cast<size_t>(hdl->target) - 1;
    if (hdl->target <= 0 || index >= t.slots.size()) return nullptr;
    slot &s = t.slots[index];
    const uint32_t generation = static_cast<uint32_t>(hdl->aggregate) >> 1;
    return s.in_use && s.generation == generation ? &s : nullptr;
}

void give_back(handle_table &t, slot &s) {
    s.in_use = false;
    s.generation = (s.generation + 1) & generation_mask;
    t.free.push_back(s.index);
}

// Waits, without the table's lock, for the operations `s` counted when
// called (*issued); returns with the lock held: 0, or the first failed
// operation's error (reported).
int wait_slot(const char *call, std::unique_lock<std::mutex> &hold, slot &s, uint64_t &issued) {
    issued = s.issued;
    hold.unlock();
    const ccs_status_t st = ccs_counter_wait(&s.counter, issued);
    hold.lock();
    if (st == CCS_OK) return 0;
    if (s.counter.errors == 0) return report_ccs(call, st);
    return report(call, s.counter.first_error,
                  std::to_string(s.counter.errors) + " operation(s) under the handle failed");
}
}  // namespace

pending_completion completion_for(armci_hdl_t *hdl) {
    handle_table &t = table();
    std::lock_guard<std::mutex> hold(t.lock);
    slot *s = hdl ? named(t, hdl) : &t.implicit;
    if (!s) {
        size_t index;
        if (!t.free.empty()) {
            index = t.free.back();
            t.free.pop_back();
        } else {
            index = t.slots.size();
            t.slots.emplace_back();
            t.slots.back().index = index;
        }
        s = &t.slots[index];
        s->in_use = true;
        s->issued = 0;
        ccs_counter_init(&s->counter);
        hdl->target = static_cast<int>(index + 1);
        hdl->aggregate = static_cast<int>(s->generation << 1) | (hdl->aggregate & aggregate_flag);
    }
    return {{nullptr, nullptr, &s->counter}, s};
}

void count_issued(const pending_completion &p) {
    std::lock_guard<std::mutex> hold(table().lock);
    ++p.owner->issued;
}

int wait_handle(const char *call, armci_hdl_t *hdl) {
    if (!hdl) return report(call, CCS_ERR_INVALID_ARG, "the handle is NULL");
    handle_table &t = table();
    std::unique_lock<std::mutex> hold(t.lock);
    slot *s = named(t, hdl);
    if (!s) return 0;
    uint64_t issued = 0;
    const int rc = wait_slot(call, hold, *s, issued);
    if (named(t, hdl) == s && s->issued == issued) give_back(t, *s);
    return rc;
}

int test_handle(const char *call, armci_hdl_t *hdl) {
    if (!hdl) return report(call, CCS_ERR_INVALID_ARG, "the handle is NULL");
    ccs_progress();
    handle_table &t = table();
    {
        std::lock_guard<std::mutex> hold(t.lock);
        slot *s = named(t, hdl);
        if (!s) return 0;
        if (__atomic_load_n(&s->counter.value, __ATOMIC_ACQUIRE) < s->issued) return 1;
    }
    wait_handle(call, hdl);
    return 0;
}

int wait_all(const char *call) {
    handle_table &t = table();
    int rc = 0;
    std::unique_lock<std::mutex> hold(t.lock);
    for (size_t i = 0; i <= t.slots.size(); ++i) {
        slot &s = i < t.slots.size() ? t.slots[i] : t.implicit;
        if (&s != &t.implicit && !s.in_use) continue;
        uint64_t issued = 0;
        const int slot_rc = wait_slot(call, hold, s, issued);
        if (rc == 0) rc = slot_rc;
        if (&s != &t.implicit && s.in_use && s.issued == issued) give_back(t, s);
    }
    return rc;
}

}  // namespace ccs::armci
