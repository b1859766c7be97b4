// Attributes and configuration of the shm plugin.
#include "shm_state.hpp"

#include <cstdlib>

namespace ccs::shm {
namespace {

bool parse_bytes(const char *text, size_t &out) {
    if (!text || !*text) return false;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    unsigned long long mult = 1;
    if (*end == 'k' || *end == 'K') mult = 1ull << 10, ++end;
    else if (*end == 'm' || *end == 'M') mult = 1ull << 20, ++end;
    if (*end != '\0' || text[0] == '-' || v > (1ull << 40) / mult) return false;
    out = static_cast<size_t>(v * mult);
    return true;
}

}  // namespace

bool read_config(const ccs_plugin_services_v1_t &services, config &out, std::string &reason) {
    const char *ring = services.param_get(services.core, "RING_SIZE", "256k",
                                          "bytes per ring (one ring per ordered pair of local processes); power of two");
    if (!parse_bytes(ring, out.ring_capacity) || out.ring_capacity < (16u << 10) ||
        out.ring_capacity > (1u << 30) || (out.ring_capacity & (out.ring_capacity - 1)) != 0) {
        reason = std::string("CCS_SHM_RING_SIZE='") + ring + "' must be a power of two from 16k to 1G";
        return false;
    }
    const char *packet = services.param_get(services.core, "MAX_PACKET", "32k",
                                            "largest AM packet; bigger payloads are fragmented by the core");
    if (!parse_bytes(packet, out.max_packet) || out.max_packet < 256 ||
        out.max_packet > ring_max_record(out.ring_capacity)) {
        reason = std::string("CCS_SHM_MAX_PACKET='") + packet +
                 "' must be from 256 bytes to a quarter of CCS_SHM_RING_SIZE minus 16";
        return false;
    }
    const char *shuffle = services.param_get(services.core, "TEST_SHUFFLE", "0",
                                             "1: test mode, deliver out of order to exercise the core's reordering");
    out.shuffle = std::string(shuffle) == "1";
    const char *deny = services.param_get(services.core, "TEST_DENY_CMA", "0",
                                          "1: test mode, act as if the kernel refused cross-memory attach");
    out.deny_cma = std::string(deny) == "1";
    const char *refuse = services.param_get(services.core, "TEST_REFUSE_MARKED", "0",
                                            "1: test mode, refuse every packet ending in \"REFUSED!\" with a "
                                            "transport error");
    out.refuse_marked = std::string(refuse) == "1";
    const std::string bulk = services.param_get(services.core, "BULK_COPY", "auto",
                                                "copies of 1 MiB and more to and from mapped peer memory: auto "
                                                "(time both ways on the first ones), memcpy or movsb");
    if (bulk == "auto") out.bulk = bulk_copy::method::trial;
    else if (bulk == "memcpy") out.bulk = bulk_copy::method::memcpy;
    else if (bulk == "movsb") out.bulk = bulk_copy::method::movsb;
    else {
        reason = "CCS_SHM_BULK_COPY='" + bulk + "' must be auto, memcpy or movsb";
        return false;
    }
    return true;
}

}  // namespace ccs::shm
