// put, get and atomics over the verbs plugin on the software fabric.
#include "soft_job.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

namespace ccs::verbs::testing {
namespace {

// Memory of `owner` registered with its plugin, and `user`'s key to it.
struct exposed {
    soft_job &job;
    int owner, user;
    std::vector<uint8_t> bytes;
    void *memh = nullptr;
    void *rkey = nullptr;

    exposed(soft_job &j, int owner_rank, int user_rank, size_t length)
        : job(j), owner(owner_rank), user(user_rank), bytes(length) {
        EXPECT_EQ(job.plugin(owner).mem_reg(bytes.data(), length, &memh), CCS_PLUGIN_OK);
        size_t n = 0;
        EXPECT_EQ(job.plugin(owner).rkey_pack(memh, nullptr, &n), CCS_PLUGIN_OK);
        std::vector<uint8_t> packed(n);
        EXPECT_EQ(job.plugin(owner).rkey_pack(memh, packed.data(), &n), CCS_PLUGIN_OK);
        EXPECT_EQ(job.plugin(user).rkey_unpack(owner, packed.data(), n, &rkey), CCS_PLUGIN_OK);
    }
    ~exposed() {
        job.plugin(user).rkey_release(rkey);
        if (memh) job.plugin(owner).mem_dereg(memh);
    }
    uint64_t at(size_t offset) const { return reinterpret_cast<uintptr_t>(bytes.data()) + offset; }
    void deregister() {
        job.plugin(owner).mem_dereg(memh);
        memh = nullptr;
    }
};

// Issues with `issue` until it stops saying AGAIN, then waits for its
// completion if it is in progress; the final status.
template <typename Issue>
ccs_plugin_status_t run(soft_job &job, int rank, uint64_t token, Issue issue) {
    ccs_plugin_status_t st = CCS_PLUGIN_AGAIN;
    job.until([&] { return (st = issue()) != CCS_PLUGIN_AGAIN; });
    if (st != CCS_PLUGIN_IN_PROGRESS) return st;
    if (!job.until([&] { return job.core(rank).done(token); })) return CCS_PLUGIN_AGAIN;
    job.core(rank).done(token, &st);
    return st;
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7 + i / 251);
    return v;
}

TEST(VerbsRma, PutAndGetMoveListsInPiecesOfThePortsLargestMessage) {
    soft_device_spec small;
    small.max_message = 4096;
    soft_job job(2, {}, {small});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    exposed target(job, 1, 0, 64 << 10);
    const std::vector<uint8_t> a = pattern(10000, 1), b = pattern(5, 2), c = pattern(25000, 3);
    const ccs_plugin_iov_v1_t local[] = {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), c.size()}};
    const ccs_plugin_remote_v1_t remote[] = {{target.at(100), 20000}, {target.at(30000), 15005}};
    EXPECT_EQ(run(job, 0, 7, [&] { return job.plugin(0).put(1, local, 3, remote, 2, target.rkey, 7); }), CCS_PLUGIN_OK);
    std::vector<uint8_t> all = a;
    all.insert(all.end(), b.begin(), b.end());
    all.insert(all.end(), c.begin(), c.end());
    EXPECT_TRUE(std::equal(all.begin(), all.begin() + 20000, target.bytes.begin() + 100));
    EXPECT_TRUE(std::equal(all.begin() + 20000, all.end(), target.bytes.begin() + 30000));
    EXPECT_EQ(job.core(0).loans, 0u) << "every lent region was given back";

    std::vector<uint8_t> x(30000), y(5005);
    const ccs_plugin_buffer_v1_t into[] = {{x.data(), x.size()}, {y.data(), y.size()}};
    EXPECT_EQ(run(job, 0, 8, [&] { return job.plugin(0).get(1, into, 2, remote, 2, target.rkey, 8); }), CCS_PLUGIN_OK);
    EXPECT_TRUE(std::equal(x.begin(), x.end(), all.begin()));
    EXPECT_TRUE(std::equal(y.begin(), y.end(), all.begin() + 30000));
    EXPECT_EQ(job.core(0).loans, 0u);
}

TEST(VerbsRma, SmallPutsGoInlineAndBorrowNothing) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    exposed target(job, 1, 0, 4096);
    const std::vector<uint8_t> a = pattern(64, 9);
    const ccs_plugin_iov_v1_t local{a.data(), a.size()};
    const ccs_plugin_remote_v1_t remote{target.at(8), 64};
    size_t most = 0;
    EXPECT_EQ(run(job, 0, 1,
                  [&] {
                      const ccs_plugin_status_t st = job.plugin(0).put(1, &local, 1, &remote, 1, target.rkey, 1);
                      most = std::max(most, job.core(0).loans);
                      return st;
                  }),
              CCS_PLUGIN_OK);
    EXPECT_EQ(most, 0u);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), target.bytes.begin() + 8));
}

TEST(VerbsRma, APutFromReadOnlyMemoryIsRegisteredForReading) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    exposed target(job, 1, 0, 64 << 10);
    const std::vector<uint8_t> constant = pattern(20000, 5);  // beyond inline: lent by the cache
    job.host(0).read_only.emplace_back(constant.data(), constant.size());
    const ccs_plugin_iov_v1_t local{constant.data(), constant.size()};
    const ccs_plugin_remote_v1_t remote{target.at(0), constant.size()};
    EXPECT_EQ(run(job, 0, 5, [&] { return job.plugin(0).put(1, &local, 1, &remote, 1, target.rkey, 5); }), CCS_PLUGIN_OK);
    EXPECT_TRUE(std::equal(constant.begin(), constant.end(), target.bytes.begin()));
    EXPECT_EQ(job.core(0).loans, 0u);
}

TEST(VerbsRma, ManyPiecesWaitForRoomInTheSendQueue) {
    soft_device_spec small;
    small.max_message = 4096;
    soft_job job(2, {{"SEND_QUEUE", "16"}}, {small});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    exposed target(job, 1, 0, 1 << 20);
    const std::vector<uint8_t> a = pattern(1 << 20, 4);
    const ccs_plugin_iov_v1_t local{a.data(), a.size()};
    const ccs_plugin_remote_v1_t remote{target.at(0), a.size()};
    EXPECT_EQ(run(job, 0, 3, [&] { return job.plugin(0).put(1, &local, 1, &remote, 1, target.rkey, 3); }), CCS_PLUGIN_OK);
    EXPECT_EQ(target.bytes, a);
    EXPECT_FALSE(job.fabric.cq_overflow);
}

TEST(VerbsRma, RangesBeyondTheKeyAndForgedKeysAreRefused) {
    soft_job job(3);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    exposed target(job, 1, 0, 4096);
    uint8_t byte = 0;
    const ccs_plugin_iov_v1_t local{&byte, 1};
    const ccs_plugin_remote_v1_t beyond{target.at(4096), 1}, before{target.at(0) - 1, 1}, huge{target.at(1), ~0ull};
    EXPECT_EQ(job.plugin(0).put(1, &local, 1, &beyond, 1, target.rkey, 1), CCS_PLUGIN_ERR_ACCESS);
    EXPECT_EQ(job.plugin(0).put(1, &local, 1, &before, 1, target.rkey, 1), CCS_PLUGIN_ERR_ACCESS);
    EXPECT_EQ(job.plugin(0).put(1, &local, 1, &huge, 1, target.rkey, 1), CCS_PLUGIN_ERR_ACCESS);
    const ccs_plugin_remote_v1_t fine{target.at(0), 1};
    EXPECT_EQ(job.plugin(0).put(2, &local, 1, &fine, 1, target.rkey, 1), CCS_PLUGIN_ERR_INVALID)
        << "a key of rank 1 used for rank 2";
    void *rkey = nullptr;
    const uint8_t garbage[24] = {1, 2, 3};
    EXPECT_EQ(job.plugin(0).rkey_unpack(1, garbage, sizeof garbage, &rkey), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(job.plugin(0).rkey_unpack(1, garbage, 3, &rkey), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(job.plugin(0).rkey_unpack(5, garbage, sizeof garbage, &rkey), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(rkey, nullptr);
    EXPECT_TRUE(job.core(0).completed.empty()) << "nothing was started";
    EXPECT_EQ(run(job, 0, 2, [&] { return job.plugin(0).put(1, &local, 1, &fine, 1, target.rkey, 2); }), CCS_PLUGIN_OK);
}

TEST(VerbsRma, MemoryDeregisteredUnderAPutFailsItAndItsConnection) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    exposed target(job, 1, 0, 4096);
    const std::vector<uint8_t> a = pattern(64, 1);
    const ccs_plugin_iov_v1_t local{a.data(), a.size()};
    const ccs_plugin_remote_v1_t remote{target.at(0), 64};
    ASSERT_EQ(run(job, 0, 1, [&] { return job.plugin(0).put(1, &local, 1, &remote, 1, target.rkey, 1); }), CCS_PLUGIN_OK);
    target.deregister();  // the adapter now refuses the key
    std::fill(target.bytes.begin(), target.bytes.end(), 0);
    EXPECT_EQ(run(job, 0, 2, [&] { return job.plugin(0).put(1, &local, 1, &remote, 1, target.rkey, 2); }),
              CCS_PLUGIN_ERR_ACCESS);
    EXPECT_TRUE(std::all_of(target.bytes.begin(), target.bytes.end(), [](uint8_t b) { return b == 0; }));
    ASSERT_EQ(job.core(0).failed.size(), 1u) << "on a reliable connection an error ends it";
    EXPECT_NE(job.core(0).failed[0].second.find("refused the remote access"), std::string::npos);
}

// Every operation at both widths, on a peer's word and on this process's
// own (through its connection to itself), against a sequential model.
TEST(VerbsRma, AtomicsMatchASequentialModel) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    uint64_t token = 100;
    for (int owner : {1, 0}) {
        exposed words(job, owner, 0, 64);
        for (uint32_t width : {8u, 4u}) {
            for (uint32_t op = CCS_PLUGIN_ATOMIC_ADD; op <= CCS_PLUGIN_ATOMIC_SET; ++op) {
                for (size_t offset : {size_t{8}, size_t{12}}) {
                    if (width == 8 && offset == 12) continue;
                    const uint64_t before = 0x1111222233334444ull, operand = 0x0f0f0f0f8000000full;
                    const uint64_t mask = width == 8 ? ~0ull : 0xffffffffull;
                    std::memcpy(words.bytes.data() + 8, &before, 8);
                    const uint64_t old = width == 8 ? before : (before >> ((offset - 8) * 8)) & mask;
                    for (bool match : {true, false}) {
                        if (!match && op != CCS_PLUGIN_ATOMIC_CSWAP) continue;
                        std::memcpy(words.bytes.data() + 8, &before, 8);
                        const uint64_t compare = match ? old : old + 1;
                        uint64_t fetched = 0xdeadbeefdeadbeefull;
                        ++token;
                        ASSERT_EQ(run(job, 0, token,
                                      [&] {
                                          return job.plugin(0).atomic(owner, op, width, words.at(offset), operand,
                                                                      compare, &fetched, words.rkey, token);
                                      }),
                                  CCS_PLUGIN_OK)
                            << "op " << op << " width " << width;
                        uint64_t expect = old;
                        switch (op) {
                        case CCS_PLUGIN_ATOMIC_ADD: expect = old + operand; break;
                        case CCS_PLUGIN_ATOMIC_AND: expect = old & operand; break;
                        case CCS_PLUGIN_ATOMIC_OR: expect = old | operand; break;
                        case CCS_PLUGIN_ATOMIC_XOR: expect = old ^ operand; break;
                        case CCS_PLUGIN_ATOMIC_SWAP:
                        case CCS_PLUGIN_ATOMIC_SET: expect = operand; break;
                        case CCS_PLUGIN_ATOMIC_CSWAP: expect = match ? operand : old; break;
                        default: break;
                        }
                        expect &= mask;
                        uint64_t now = 0;
                        std::memcpy(&now, words.bytes.data() + offset, width);
                        EXPECT_EQ(now, expect) << "op " << op << " width " << width << " owner " << owner;
                        uint64_t got = 0xdeadbeefdeadbeefull;
                        std::memcpy(&got, &fetched, 8);
                        const uint64_t untouched = width == 8 ? 0 : 0xdeadbeef00000000ull;
                        EXPECT_EQ(got, old | untouched) << "fetched: op " << op << " width " << width;
                        if (width == 4) {  // the other half of the word is left alone
                            uint64_t whole;
                            std::memcpy(&whole, words.bytes.data() + 8, 8);
                            const unsigned other = offset == 8 ? 32 : 0;
                            EXPECT_EQ((whole >> other) & mask, (before >> other) & mask);
                        }
                    }
                }
            }
        }
    }
}

TEST(VerbsRma, RegistrationStopsAtTheDevicesLimitsAndWhenMemoryCannotBeLocked) {
    soft_device_spec few;
    few.max_mr = 6;  // the plugin's own four (buffers, credit words) and two more
    soft_job job(1, {}, {few});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    std::vector<uint8_t> memory(4096);
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(job.plugin(0).mem_reg(memory.data(), 4096, &a), CCS_PLUGIN_OK);
    ASSERT_EQ(job.plugin(0).mem_reg(memory.data(), 4096, &b), CCS_PLUGIN_OK);
    void *c = nullptr;
    EXPECT_EQ(job.plugin(0).mem_reg(memory.data(), 4096, &c), CCS_PLUGIN_ERR_LIMIT) << "the cache evicts and retries";
    job.plugin(0).mem_dereg(b);
    job.host(0).fail_next_reg_mr = ENOMEM;  // RLIMIT_MEMLOCK reached
    EXPECT_EQ(job.plugin(0).mem_reg(memory.data(), 4096, &c), CCS_PLUGIN_ERR_LIMIT);
    job.host(0).fail_next_reg_mr = EINVAL;  // a range the device refuses
    EXPECT_EQ(job.plugin(0).mem_reg(memory.data(), 4096, &c), CCS_PLUGIN_ERR_INVALID);
    ASSERT_EQ(job.plugin(0).mem_reg(memory.data(), 4096, &c), CCS_PLUGIN_OK);
    job.plugin(0).mem_dereg(a);
    job.plugin(0).mem_dereg(c);
    EXPECT_EQ(job.plugin(0).mem_reg(nullptr, 4096, &c), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(job.plugin(0).mem_reg(memory.data(), 0, &c), CCS_PLUGIN_ERR_INVALID);
}

TEST(VerbsRma, AtomicsWithoutTheAdaptersSupportAreUnsupported) {
    soft_device_spec plain;
    plain.atomics = false;
    soft_job job(2, {}, {plain});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    exposed words(job, 1, 0, 64);
    uint64_t fetched = 0;
    EXPECT_EQ(job.plugin(0).atomic(1, CCS_PLUGIN_ATOMIC_ADD, 8, words.at(8), 1, 0, &fetched, words.rkey, 1),
              CCS_PLUGIN_ERR_UNSUPPORTED);
    EXPECT_EQ(job.plugin(0).atomic(1, CCS_PLUGIN_ATOMIC_ADD, 8, words.at(12), 1, 0, &fetched, words.rkey, 1),
              CCS_PLUGIN_ERR_INVALID)
        << "misaligned";
    EXPECT_EQ(job.plugin(0).atomic(1, 99, 8, words.at(8), 1, 0, &fetched, words.rkey, 1), CCS_PLUGIN_ERR_INVALID);
}

TEST(VerbsRma, OperationsToAPeerThatDiesCompleteWithPeerFailed) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    job.fabric.retry_time = std::chrono::milliseconds(30);
    exposed target(job, 1, 0, 8192);
    std::vector<uint8_t> x(4096);
    const ccs_plugin_buffer_v1_t into{x.data(), x.size()};
    const ccs_plugin_remote_v1_t remote{target.at(0), 4096};
    ASSERT_EQ(run(job, 0, 1, [&] { return job.plugin(0).get(1, &into, 1, &remote, 1, target.rkey, 1); }), CCS_PLUGIN_OK);
    job.host(1).dead = true;
    ccs_plugin_status_t st = job.plugin(0).get(1, &into, 1, &remote, 1, target.rkey, 2);
    ASSERT_EQ(st, CCS_PLUGIN_IN_PROGRESS);
    ASSERT_TRUE(job.until([&] { return job.core(0).done(2, &st); }, 5, 1));
    EXPECT_EQ(st, CCS_PLUGIN_ERR_PEER_FAILED);
    EXPECT_EQ(job.core(0).loans, 0u);
    EXPECT_EQ(job.plugin(0).get(1, &into, 1, &remote, 1, target.rkey, 3), CCS_PLUGIN_ERR_PEER_FAILED);
}

}  // namespace
}  // namespace ccs::verbs::testing
