// The verbs plugin's parts on their own: wire formats, credit accounting,
// completion statuses, device and port choice, queue pair states.
#include "soft_fabric.hpp"
#include "verbs_credits.hpp"
#include "verbs_device.hpp"
#include "verbs_qp.hpp"
#include "verbs_status.hpp"
#include "verbs_wire.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace ccs::verbs {
namespace {

wire_address sample_address() {
    wire_address a;
    a.ethernet = true;
    a.mtu = IBV_MTU_2048;
    a.port = 2;
    a.lid = 0;
    a.gid.raw[15] = 7;
    a.connect_qpn = 0x1234;
    a.pid = 4321;
    a.credit_base = 0x7f0000001000;
    a.credit_rkey = 99;
    return a;
}

TEST(VerbsWire, AddressRoundTrips) {
    uint8_t buf[wire_address_size];
    ASSERT_EQ(encode_address(sample_address(), buf, sizeof buf), wire_address_size);
    EXPECT_EQ(encode_address(sample_address(), buf, sizeof buf - 1), 0u);
    wire_address back;
    std::string why;
    ASSERT_TRUE(decode_address(buf, sizeof buf, back, why)) << why;
    EXPECT_TRUE(back.ethernet);
    EXPECT_EQ(back.mtu, IBV_MTU_2048);
    EXPECT_EQ(back.port, 2);
    EXPECT_EQ(back.gid.raw[15], 7);
    EXPECT_EQ(back.connect_qpn, 0x1234u);
    EXPECT_EQ(back.pid, 4321);
    EXPECT_EQ(back.credit_base, 0x7f0000001000u);
    EXPECT_EQ(back.credit_rkey, 99u);
}

TEST(VerbsWire, EveryBadAddressFieldIsRefusedWithItsReason) {
    struct change {
        size_t offset;
        uint8_t value;
        const char *reason;
    };
    const change changes[] = {{0, 0, "magic"},           {4, 9, "version"},   {6, 4, "flags"},
                              {7, 0, "MTU"},             {7, 6, "MTU"},       {8, 0, "port"},
                              {28, 0, "queue pair"},     {36, 3, "aligned"}};
    for (const change &c : changes) {
        uint8_t buf[wire_address_size];
        encode_address(sample_address(), buf, sizeof buf);
        if (c.offset == 28) std::memset(buf + 28, 0, 4);
        else buf[c.offset] = c.value;
        wire_address out;
        std::string why;
        EXPECT_FALSE(decode_address(buf, sizeof buf, out, why)) << c.reason;
        EXPECT_NE(why.find(c.reason), std::string::npos) << why;
    }
    uint8_t buf[wire_address_size + 1] = {};
    wire_address out;
    std::string why;
    EXPECT_FALSE(decode_address(buf, sizeof buf, out, why));
    EXPECT_NE(why.find("expected 52"), std::string::npos) << why;
    wire_address ib = sample_address();
    ib.ethernet = false;
    ib.lid = 0;
    encode_address(ib, buf, sizeof buf);
    EXPECT_FALSE(decode_address(buf, wire_address_size, out, why));
    EXPECT_NE(why.find("LID"), std::string::npos) << why;
}

TEST(VerbsWire, ConnectMessagesRoundTripAndAreCheckedAgainstTheJob) {
    connect_message m;
    m.type = connect_type::reply;
    m.from = 3;
    m.to = 1;
    m.qpn = 0xabcdef;
    m.psn = 0x123456;
    m.peer_qpn = 0x77;
    m.credits = 32;
    uint8_t buf[connect_message_size];
    ASSERT_EQ(encode_connect(m, buf, sizeof buf), connect_message_size);
    connect_message back;
    std::string why;
    ASSERT_TRUE(decode_connect(buf, sizeof buf, 4, 1, back, why)) << why;
    EXPECT_EQ(back.type, connect_type::reply);
    EXPECT_EQ(back.from, 3);
    EXPECT_EQ(back.qpn, 0xabcdefu);
    EXPECT_EQ(back.peer_qpn, 0x77u);
    EXPECT_EQ(back.credits, 32u);
    EXPECT_FALSE(decode_connect(buf, sizeof buf, 3, 1, back, why)) << "rank 3 is not in a job of 3";
    EXPECT_FALSE(decode_connect(buf, sizeof buf, 4, 2, back, why)) << "meant for rank 1";
    EXPECT_FALSE(decode_connect(buf, sizeof buf - 1, 4, 1, back, why));
    const auto refused = [&](connect_message bad) {
        encode_connect(bad, buf, sizeof buf);
        return !decode_connect(buf, sizeof buf, 4, 1, back, why);
    };
    connect_message bad = m;
    bad.qpn = 1u << 24;
    EXPECT_TRUE(refused(bad));
    bad = m;
    bad.peer_qpn = 0;
    EXPECT_TRUE(refused(bad)) << "a reply names the queue pair it connected to";
    bad = m;
    bad.credits = 0;
    EXPECT_TRUE(refused(bad));
    bad = m;
    bad.from = 1;
    EXPECT_TRUE(refused(bad)) << "from itself";
    bad = m;
    bad.type = static_cast<connect_type>(9);
    EXPECT_TRUE(refused(bad));
    bad = m;
    bad.type = connect_type::request;
    bad.peer_qpn = 0;
    EXPECT_FALSE(refused(bad)) << "a request knows no queue pair yet";
}

TEST(VerbsWire, KeysRoundTripAndForgedOnesAreRefused) {
    uint8_t buf[wire_key_size];
    ASSERT_EQ(encode_key({0x1000, 4096, 55}, buf, sizeof buf), wire_key_size);
    wire_key k;
    std::string why;
    ASSERT_TRUE(decode_key(buf, sizeof buf, k, why)) << why;
    EXPECT_EQ(k.base, 0x1000u);
    EXPECT_EQ(k.length, 4096u);
    EXPECT_EQ(k.rkey, 55u);
    EXPECT_FALSE(decode_key(buf, sizeof buf - 1, k, why));
    buf[0] ^= 1;
    EXPECT_FALSE(decode_key(buf, sizeof buf, k, why));
    encode_key({~uint64_t{0} - 10, 4096, 55}, buf, sizeof buf);
    EXPECT_FALSE(decode_key(buf, sizeof buf, k, why)) << "wraps around";
    encode_key({0x1000, 0, 55}, buf, sizeof buf);
    EXPECT_FALSE(decode_key(buf, sizeof buf, k, why)) << "empty";
}

TEST(VerbsCredits, ASenderStopsAtItsGrantAndGoesOnWhenBuffersAreFreed) {
    send_credits out;
    out.start(4);
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(out.take());
    EXPECT_FALSE(out.take()) << "starved: the receiver has no buffer left for us";
    EXPECT_EQ(out.sent(), 4u);
    out.freed_total(2);
    EXPECT_EQ(out.available(), 2u);
    out.freed_low_bits(1);  // stale: less than known
    EXPECT_EQ(out.available(), 2u);
    out.freed_total(9);     // more than was ever sent: a lie, ignored
    EXPECT_EQ(out.available(), 2u);
    out.freed_low_bits(4);
    EXPECT_EQ(out.available(), 4u);
}

TEST(VerbsCredits, ImmediateDataWidensAcross32Bits) {
    const uint64_t edge = uint64_t{1} << 32;
    EXPECT_EQ(widen(edge - 2, 1), edge + 1) << "past the 32-bit edge";
    EXPECT_EQ(widen(edge - 2, static_cast<uint32_t>(edge - 1)), edge - 1);
    EXPECT_EQ(widen(edge + 5, 5), edge + 5);
    EXPECT_EQ(widen(3 * edge + 7, 9), 3 * edge + 9);
    // A stale report widens far beyond anything sent, and is ignored.
    send_credits out;
    out.start(4);
    ASSERT_TRUE(out.take());
    ASSERT_TRUE(out.take());
    out.freed_low_bits(2);
    EXPECT_EQ(out.available(), 4u);
    out.freed_low_bits(1);
    EXPECT_EQ(out.available(), 4u);
}

TEST(VerbsCredits, AReceiverCountsWhatItHasNotToldYet) {
    receive_credits in;
    in.start();
    for (int i = 0; i < 5; ++i) in.freed_one();
    EXPECT_EQ(in.untold(), 5u);
    in.told(3);
    EXPECT_EQ(in.untold(), 2u);
    in.told(1);  // an older write completing late changes nothing
    EXPECT_EQ(in.untold(), 2u);
    EXPECT_EQ(in.carry(), 5u);
    EXPECT_EQ(in.untold(), 0u);
}

TEST(VerbsStatus, EveryCompletionStatusHasAMeaning) {
    for (int s = IBV_WC_SUCCESS; s <= IBV_WC_TM_RNDV_INCOMPLETE; ++s) {
        const completion_meaning m = meaning_of(static_cast<ibv_wc_status>(s));
        EXPECT_STRNE(m.text, "unknown completion status") << s;
        EXPECT_EQ(m.status == CCS_PLUGIN_OK, s == IBV_WC_SUCCESS) << s;
    }
    EXPECT_EQ(meaning_of(IBV_WC_RETRY_EXC_ERR).fate, connection_fate::peer_lost);
    EXPECT_EQ(meaning_of(IBV_WC_RETRY_EXC_ERR).status, CCS_PLUGIN_ERR_PEER_FAILED);
    EXPECT_EQ(meaning_of(IBV_WC_RNR_RETRY_EXC_ERR).fate, connection_fate::peer_lost);
    EXPECT_EQ(meaning_of(IBV_WC_WR_FLUSH_ERR).fate, connection_fate::flushed);
    EXPECT_EQ(meaning_of(IBV_WC_REM_ACCESS_ERR).status, CCS_PLUGIN_ERR_ACCESS);
    EXPECT_EQ(meaning_of(IBV_WC_REM_ACCESS_ERR).fate, connection_fate::broken);
    EXPECT_EQ(meaning_of(static_cast<ibv_wc_status>(999)).status, CCS_PLUGIN_ERR_TRANSPORT);
}

TEST(VerbsDevice, RequestsParseOrSayWhatIsWrong) {
    device_request r;
    std::string why;
    ASSERT_TRUE(parse_device_request("", r, why));
    EXPECT_TRUE(r.device.empty());
    ASSERT_TRUE(parse_device_request("mlx5_0", r, why));
    EXPECT_EQ(r.device, "mlx5_0");
    EXPECT_EQ(r.port, 0);
    ASSERT_TRUE(parse_device_request("mlx5_1:2", r, why));
    EXPECT_EQ(r.device, "mlx5_1");
    EXPECT_EQ(r.port, 2);
    for (const char *bad : {":1", "mlx5_0:", "mlx5_0:0", "mlx5_0:x", "mlx5_0:256"}) {
        EXPECT_FALSE(parse_device_request(bad, r, why)) << bad;
        EXPECT_NE(why.find("CCS_VERBS_DEVICE"), std::string::npos) << why;
    }
}

TEST(VerbsDevice, TheNamedDeviceOrTheNearestIsChosen) {
    const std::vector<device_entry> devices = {{"a", {0, 1}}, {"b", {2, 3}}, {"c", {}}};
    std::string why;
    device_request any;
    EXPECT_EQ(choose_device(devices, any, {2, 3}, why), 1);
    EXPECT_EQ(choose_device(devices, any, {0}, why), 0);
    EXPECT_EQ(choose_device(devices, any, {7}, why), 0) << "no overlap: the first";
    device_request named;
    named.device = "c";
    EXPECT_EQ(choose_device(devices, named, {0}, why), 2);
    named.device = "z";
    EXPECT_EQ(choose_device(devices, named, {0}, why), -1);
    EXPECT_NE(why.find("not here; devices: a b c"), std::string::npos) << why;
    why = "listing failed: because";
    EXPECT_EQ(choose_device({}, any, {0}, why), -1);
    EXPECT_EQ(why, "listing failed: because") << "the listing's reason stays";
}

using testing::soft_device_spec;
using testing::soft_fabric;

ccs_plugin_status_t read(soft_device_spec spec, const device_request &request, port_facts &facts,
                         std::string &why) {
    soft_fabric fabric;
    testing::soft_host &host = fabric.add_host({spec});
    ibv_context *c = host.open_device(spec.name);
    const ccs_plugin_status_t st = read_port(host, c, spec.name, request, facts, why);
    host.close_device(c);
    return st;
}

TEST(VerbsDevice, PortsAndGidsAreChosenOrRefusedWithTheirReason) {
    port_facts f;
    std::string why;
    soft_device_spec ib;
    ASSERT_EQ(read(ib, {}, f, why), CCS_PLUGIN_OK) << why;
    EXPECT_FALSE(f.ethernet);
    EXPECT_NE(f.lid, 0);
    EXPECT_EQ(f.gid_index, -1) << "InfiniBand routes by LID unless a GID index is asked for";
    EXPECT_TRUE(f.atomics);

    soft_device_spec roce;
    roce.ethernet = true;
    ASSERT_EQ(read(roce, {}, f, why), CCS_PLUGIN_OK) << why;
    EXPECT_TRUE(f.ethernet);
    EXPECT_EQ(f.gid_index, 1);
    EXPECT_TRUE(f.roce_v2) << "RoCE v2 preferred: it routes";
    roce.roce_v2 = false;
    ASSERT_EQ(read(roce, {}, f, why), CCS_PLUGIN_OK) << why;
    EXPECT_EQ(f.gid_index, 0) << "without v2, the first v1 entry";
    roce.gids = false;
    EXPECT_EQ(read(roce, {}, f, why), CCS_PLUGIN_ERR_NO_DEVICE);
    EXPECT_NE(why.find("has no GID"), std::string::npos) << why;

    device_request gid5;
    gid5.gid_index = 5;
    EXPECT_EQ(read(ib, gid5, f, why), CCS_PLUGIN_ERR_NO_DEVICE);
    EXPECT_NE(why.find("CCS_VERBS_GID_INDEX=5"), std::string::npos) << why;

    soft_device_spec down;
    down.state = IBV_PORT_DOWN;
    EXPECT_EQ(read(down, {}, f, why), CCS_PLUGIN_ERR_NO_DEVICE);
    EXPECT_NE(why.find("no ACTIVE port"), std::string::npos) << why;
    device_request port1;
    port1.port = 1;
    EXPECT_EQ(read(down, port1, f, why), CCS_PLUGIN_ERR_NO_DEVICE);
    EXPECT_NE(why.find("port 1 is DOWN"), std::string::npos) << why;
    device_request port2;
    port2.port = 2;
    EXPECT_EQ(read(ib, port2, f, why), CCS_PLUGIN_ERR_NO_DEVICE);
    EXPECT_NE(why.find("has no port 2"), std::string::npos) << why;
}

TEST(VerbsQueuePair, StatesGoInOrderAndAFailedStepSaysWhereItStopped) {
    soft_fabric fabric;
    testing::soft_host &host = fabric.add_host();
    ibv_context *c = host.open_device("soft0");
    port_facts port;
    std::string why;
    ASSERT_EQ(read_port(host, c, "soft0", {}, port, why), CCS_PLUGIN_OK);
    ibv_pd *pd = host.alloc_pd(c);
    ibv_cq *cq = host.create_cq(c, 16, nullptr);
    ibv_qp_init_attr qa{};
    qa.send_cq = qa.recv_cq = cq;
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
    qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
    rc_queue_pair qp(host, host.create_qp(pd, qa));
    const rc_settings settings;
    const rc_remote remote{qp.qp()->qp_num, 0, port.lid, port.gid, false, IBV_MTU_1024};
    EXPECT_EQ(qp.to_ready_to_send(0, settings, why), CCS_PLUGIN_ERR_INVALID);
    EXPECT_NE(why.find("cannot go to RTS from RESET"), std::string::npos) << why;
    host.fail_next_modify = EPERM;
    EXPECT_EQ(qp.to_init(port, why), CCS_PLUGIN_ERR_TRANSPORT);
    EXPECT_NE(why.find("RESET to INIT) failed: Operation not permitted; it stays in RESET"), std::string::npos)
        << why;
    EXPECT_EQ(qp.state(), qp_state::reset);
    ASSERT_EQ(qp.to_init(port, why), CCS_PLUGIN_OK) << why;
    rc_remote roce = remote;
    roce.ethernet = true;
    EXPECT_EQ(qp.to_ready_to_receive(port, roce, settings, why), CCS_PLUGIN_ERR_TRANSPORT);
    EXPECT_NE(why.find("Ethernet"), std::string::npos) << why;
    ASSERT_EQ(qp.to_ready_to_receive(port, remote, settings, why), CCS_PLUGIN_OK) << why;
    ASSERT_EQ(qp.to_ready_to_send(0, settings, why), CCS_PLUGIN_OK) << why;
    EXPECT_EQ(qp.state(), qp_state::ready_to_send);
    ASSERT_EQ(qp.to_error(why), CCS_PLUGIN_OK);
    EXPECT_EQ(qp.state(), qp_state::error);
    EXPECT_EQ(qp.to_init(port, why), CCS_PLUGIN_ERR_INVALID);
    host.destroy_qp(qp.qp());
    host.destroy_cq(cq);
    host.dealloc_pd(pd);
    host.close_device(c);
    EXPECT_EQ(host.live_objects(), 0u);
}

}  // namespace
}  // namespace ccs::verbs
