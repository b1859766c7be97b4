#include "harness.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>

namespace conformance {

int rank() {
    int r = -1;
    ccs_rank(&r);
    return r;
}

int size() {
    int s = 0;
    ccs_size(&s);
    return s;
}

int team_rank(ccs_team_t t) {
    int r = 0;
    EXPECT_EQ(ccs_team_rank(t, &r), CCS_OK) << ccs_last_error();
    return r;
}

int team_size(ccs_team_t t) {
    int s = 0;
    EXPECT_EQ(ccs_team_size(t, &s), CCS_OK) << ccs_last_error();
    return s;
}

uint64_t stat(const char *name) {
    uint64_t v = 0;
    EXPECT_EQ(ccs_stats_get(name, &v), CCS_OK) << name;
    return v;
}

ccs_peer_attr_t peer_attr(int peer) {
    ccs_peer_attr_t attr{};
    attr.struct_size = sizeof attr;
    EXPECT_EQ(ccs_peer_query(peer, &attr), CCS_OK) << peer << ": " << ccs_last_error();
    return attr;
}

uint32_t peer_flags(int peer) { return peer_attr(peer).flags; }

std::string transport_to(int peer) { return peer_attr(peer).transport; }

scoped_context::scoped_context(const char *name, std::vector<ccs_am_handler_entry_t> handlers, uint64_t flags) {
    const ccs_context_params_t params{sizeof(ccs_context_params_t), flags, name, handlers.data(), handlers.size()};
    const ccs_status_t st = ccs_context_create(&params, &ctx_);
    EXPECT_EQ(st, CCS_OK) << ccs_last_error();
}

scoped_context::~scoped_context() {
    if (ctx_.id) {
        EXPECT_EQ(ccs_context_destroy(ctx_), CCS_OK) << ccs_last_error();
    }
}

static uint8_t pattern_byte(uint64_t a, uint64_t b, size_t i) {
    return static_cast<uint8_t>((a * 131 + b * 31 + i * 7 + (i >> 8)) & 0xFF);
}

void fill_pattern(void *data, size_t length, uint64_t a, uint64_t b) {
    auto *p = static_cast<uint8_t *>(data);
    for (size_t i = 0; i < length; ++i) p[i] = pattern_byte(a, b, i);
}

void fill_pattern(std::vector<uint8_t> &buf, uint64_t a, uint64_t b) { fill_pattern(buf.data(), buf.size(), a, b); }

bool check_pattern(const void *data, size_t length, uint64_t a, uint64_t b) {
    const auto *p = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < length; ++i)
        if (p[i] != pattern_byte(a, b, i)) return false;
    return true;
}

size_t resident_bytes() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

}  // namespace conformance
