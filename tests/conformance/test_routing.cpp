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
