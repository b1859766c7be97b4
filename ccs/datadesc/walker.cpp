#include "walker.hpp"

#include <algorithm>

namespace ccs::dd {

walker::walker(const program &p, int64_t count) : p_(p), elements_(count), levels_(inline_levels_) {
    if (p.depth > inline_depth) {
        heap_levels_ = std::make_unique<level[]>(p.depth);
        levels_ = heap_levels_.get();
    }
}

void walker::push(uint32_t i, int64_t base, int64_t iter) {
    const op &o = p_.ops[i];
    const int64_t *offsets = o.table >= 0 ? p_.tables.data() + o.table : nullptr;
    levels_[depth_++] = {i + 1, o.end, o.count, o.stride, offsets, o.scale, base + o.disp, iter, i + 1, o.shape};
}

void walker::seek(int64_t offset) {
    depth_ = 0;
    skip_ = 0;
    entry_ = 0;
    const auto n = static_cast<uint32_t>(p_.ops.size());
    // The elements themselves are the outermost loop.
    const int64_t element = p_.size ? offset / p_.size : 0;
    int64_t off = p_.size ? offset % p_.size : 0;
    levels_[depth_++] = {0, n, elements_, p_.extent, nullptr, 1, 0, element, 0, p_.element_shape};
    for (;;) {
        level &l = top();
        // At the start of an op: next() goes on from here, and hands out
        // the rest of a loop whole where it can, which it could not do
        // from inside an iteration. (No op is empty, so none to skip.)
        if (off == 0) return;
        const op &o = p_.ops[l.pos];
        const int64_t total = o.total();
        if (off >= total) {  // skip this op whole
            off -= total;
            l.pos = o.end;
            continue;
        }
        if (o.is_list()) {  // find the copy holding `off` by its stream start
            const int64_t *starts = p_.tables.data() + o.table + 2 * o.count;
            entry_ = std::upper_bound(starts, starts + o.count, off) - starts - 1;
            skip_ = off - starts[entry_];
            return;
        }
        if (!o.loop) {
            skip_ = off;
            return;
        }
        const int64_t iter = off / o.bytes;
        off %= o.bytes;
        const int64_t base = l.iteration_base();
        const uint32_t index = l.pos;
        l.pos = o.end;  // where the parent resumes after this loop
        push(index, base, iter);
    }
}

bool walker::next(run &out) {
    while (depth_ > 0) {
        level &l = top();
        if (l.pos >= l.end) {  // iteration finished
            if (++l.iter < l.count) {
                l.pos = l.first;
                continue;
            }
            --depth_;
            continue;
        }
        const op &o = p_.ops[l.pos];
        const int64_t base = l.iteration_base();
        if (l.pos == l.first && skip_ == 0 && l.shape != body_shape::ops) {
            // The rest of the loop in one run. A table loop's offsets count
            // from the loop's base.
            const int64_t *offsets = l.offsets ? l.offsets + l.iter : nullptr;
            const small_body *plan = l.shape == body_shape::copies ? p_.body_plan(l.first) : nullptr;
            out = whole_iterations(p_.ops.data() + l.first, l.end - l.first, l.shape, plan, offsets ? l.base : base,
                                   l.count - l.iter, l.stride, offsets, l.scale);
            --depth_;
            return true;
        }
        if (o.is_list()) {
            const int64_t *list = p_.tables.data() + o.table + 2 * entry_;
            if (skip_ > 0) {  // the rest of the copy a seek landed in, alone
                out = {base + o.disp + list[0] + skip_, list[1] - skip_, 1, 0};
                skip_ = 0;
                if (++entry_ < o.count) return true;
            } else {
                out = {base + o.disp, 0, o.count - entry_, 0};
                out.list = list;
            }
            entry_ = 0;
            ++l.pos;
            return true;
        }
        if (!o.loop) {
            out = {base + o.disp + skip_, o.len - skip_, 1, 0};
            skip_ = 0;
            ++l.pos;
            return true;
        }
        const uint32_t index = l.pos;
        l.pos = o.end;
        push(index, base, 0);
    }
    return false;
}

}  // namespace ccs::dd
