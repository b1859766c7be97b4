#include "program.hpp"

#include "walker.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace ccs::dd {
namespace {

using fragment = std::vector<op>;

// Indices of the top-level ops of a fragment.
std::vector<uint32_t> top_level(const fragment &f) {
    std::vector<uint32_t> tops;
    for (uint32_t i = 0; i < f.size(); i = f[i].end) tops.push_back(i);
    return tops;
}

void shift(fragment &f, int64_t by) {
    for (uint32_t i : top_level(f)) f[i].disp += by;
}

// Index of the last top-level op of a non-empty fragment.
uint32_t last_top_level(const fragment &f) {
    uint32_t last = 0;
    for (uint32_t i = 0; i < f.size(); i = f[i].end) last = i;
    return last;
}

// A fragment growing by appends; remembers where its last top-level op is,
// so appending n blocks costs O(n), not O(n^2).
struct fragment_builder {
    fragment ops;
    uint32_t last_top = 0;

    // Appends b, merging a trailing copy with a leading adjacent copy.
    void append(fragment b) {
        if (b.empty()) return;
        if (!ops.empty()) {
            op &last = ops[last_top];
            const op &first = b[0];
            if (last.is_copy() && first.is_copy() && last.disp + last.len == first.disp) {
                last.len += first.len;
                last.bytes = last.len;
                b.erase(b.begin());
                for (auto &o : b) o.end -= 1;
                if (b.empty()) return;
            }
        }
        const auto offset = static_cast<uint32_t>(ops.size());
        last_top = offset + last_top_level(b);
        for (auto &o : b) {
            o.end += offset;
            ops.push_back(o);
        }
    }
};

// `count` repetitions of `body` (whose data is `bytes` per repetition),
// `stride` bytes apart, the first at `disp`.
fragment repeat(fragment body, int64_t count, int64_t stride, int64_t bytes, int64_t disp) {
    if (count == 0 || body.empty()) return {};
    if (count == 1) {
        shift(body, disp);
        return body;
    }
    const bool single = body[0].end == body.size();
    // Contiguous body, repetitions touching: one longer copy.
    if (single && body[0].is_copy() && body[0].len == stride) {
        op c = body[0];
        c.disp += disp;
        c.len *= count;
        c.bytes = c.len;
        return {c};
    }
    // A loop over an evenly stepping simple loop: one loop. (The inner
    // loop's count times stride may not fit even where its span does.)
    int64_t inner_span = 0;
    if (single && simple_loop(body, 0) && body[0].table < 0 && body[0].disp == 0 &&
        !__builtin_mul_overflow(body[0].count, body[0].stride, &inner_span) && inner_span == stride) {
        fragment fused = body;
        fused[0].disp = disp;
        fused[0].count *= count;
        return fused;
    }
    fragment out;
    op loop;
    loop.loop = true;
    loop.disp = disp;
    loop.count = count;
    loop.stride = stride;
    loop.bytes = bytes;
    loop.end = static_cast<uint32_t>(body.size() + 1);
    out.push_back(loop);
    for (auto &o : body) {
        o.end += 1;
        out.push_back(o);
    }
    return out;
}

fragment build(const node &n, std::vector<int64_t> &tables);

// Blocks of one child and one blocklength at listed displacements: a loop
// (evenly spaced) or a table loop (irregular). Returns false to leave the
// blocks to the general path, which merges adjacent copies: when the
// blocks differ, are few, or mostly touch.
bool uniform_blocks(const node &n, std::vector<int64_t> &tables, fragment &out) {
    const auto &blocks = n.blocks;
    if (blocks.size() < 4) return false;
    const block &first = blocks[0];
    for (const auto &b : blocks)
        if (b.child != first.child || b.blocklength != first.blocklength) return false;
    const node &child = *first.child;
    std::vector<int64_t> relative(blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i)
        if (__builtin_sub_overflow(blocks[i].displacement, first.displacement, &relative[i])) return false;
    const size_t mark = tables.size();  // tables the body adds, dropped if we decline
    fragment body = repeat(build(child, tables), first.blocklength, child.extent(), child.size, 0);
    if (body.empty()) {
        tables.resize(mark);
        return false;
    }
    const int64_t bytes = first.blocklength * child.size;
    // Gaps between consecutive blocks; INT64_MIN stands for "overflows".
    auto gap = [&](size_t i) {
        int64_t d = 0;
        return __builtin_sub_overflow(relative[i], relative[i - 1], &d) ? INT64_MIN : d;
    };
    const int64_t step = relative[1];
    bool even = true;
    for (size_t i = 1; even && i < blocks.size(); ++i) even = gap(i) == step;
    if (even) {
        out = repeat(std::move(body), static_cast<int64_t>(blocks.size()), step, bytes, first.displacement);
        return true;
    }
    if (body.size() == 1 && body[0].is_copy()) {  // touching copies are better merged
        size_t touching = 0;
        for (size_t i = 1; i < blocks.size(); ++i)
            touching += gap(i) == body[0].len;
        if (touching * 4 > blocks.size()) {
            tables.resize(mark);
            return false;
        }
    }
    op loop;
    loop.loop = true;
    loop.disp = first.displacement;
    loop.count = static_cast<int64_t>(blocks.size());
    loop.bytes = bytes;
    loop.table = static_cast<int64_t>(tables.size());
    loop.end = static_cast<uint32_t>(body.size() + 1);
    tables.insert(tables.end(), relative.begin(), relative.end());
    out.push_back(loop);
    for (auto &o : body) {
        o.end += 1;
        out.push_back(o);
    }
    return true;
}

// A fragment of many plain copies and nothing else becomes one copy list:
// 24 table bytes per copy instead of a whole op, and one run for the walker.
fragment copy_list(fragment f, std::vector<int64_t> &tables) {
    constexpr size_t min_copies = 8;
    if (f.size() < min_copies) return f;
    int64_t relative = 0;
    for (const auto &o : f)
        if (!o.is_copy() || __builtin_sub_overflow(o.disp, f[0].disp, &relative)) return f;
    op list;
    list.disp = f[0].disp;
    list.count = static_cast<int64_t>(f.size());
    list.table = static_cast<int64_t>(tables.size());
    list.end = 1;
    for (const auto &o : f) {
        tables.push_back(o.disp - list.disp);  // checked above
        tables.push_back(o.len);
        list.len += o.len;
    }
    int64_t start = 0;
    for (const auto &o : f) {
        tables.push_back(start);
        start += o.len;
    }
    list.bytes = list.len;
    return {list};
}

fragment build(const node &n, std::vector<int64_t> &tables) {
    switch (n.k) {
    case node::kind::byte: {
        op c;
        c.len = c.bytes = 1;
        c.end = 1;
        return {c};
    }
    case node::kind::resized:
        return build(*n.child, tables);  // only the extent differs: the parent's stride
    case node::kind::strided: {
        // No blocks: nothing to build, and blocklength times the child's
        // size was never checked against overflow.
        if (n.count == 0) return {};
        fragment one = repeat(build(*n.child, tables), n.blocklength, n.child->extent(), n.child->size, 0);
        return repeat(std::move(one), n.count, n.stride, n.blocklength * n.child->size, 0);
    }
    case node::kind::blocks: {
        fragment uniform;
        if (uniform_blocks(n, tables, uniform)) return uniform;
        fragment_builder out;
        for (const auto &b : n.blocks)
            out.append(repeat(build(*b.child, tables), b.blocklength, b.child->extent(), b.child->size, b.displacement));
        return copy_list(std::move(out.ops), tables);
    }
    }
    return {};
}

// A table loop's offsets divided by their greatest common factor.
struct scaled_table {
    int64_t factor = 1;
    std::vector<int64_t> entries;
    size_t leader = 0;  // index of the first table loop with equal entries
};

scaled_table scale_down(const int64_t *offsets, size_t n) {
    scaled_table t;
    int64_t factor = 0;
    for (size_t i = 0; i < n && factor != 1; ++i)
        factor = offsets[i] == INT64_MIN ? 1 : std::gcd(factor, offsets[i]);
    t.factor = factor == 0 ? 1 : factor;  // all zero: keep them
    t.entries.assign(offsets, offsets + n);
    for (int64_t &v : t.entries) v /= t.factor;
    return t;
}

uint64_t hash_of(const std::vector<int64_t> &entries) {
    uint64_t hash = 14695981039346656037ull;  // FNV-1a over the entries
    for (int64_t v : entries) hash = (hash ^ static_cast<uint64_t>(v)) * 1099511628211ull;
    return hash;
}

// Table loops whose offsets differ only by a common factor share one table
// (op.scale multiplies it back). A struct of indexed arrays (LAMMPS: one
// index list over arrays of 24-, 4- and 8-byte elements) then reads one
// table instead of one per array: the copies are scattered, so the tables'
// memory traffic is a good part of the time. A table nobody shares stays as
// built, so its loop pays no multiply.
void share_tables(program &p) {
    std::vector<scaled_table> loops;  // table loops in op order
    std::vector<uint32_t> members;    // per leader: loops using its table
    std::unordered_multimap<uint64_t, size_t> leaders;  // entries hash -> leader
    for (const op &o : p.ops) {
        if (!o.loop || o.table < 0) continue;
        scaled_table t = scale_down(p.tables.data() + o.table, static_cast<size_t>(o.count));
        const uint64_t hash = hash_of(t.entries);
        t.leader = loops.size();
        for (auto [it, end] = leaders.equal_range(hash); it != end; ++it)
            if (loops[it->second].entries == t.entries) {
                t.leader = it->second;
                break;
            }
        if (t.leader == loops.size()) leaders.emplace(hash, t.leader);
        members.push_back(0);
        ++members[t.leader];
        loops.push_back(std::move(t));
    }
    std::vector<int64_t> shared;
    std::vector<int64_t> start(loops.size(), -1);  // per leader: its table in `shared`
    size_t k = 0;
    for (op &o : p.ops) {
        if (o.table < 0) continue;
        const int64_t *from = p.tables.data() + o.table;
        o.table = static_cast<int64_t>(shared.size());
        if (o.is_list()) {  // displacement, length and stream start of each copy
            shared.insert(shared.end(), from, from + 3 * o.count);
            continue;
        }
        const scaled_table &t = loops[k++];
        if (members[t.leader] == 1) {
            shared.insert(shared.end(), from, from + o.count);
            continue;
        }
        if (start[t.leader] < 0) {
            start[t.leader] = o.table;
            shared.insert(shared.end(), loops[t.leader].entries.begin(), loops[t.leader].entries.end());
        }
        o.table = start[t.leader];
        o.scale = t.factor;
    }
    p.tables = std::move(shared);
}

body_shape shape_of_body(const std::vector<op> &ops, uint32_t first, uint32_t end) {
    if (end == first + 1 && ops[first].is_copy()) return body_shape::one_copy;
    if (std::all_of(ops.begin() + first, ops.begin() + end, [](const op &o) { return o.is_copy(); }))
        return body_shape::copies;
    if (end == first + 2 && simple_loop(ops, first) && ops[first].table < 0) return body_shape::strided_loop;
    return body_shape::ops;
}

}  // namespace

ccs_status_t compile(const node &root, program &out) {
    out = program{};
    out.ops = build(root, out.tables);
    share_tables(out);
    out.size = root.size;
    out.extent = root.extent();
    // Blocks of one element: copies count once, simple loops per iteration.
    int64_t blocks = 0;
    std::vector<int64_t> multiplier{1};
    std::vector<uint32_t> ends{static_cast<uint32_t>(out.ops.size())};
    for (uint32_t i = 0; i < out.ops.size(); ++i) {
        while (i >= ends.back()) {
            ends.pop_back();
            multiplier.pop_back();
        }
        const op &o = out.ops[i];
        if (o.loop) {
            multiplier.push_back(multiplier.back() * o.count);
            ends.push_back(o.end);
            out.depth = std::max(out.depth, static_cast<uint32_t>(ends.size()));
        } else {
            blocks += multiplier.back() * (o.is_list() ? o.count : 1);
        }
    }
    out.blocks = blocks;
    // Bodies of copies are planned here once; a kernel planned them per call.
    auto plan_of = [&out](uint32_t first, uint32_t end) {
        small_body b;
        if (!b.plan(out.ops.data() + first, end - first)) return -1;
        out.plans.push_back(b);
        return static_cast<int32_t>(out.plans.size() - 1);
    };
    for (uint32_t i = 0; i < out.ops.size(); ++i) {
        op &o = out.ops[i];
        if (!o.loop) continue;
        o.shape = shape_of_body(out.ops, i + 1, o.end);
        if (o.shape == body_shape::copies) o.plan = plan_of(i + 1, o.end);
    }
    const auto n = static_cast<uint32_t>(out.ops.size());
    out.element_shape = shape_of_body(out.ops, 0, n);
    if (out.element_shape == body_shape::copies && n > 0) out.element_plan = plan_of(0, n);
    if (out.size > 0) {
        walker w(out, 1);
        w.seek(0);
        run first, more;
        if (w.next(first) && !w.next(more)) out.element_run = first;
    }
    return CCS_OK;
}

}  // namespace ccs::dd
