// Per-peer routing: every peer is reached through exactly one plugin and,
// when the job names what it expects (CCS_TEST_ROUTES="shm:1,ucx:2": peers
// per plugin as seen from every process), through those. A job split into
// pretend nodes (CCS_NODE_ID per rank) checks that same-node peers go
// through the node plugin and the others through the network plugin.
#include "harness.hpp"
#include "printed.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

using namespace conformance;

namespace {

// route.<plugin> statistics of this process, from ccs_stats_print.
std::map<std::string, uint64_t> routes() {
    std::map<std::string, uint64_t> out;
    std::istringstream lines(printed(ccs_stats_print));
    std::string word, name;
    int r = 0;
    uint64_t value = 0;
    while (lines >> word >> r >> name >> value)
        if (name.rfind("route.", 0) == 0) out[name.substr(6)] = value;
    return out;
}

}  // namespace

TEST(Routing, EveryPeerHasOneRouteAndTheExpectedOnes) {
    const auto have = routes();
    uint64_t total = 0;
    for (const auto &[plugin, peers] : have) total += peers;
    EXPECT_EQ(total, static_cast<uint64_t>(size() - 1)) << "peers routed, summed over plugins";
    if (const char *expected = std::getenv("CCS_TEST_ROUTES")) {
        std::istringstream list(expected);
        for (std::string item; std::getline(list, item, ',');) {
            const auto colon = item.find(':');
            ASSERT_NE(colon, std::string::npos) << "CCS_TEST_ROUTES item '" << item << "' is not plugin:peers";
            const std::string plugin = item.substr(0, colon);
            const uint64_t peers = std::strtoull(item.c_str() + colon + 1, nullptr, 10);
            const auto it = have.find(plugin);
            EXPECT_EQ(it == have.end() ? 0 : it->second, peers) << "peers routed through '" << plugin << "'";
        }
    }
    CCS_EXPECT_OK(ccs_barrier());
}

// ccs_peer_query agrees with the route statistics and the job's settings,
// and refuses bad input without touching the caller's struct.
TEST(Routing, PeerQueryAgreesWithRoutesAndRefusesBadInput) {
    const auto have = routes();
    std::map<std::string, uint64_t> counted;
    for (int peer = 0; peer < size(); ++peer) {
        const ccs_peer_attr_t a = peer_attr(peer);
        EXPECT_EQ(a.flags & CCS_PEER_FAILED, 0u) << peer;
        if (peer == rank()) {
            EXPECT_STREQ(a.transport, "self");
            EXPECT_NE(a.flags & CCS_PEER_MAPS_MEMORY, 0u);
            continue;
        }
        ++counted[a.transport];
        EXPECT_GT(a.am_max_packet, 0u) << peer;
        // A transport that maps a peer's memory is on its node.
        if (a.flags & CCS_PEER_MAPS_MEMORY) {
            EXPECT_NE(a.flags & CCS_PEER_SAME_NODE, 0u) << peer;
        }
        if (const char *path = std::getenv("CCS_TEST_RMA_PATH")) {
            const bool native = std::string(path) == "native";
            EXPECT_EQ((a.flags & CCS_PEER_PUT_NATIVE) != 0, native) << peer << " " << a.transport;
            EXPECT_EQ((a.flags & CCS_PEER_GET_NATIVE) != 0, native) << peer << " " << a.transport;
        }
    }
    for (const auto &[plugin, peers] : have) EXPECT_EQ(counted[plugin], peers) << plugin;

    ccs_peer_attr_t a{};
    a.struct_size = sizeof a;
    a.flags = 0xabcd;
    EXPECT_EQ(ccs_peer_query(size(), &a), CCS_ERR_INVALID_RANK);
    EXPECT_NE(std::string(ccs_last_error()).find(std::to_string(size())), std::string::npos) << ccs_last_error();
    EXPECT_EQ(ccs_peer_query(-1, &a), CCS_ERR_INVALID_RANK);
    EXPECT_EQ(a.flags, 0xabcdu);
    EXPECT_EQ(ccs_peer_query(0, nullptr), CCS_ERR_INVALID_ARG);
    a.struct_size = sizeof a - 1;
    EXPECT_EQ(ccs_peer_query(0, &a), CCS_ERR_INVALID_ARG);
    EXPECT_NE(std::string(ccs_last_error()).find("struct_size"), std::string::npos) << ccs_last_error();
    EXPECT_EQ(a.flags, 0xabcdu);
    CCS_EXPECT_OK(ccs_barrier());
}
