#include "layouts.hpp"

#include <array>
#include <list>
#include <map>
#include <mutex>

namespace ccs::armci {
namespace {
constexpr size_t kept_layouts = 256;

// levels, count[0..levels], stride[0..levels-1], zeros after: a lookup
// allocates nothing. ARMCI's counts and strides are ints.
using shape_key = std::array<int32_t, 2 + 2 * max_stride_levels>;

struct cached_layout {
    shape_key key;
    strided_shape shape;
};
struct layout_cache {
    std::mutex lock;
    std::list<cached_layout> recent;  // most recent first
    std::map<shape_key, std::list<cached_layout>::iterator> by_shape;
};
layout_cache &cache() {
    static layout_cache c;
    return c;
}

// The shapes a program moves now are near the front of the recent list
// (a patch's local and remote shape, a few patches): looking at the first
// few saves walking the tree, and moving the first.
constexpr int front_looks = 4;
}  // namespace

int strided_layout(const char *call, int levels, const int *count, const int *stride, strided_shape &out) {
    if (levels < 0 || levels > max_stride_levels)
        return report(
            call, CCS_ERR_INVALID_ARG,
            "stride_levels " + std::to_string(levels) + " is not in 0 .. " + std::to_string(max_stride_levels));
    if (!count || (levels > 0 && !stride)) return report(call, CCS_ERR_INVALID_ARG, "count or a stride array is NULL");
    uint64_t bytes = 1, span = 0;
    for (int i = 0; i <= levels; ++i) {
        if (count[i] < 0)
            return report(call, CCS_ERR_INVALID_ARG,
                          "count[" + std::to_string(i) + "] = " + std::to_string(count[i]) + " is negative");
        bytes *= static_cast<uint64_t>(count[i]);
    }
    if (bytes == 0) return out = strided_shape{}, 0;
    span = static_cast<uint64_t>(count[0]);
    bool contiguous = true;
    uint64_t run = static_cast<uint64_t>(count[0]);
    for (int i = 1; i <= levels; ++i) {
        if (stride[i - 1] < 0)
            return report(
                call, CCS_ERR_INVALID_ARG,
                "stride " + std::to_string(stride[i - 1]) + " at level " + std::to_string(i) + " is negative");
        span += static_cast<uint64_t>(count[i] - 1) * static_cast<uint64_t>(stride[i - 1]);
        if (count[i] > 1 && static_cast<uint64_t>(stride[i - 1]) != run) contiguous = false;
        run *= static_cast<uint64_t>(count[i]);
    }
    if (contiguous) return out = strided_shape{nullptr, bytes, bytes}, 0;
    shape_key key{};
    size_t at = 0;
    key[at++] = levels;
    for (int i = 0; i <= levels; ++i) key[at++] = count[i];
    for (int i = 0; i < levels; ++i) key[at++] = stride[i];
    layout_cache &c = cache();
    std::lock_guard<std::mutex> hold(c.lock);
    auto near = c.recent.begin();
    for (int i = 0; i < front_looks && near != c.recent.end(); ++i, ++near)
        if (near->key == key) {
            if (i > 0) c.recent.splice(c.recent.begin(), c.recent, near);
            out = near->shape;
            return 0;
        }
    if (auto it = c.by_shape.find(key); it != c.by_shape.end()) {
        c.recent.splice(c.recent.begin(), c.recent, it->second);
        out = it->second->shape;
        return 0;
    }
    int64_t counts[max_stride_levels + 1], strides[max_stride_levels];
    for (int i = 0; i <= levels; ++i) counts[i] = count[i];
    for (int i = 0; i < levels; ++i) strides[i] = stride[i];
    ccs_datadesc_t dd = nullptr;
    ccs_status_t st = ccs_datadesc_strided(levels, counts, strides, &dd);
    if (st == CCS_OK) st = ccs_datadesc_commit(dd);
    if (st != CCS_OK) {
        if (dd) ccs_datadesc_free(&dd);
        return report_ccs(call, st);
    }
    if (c.by_shape.size() >= kept_layouts) {
        cached_layout &old = c.recent.back();
        ccs_datadesc_free(&old.shape.layout);
        c.by_shape.erase(old.key);
        c.recent.pop_back();
    }
    out = strided_shape{dd, bytes, span};
    c.recent.push_front({key, out});
    c.by_shape.emplace(key, c.recent.begin());
    return 0;
}

void forget_layouts() {
    layout_cache &c = cache();
    std::lock_guard<std::mutex> hold(c.lock);
    for (cached_layout &entry : c.recent) ccs_datadesc_free(&entry.shape.layout);
    c.by_shape.clear();
    c.recent.clear();
}

}  // namespace ccs::armci
