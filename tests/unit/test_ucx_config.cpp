// The UCX plugin's reading of UCX_TLS: which configurations get UCX's own
// put/get (transports that move RMA without the target's CPU) and which
// leave RMA to the core's active messages (TCP, which UCX 1.13 emulates).
#include "ucx_plugin.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

ccs::ucx::transports with_tls(const char *tls) {
    if (tls) setenv("UCX_TLS", tls, 1);
    else unsetenv("UCX_TLS");
    ucp_config_t *config = nullptr;
    EXPECT_EQ(ucp_config_read(nullptr, nullptr, &config), UCS_OK);
    const ccs::ucx::transports t = ccs::ucx::configured_transports(config);
    ucp_config_release(config);
    unsetenv("UCX_TLS");
    return t;
}

TEST(UcxConfig, TcpAloneLeavesRmaToTheCore) {
    const auto t = with_tls("tcp");
    EXPECT_EQ(t.names, "tcp");
    EXPECT_FALSE(t.native_rma);
    EXPECT_FALSE(with_tls("tcp,self").native_rma);
    EXPECT_FALSE(with_tls("ud,tcp").native_rma);
}

TEST(UcxConfig, SharedMemoryAndRdmaTransportsDoRmaNatively) {
    EXPECT_TRUE(with_tls("posix,self,cma").native_rma);
    EXPECT_TRUE(with_tls("tcp,rc").native_rma);
    EXPECT_TRUE(with_tls("sm").native_rma);
}

TEST(UcxConfig, AllAndExclusionsAreDecidedPerEndpoint) {
    EXPECT_TRUE(with_tls(nullptr).native_rma);  // unset: all
    EXPECT_TRUE(with_tls("^tcp").native_rma);
}

}  // namespace
