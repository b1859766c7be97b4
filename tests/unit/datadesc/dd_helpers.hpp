// Helpers for datadesc tests: owning handles and packing to a byte string.
#pragma once

#include <ccs/datadesc.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

struct dd_handle {
    ccs_datadesc_t h = nullptr;
    dd_handle() = default;
    explicit dd_handle(ccs_datadesc_t x) : h(x) {}
    dd_handle(const dd_handle &) = delete;
    dd_handle &operator=(const dd_handle &) = delete;
    dd_handle(dd_handle &&o) noexcept : h(o.h) { o.h = nullptr; }
    ~dd_handle() {
        if (h && h != CCS_BYTE) ccs_datadesc_free(&h);
    }
    operator ccs_datadesc_t() const { return h; }
    ccs_datadesc_t *out() { return &h; }
};

struct bounds {
    int64_t size, lb, extent, true_lb, true_extent;
};

inline bounds bounds_of(ccs_datadesc_t d) {
    bounds b{};
    EXPECT_EQ(ccs_datadesc_size(d, &b.size), CCS_OK);
    EXPECT_EQ(ccs_datadesc_extent(d, &b.lb, &b.extent), CCS_OK);
    EXPECT_EQ(ccs_datadesc_true_extent(d, &b.true_lb, &b.true_extent), CCS_OK);
    return b;
}

// Packs `count` elements found at buf + origin; returns the packed bytes.
inline std::vector<uint8_t> pack_all(ccs_datadesc_t d, const uint8_t *at, int64_t count) {
    int64_t size = 0;
    ccs_datadesc_size(d, &size);
    std::vector<uint8_t> out(static_cast<size_t>(size * count));
    int64_t done = -1;
    EXPECT_EQ(ccs_datadesc_pack(at, count, d, 0, out.data(), static_cast<int64_t>(out.size()), &done), CCS_OK)
        << ccs_last_error();
    EXPECT_EQ(done, static_cast<int64_t>(out.size()));
    return out;
}
