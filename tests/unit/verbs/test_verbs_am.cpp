// Active messages over the verbs plugin on the software fabric:
// connections on first use, order, credits, sizes, failures, waking.
#include "soft_job.hpp"

#include <gtest/gtest.h>
#include <poll.h>

#include <cstring>

namespace ccs::verbs::testing {
namespace {

std::vector<uint8_t> packet(uint32_t seq, size_t length) {
    std::vector<uint8_t> p(length);
    for (size_t i = 0; i < length; ++i) p[i] = static_cast<uint8_t>(seq * 31 + i);
    if (length >= 4) std::memcpy(p.data(), &seq, 4);
    return p;
}

bool readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1;
}

bool mentions(const std::vector<std::string> &log, const std::string &text) {
    for (const std::string &line : log)
        if (line.find(text) != std::string::npos) return true;
    return false;
}

TEST(VerbsAm, FirstSendConnectsThenPacketsArriveInOrder) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    const std::vector<uint8_t> first = packet(0, 64);
    const ccs_plugin_iov_v1_t iov{first.data(), first.size()};
    EXPECT_EQ(job.plugin(0).am_send(1, &iov, 1), CCS_PLUGIN_AGAIN);  // the connection comes up first
    EXPECT_EQ(job.plugin(0).peer_state(1)->state, link::requesting);
    EXPECT_EQ(job.plugin(1).peer_state(0)->state, link::none) << "nothing is created before it is used";
    ASSERT_EQ(job.send(0, 1, first), CCS_PLUGIN_OK);
    for (uint32_t i = 1; i < 200; ++i) ASSERT_EQ(job.send(0, 1, packet(i, 8 + i * 13 % 8000)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 200; }));
    for (uint32_t i = 0; i < 200; ++i) {
        const auto &[source, bytes] = job.core(1).delivered[i];
        EXPECT_EQ(source, 0);
        EXPECT_EQ(bytes, i == 0 ? first : packet(i, 8 + i * 13 % 8000)) << "packet " << i;
    }
    EXPECT_TRUE(job.core(0).failed.empty());
    EXPECT_FALSE(job.fabric.cq_overflow);
}

TEST(VerbsAm, BothEndsConnectingAtOnceMeetInOneConnection) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    const std::vector<uint8_t> a = packet(1, 32), b = packet(2, 32);
    const ccs_plugin_iov_v1_t ia{a.data(), a.size()}, ib{b.data(), b.size()};
    EXPECT_EQ(job.plugin(0).am_send(1, &ia, 1), CCS_PLUGIN_AGAIN);
    EXPECT_EQ(job.plugin(1).am_send(0, &ib, 1), CCS_PLUGIN_AGAIN);
    ASSERT_EQ(job.send(0, 1, a), CCS_PLUGIN_OK);
    ASSERT_EQ(job.send(1, 0, b), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(0).delivered.size() == 1 && job.core(1).delivered.size() == 1; }));
    const peer &p01 = *job.plugin(0).peer_state(1), &p10 = *job.plugin(1).peer_state(0);
    EXPECT_EQ(p01.remote.qpn, p10.qp->qp()->qp_num);
    EXPECT_EQ(p10.remote.qpn, p01.qp->qp()->qp_num);
    EXPECT_EQ(job.core(1).delivered[0].second, a);
    EXPECT_EQ(job.core(0).delivered[0].second, b);
}

TEST(VerbsAm, LostConnectionMessagesAreRepeated) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    job.fabric.drop_datagrams = 3;
    ASSERT_EQ(job.send(0, 1, packet(0, 16)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1; }));
    EXPECT_EQ(job.fabric.drop_datagrams, 0);
}

TEST(VerbsAm, ASenderWithoutCreditsWaitsUntilTheReceiverFreesBuffers) {
    soft_job job(2, {{"CREDITS", "4"}});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    ASSERT_EQ(job.send(0, 1, packet(0, 16)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1; }));
    // Rank 1 stops making progress. It freed the first packet's buffer but
    // tells of frees by halves of the grant: rank 0 may fill three.
    for (uint32_t i = 1; i <= 3; ++i) ASSERT_EQ(job.send(0, 1, packet(i, 16), 1, 1), CCS_PLUGIN_OK) << i;
    EXPECT_EQ(job.send(0, 1, packet(4, 16), 0.2, 1), CCS_PLUGIN_AGAIN) << "starved";
    EXPECT_EQ(job.plugin(0).peer_state(1)->out.available(), 0u);
    ASSERT_EQ(job.send(0, 1, packet(4, 16)), CCS_PLUGIN_OK) << "rank 1 progresses and returns its buffers";
    for (uint32_t i = 5; i < 40; ++i) ASSERT_EQ(job.send(0, 1, packet(i, 16)), CCS_PLUGIN_OK) << i;
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 40; }));
    for (uint32_t i = 0; i < 40; ++i) EXPECT_EQ(job.core(1).delivered[i].second, packet(i, 16)) << i;
}

TEST(VerbsAm, CreditsTravelBackInPacketsOfAPingPong) {
    soft_job job(2, {{"CREDITS", "2"}});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    for (uint32_t i = 0; i < 300; ++i) {
        ASSERT_EQ(job.send(0, 1, packet(i, 8)), CCS_PLUGIN_OK) << i;
        ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == i + 1; }));
        ASSERT_EQ(job.send(1, 0, packet(i, 8)), CCS_PLUGIN_OK) << i;
        ASSERT_TRUE(job.until([&] { return job.core(0).delivered.size() == i + 1; }));
    }
    EXPECT_TRUE(job.core(0).failed.empty() && job.core(1).failed.empty());
}

TEST(VerbsAm, PacketsUpToTheEagerSizeArriveWholeAndLargerOnesAreRefused) {
    soft_job job(2, {{"EAGER_SIZE", "1k"}});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    ASSERT_EQ(job.send(0, 1, packet(0, 1024)), CCS_PLUGIN_OK);
    EXPECT_EQ(job.send(0, 1, packet(1, 1025)), CCS_PLUGIN_ERR_INVALID);
    const std::vector<uint8_t> a = packet(2, 10), b = packet(3, 500), c = packet(4, 300);
    const ccs_plugin_iov_v1_t three[] = {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), c.size()}};
    ASSERT_EQ(job.plugin(0).am_send(1, three, 3), CCS_PLUGIN_OK);  // copied: beyond inline
    const ccs_plugin_iov_v1_t small[] = {{a.data(), a.size()}, {a.data(), 0}, {c.data(), 20}};
    ASSERT_EQ(job.plugin(0).am_send(1, small, 3), CCS_PLUGIN_OK);  // inline
    ASSERT_EQ(job.plugin(0).am_send(1, small, 0), CCS_PLUGIN_OK);  // empty
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 4; }));
    std::vector<uint8_t> joined = a;
    joined.insert(joined.end(), b.begin(), b.end());
    joined.insert(joined.end(), c.begin(), c.end());
    EXPECT_EQ(job.core(1).delivered[0].second, packet(0, 1024));
    EXPECT_EQ(job.core(1).delivered[1].second, joined);
    std::vector<uint8_t> small_joined = a;
    small_joined.insert(small_joined.end(), c.begin(), c.begin() + 20);
    EXPECT_EQ(job.core(1).delivered[2].second, small_joined);
    EXPECT_TRUE(job.core(1).delivered[3].second.empty());
}

TEST(VerbsAm, BadArgumentsAreRefusedAndChangeNothing) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    const std::vector<uint8_t> p = packet(0, 8);
    const ccs_plugin_iov_v1_t iov{p.data(), p.size()};
    EXPECT_EQ(job.plugin(0).am_send(2, &iov, 1), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(job.plugin(0).am_send(-1, &iov, 1), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(job.plugin(0).am_send(0, &iov, 1), CCS_PLUGIN_ERR_INVALID) << "itself";
    EXPECT_EQ(job.plugin(0).am_send(1, nullptr, 1), CCS_PLUGIN_ERR_INVALID);
    EXPECT_EQ(job.plugin(0).peer_state(1)->state, link::none);
    ASSERT_EQ(job.send(0, 1, p), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1; }));
}

TEST(VerbsAm, AHandlerThatProgressesKeepsTheOrder) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    ASSERT_EQ(job.send(0, 1, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1; }));
    int depth = 0;
    job.core(1).on_deliver = [&](int32_t, const uint8_t *, size_t) {
        if (depth++ < 3) job.plugin(1).progress();  // as a handler waiting for an RMA would
        --depth;
    };
    for (uint32_t i = 1; i < 30; ++i) ASSERT_EQ(job.send(0, 1, packet(i, 8), 1, 1), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 30; }));
    for (uint32_t i = 0; i < 30; ++i) EXPECT_EQ(job.core(1).delivered[i].second, packet(i, 8)) << i;
}

TEST(VerbsAm, ADeadPeerIsReportedOnceAndTheOthersGoOn) {
    soft_job job(3);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    job.fabric.retry_time = std::chrono::milliseconds(30);
    ASSERT_EQ(job.send(0, 1, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_EQ(job.send(0, 2, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1 && job.core(2).delivered.size() == 1; }));
    job.host(1).dead = true;
    ASSERT_EQ(job.send(0, 1, packet(1, 8), 1, 1), CCS_PLUGIN_OK);  // posted; the adapter retries
    ASSERT_TRUE(job.until([&] { return !job.core(0).failed.empty(); }, 5, 1));
    ASSERT_EQ(job.core(0).failed.size(), 1u);
    EXPECT_EQ(job.core(0).failed[0].first, 1);
    EXPECT_NE(job.core(0).failed[0].second.find("retries exhausted"), std::string::npos)
        << job.core(0).failed[0].second;
    EXPECT_EQ(job.send(0, 1, packet(2, 8), 1, 1), CCS_PLUGIN_ERR_PEER_FAILED);
    job.until([] { return false; }, 0.05, 1);
    EXPECT_EQ(job.core(0).failed.size(), 1u) << "reported once";
    ASSERT_EQ(job.send(0, 2, packet(1, 8), 1, 1), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(2).delivered.size() == 2; }, 5, 1));
    EXPECT_EQ(job.core(2).delivered[1].second, packet(1, 8));
}

// Everything in flight to a dead peer completes flushed, signalled or not:
// the completion queue holds it all and the room it took comes back.
TEST(VerbsAm, WhatWasInFlightToADeadPeerFreesItsRoomForTheOthers) {
    soft_device_spec small;
    small.max_cqe = 1024;  // room for 256 send requests in flight in all
    soft_job job(3, {{"CREDITS", "300"}, {"SEND_QUEUE", "512"}}, {small});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    job.fabric.retry_time = std::chrono::milliseconds(30);
    ASSERT_EQ(job.send(0, 1, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_EQ(job.send(0, 2, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1 && job.core(2).delivered.size() == 1; }));
    job.until([] { return false; }, 0.02);
    job.host(1).dead = true;
    const std::vector<uint8_t> p = packet(1, 8);
    const ccs_plugin_iov_v1_t iov{p.data(), p.size()};
    int sent = 0;
    while (job.plugin(0).am_send(1, &iov, 1) == CCS_PLUGIN_OK) ++sent;
    EXPECT_GE(sent, 250) << "the whole room went to rank 1";
    EXPECT_EQ(job.plugin(0).am_send(2, &iov, 1), CCS_PLUGIN_AGAIN) << "none left for rank 2";
    ASSERT_TRUE(job.until([&] { return !job.core(0).failed.empty(); }, 5, 1));
    for (uint32_t i = 1; i <= 600; ++i) ASSERT_EQ(job.send(0, 2, packet(i, 8), 5, 1), CCS_PLUGIN_OK) << i;
    ASSERT_TRUE(job.until([&] { return job.core(2).delivered.size() == 601; }, 5, 1));
    EXPECT_FALSE(job.fabric.cq_overflow);
}

TEST(VerbsAm, AnIdlePeerThatDiesIsNoticedByTheKeepalive) {
    soft_job job(2, {{"KEEPALIVE_MS", "20"}});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    job.fabric.retry_time = std::chrono::milliseconds(30);
    ASSERT_EQ(job.send(0, 1, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1; }));
    job.host(1).dead = true;
    ASSERT_TRUE(job.until([&] { return !job.core(0).failed.empty(); }, 5, 1)) << "nothing was sent to it";
    EXPECT_EQ(job.core(0).failed[0].first, 1);
}

TEST(VerbsAm, APeerThatNeverAnswersFailsAfterTheConnectTimeout) {
    soft_job job(2, {{"CONNECT_TIMEOUT_MS", "100"}});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    job.host(1).dead = true;
    EXPECT_EQ(job.send(0, 1, packet(0, 8), 5, 1), CCS_PLUGIN_ERR_PEER_FAILED);
    ASSERT_TRUE(job.until([&] { return !job.core(0).failed.empty(); }, 5, 1));
    EXPECT_NE(job.core(0).failed[0].second.find("did not answer the connection request within 100 ms"),
              std::string::npos)
        << job.core(0).failed[0].second;
}

TEST(VerbsAm, TheWakeupDescriptorBecomesReadableWhenAPacketArrives) {
    soft_job job(2);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    ASSERT_EQ(job.send(0, 1, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1 && job.core(0).completed.empty(); }));
    job.until([] { return false; }, 0.02);  // the connection's last messages settle
    const int fd = job.plugin(1).wakeup_fd();
    ASSERT_GE(fd, 0);
    ASSERT_EQ(job.plugin(1).wakeup_arm(), CCS_PLUGIN_OK);
    EXPECT_FALSE(readable(fd));
    ASSERT_EQ(job.send(0, 1, packet(1, 8), 1, 1), CCS_PLUGIN_OK);
    EXPECT_TRUE(readable(fd));
    job.plugin(1).progress();
    EXPECT_EQ(job.core(1).delivered.size(), 2u);
    EXPECT_FALSE(readable(fd)) << "progress consumed the event";
    ASSERT_EQ(job.send(0, 1, packet(2, 8), 1, 1), CCS_PLUGIN_OK);
    EXPECT_EQ(job.plugin(1).wakeup_arm(), CCS_PLUGIN_AGAIN) << "something is there already";
}

TEST(VerbsAm, AFullSendQueueSaysAgainUntilCompletionsArePolled) {
    soft_job job(2, {{"SEND_QUEUE", "16"}, {"CREDITS", "64"}});
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    ASSERT_EQ(job.send(0, 1, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1; }));
    job.until([] { return false; }, 0.02);
    const std::vector<uint8_t> p = packet(1, 8);
    const ccs_plugin_iov_v1_t iov{p.data(), p.size()};
    int sent = 0;
    while (job.plugin(0).am_send(1, &iov, 1) == CCS_PLUGIN_OK) ++sent;
    // The queue holds 16 requests; the first packet's may still occupy one,
    // until a later signalled completion is polled.
    EXPECT_GE(sent, 15);
    EXPECT_LE(sent, 16);
    EXPECT_EQ(job.plugin(0).am_send(1, &iov, 1), CCS_PLUGIN_AGAIN);
    job.plugin(0).progress();
    EXPECT_EQ(job.plugin(0).am_send(1, &iov, 1), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == static_cast<size_t>(sent) + 2; }));
}

TEST(VerbsAm, TeardownReleasesEveryAdapterObject) {
    soft_job job(3);
    ASSERT_TRUE(job.ready()) << job.why_not_ready();
    ASSERT_EQ(job.send(0, 1, packet(0, 8)), CCS_PLUGIN_OK);
    ASSERT_EQ(job.send(2, 0, packet(0, 3000)), CCS_PLUGIN_OK);
    ASSERT_TRUE(job.until([&] { return job.core(1).delivered.size() == 1 && job.core(0).delivered.size() == 1; }));
    for (int r = 0; r < 3; ++r) {
        job.finalize(r);
        EXPECT_EQ(job.host(r).live_objects(), 0u) << "rank " << r;
    }
}

TEST(VerbsAm, WithoutADeviceQueryAndInitSayWhy) {
    soft_fabric fabric;
    soft_host &host = fabric.add_host({});
    recorded_core core;
    const ccs_plugin_services_v1_t services = core.services();
    const plugin::core_services cs(services, "verbs");
    config cfg;
    ccs_plugin_attr_v1_t attr{};
    attr.struct_size = sizeof attr;
    EXPECT_EQ(verbs_plugin::query_on(host, cs, cfg, attr), CCS_PLUGIN_ERR_NO_DEVICE);
    EXPECT_TRUE(mentions(core.log, "no RDMA device")) << (core.log.empty() ? "" : core.log.back());
    const uint32_t node = 0;
    const ccs_plugin_job_v1_t job{sizeof(ccs_plugin_job_v1_t), 0, 1, "x", &node, 1};
    verbs_plugin p(services, job, cfg, host);
    EXPECT_EQ(p.init(), CCS_PLUGIN_ERR_NO_DEVICE);
}

TEST(VerbsAm, QueryDescribesThePort) {
    soft_fabric fabric;
    soft_device_spec roce;
    roce.name = "roce7";
    roce.ethernet = true;
    roce.atomics = false;
    soft_host &host = fabric.add_host({roce});
    recorded_core core;
    const ccs_plugin_services_v1_t services = core.services();
    config cfg;
    ccs_plugin_attr_v1_t attr{};
    attr.struct_size = sizeof attr;
    ASSERT_EQ(verbs_plugin::query_on(host, plugin::core_services(services, "verbs"), cfg, attr), CCS_PLUGIN_OK);
    EXPECT_EQ(attr.scope, static_cast<uint32_t>(CCS_PLUGIN_SCOPE_NETWORK));
    EXPECT_TRUE(attr.caps & CCS_PLUGIN_CAP_AM_ORDERED);
    EXPECT_FALSE(attr.caps & CCS_PLUGIN_CAP_ATOMIC);
    EXPECT_EQ(attr.am_max_packet, 8192u);
    EXPECT_NE(std::string(attr.description).find("roce7 port 1 (RoCE v2, MTU 4096)"), std::string::npos)
        << attr.description;
    EXPECT_EQ(host.live_objects(), 0u);
}

TEST(VerbsAm, BadParametersAreRefusedWithTheVariableNamed) {
    for (const auto &[name, value] : std::vector<std::pair<std::string, std::string>>{
             {"CREDITS", "0"}, {"EAGER_SIZE", "512"}, {"GID_INDEX", "x"}, {"DEVICE", ":3"}, {"RETRY_COUNT", "8"}}) {
        soft_job job(1, {{name, value}});
        EXPECT_FALSE(job.ready()) << name;
        EXPECT_NE(job.why_not_ready().find(name), std::string::npos) << job.why_not_ready();
    }
}

}  // namespace
}  // namespace ccs::verbs::testing
