#include "layout_wire.hpp"

#include "util/error.hpp"

#include <cstring>
#include <memory>
#include <unordered_map>

namespace ccs::dd {
namespace {

enum class tag : uint8_t { byte = 0, strided = 1, blocks = 2, resized = 3 };

class writer {
public:
    explicit writer(std::vector<uint8_t> &out) : out_(out) {}
    template <typename T>
    void put(T v) {
        const size_t at = out_.size();
        out_.resize(at + sizeof v);
        std::memcpy(out_.data() + at, &v, sizeof v);
    }

private:
    std::vector<uint8_t> &out_;
};

// Writes the nodes below and at `n` not written yet; returns n's index.
uint32_t write_node(const node &n, std::unordered_map<const node *, uint32_t> &index, std::vector<const node *> &order) {
    if (auto it = index.find(&n); it != index.end()) return it->second;
    if (n.child) write_node(*n.child, index, order);
    for (const block &b : n.blocks) write_node(*b.child, index, order);
    const auto i = static_cast<uint32_t>(order.size());
    order.push_back(&n);
    index.emplace(&n, i);
    return i;
}

class reader {
public:
    reader(const uint8_t *p, size_t n) : p_(p), left_(n) {}
    template <typename T>
    bool get(T &v) {
        if (left_ < sizeof v) return false;
        std::memcpy(&v, p_, sizeof v);
        p_ += sizeof v;
        left_ -= sizeof v;
        return true;
    }
    size_t left() const { return left_; }

private:
    const uint8_t *p_;
    size_t left_;
};

[[gnu::cold]] ccs_status_t malformed(const char *what) {
    return fail(CCS_ERR_INVALID_ARG, std::string("datadesc from another process: ") + what);
}

}  // namespace

void layout_to_bytes(const ccs_datadesc_s &dd, std::vector<uint8_t> &out) {
    std::unordered_map<const node *, uint32_t> index;
    std::vector<const node *> order;
    write_node(*dd.root, index, order);
    writer w(out);
    w.put(static_cast<uint32_t>(order.size()));
    for (const node *n : order) {
        switch (n->k) {
        case node::kind::byte:
            w.put(tag::byte);
            break;
        case node::kind::strided:
            w.put(tag::strided);
            w.put(n->count);
            w.put(n->blocklength);
            w.put(n->stride);
            w.put(index.at(n->child.get()));
            break;
        case node::kind::blocks:
            w.put(tag::blocks);
            w.put(static_cast<uint64_t>(n->blocks.size()));
            for (const block &b : n->blocks) {
                w.put(b.displacement);
                w.put(b.blocklength);
                w.put(index.at(b.child.get()));
            }
            break;
        case node::kind::resized:
            w.put(tag::resized);
            w.put(n->markers->lo);
            w.put(n->markers->hi - n->markers->lo);
            w.put(index.at(n->child.get()));
            break;
        }
    }
}

ccs_status_t layout_from_bytes(const uint8_t *bytes, size_t length, ccs_datadesc_s &out) {
    reader r(bytes, length);
    uint32_t count = 0;
    if (!r.get(count) || count == 0 || count > r.left()) return malformed("no nodes, or more than bytes");
    std::vector<node_ptr> nodes;
    nodes.reserve(count);
    auto child = [&](node_ptr &c) {
        uint32_t i = 0;
        if (!r.get(i) || i >= nodes.size()) return false;  // only earlier nodes: no cycles
        c = nodes[i];
        return true;
    };
    for (uint32_t i = 0; i < count; ++i) {
        tag t{};
        if (!r.get(t)) return malformed("truncated");
        node_ptr n, c;
        ccs_status_t st = CCS_OK;
        switch (t) {
        case tag::byte:
            n = byte_node();
            break;
        case tag::strided: {
            int64_t cnt = 0, bl = 0, stride = 0;
            if (!r.get(cnt) || !r.get(bl) || !r.get(stride) || !child(c)) return malformed("truncated strided node");
            if (cnt < 0 || bl < 0) return malformed("negative count");
            st = make_strided(cnt, bl, stride, c, n);
            break;
        }
        case tag::blocks: {
            uint64_t nb = 0;
            if (!r.get(nb) || nb > r.left() / 20) return malformed("truncated blocks node");
            std::vector<block> blocks(nb);
            for (block &b : blocks) {
                if (!r.get(b.displacement) || !r.get(b.blocklength) || !child(b.child))
                    return malformed("truncated blocks node");
                if (b.blocklength < 0) return malformed("negative block length");
            }
            st = make_blocks(std::move(blocks), n);
            break;
        }
        case tag::resized: {
            int64_t lb = 0, extent = 0;
            if (!r.get(lb) || !r.get(extent) || !child(c)) return malformed("truncated resized node");
            st = make_resized(c, lb, extent, n);
            break;
        }
        default:
            return malformed("unknown node kind");
        }
        if (st != CCS_OK) return st;
        nodes.push_back(std::move(n));
    }
    if (r.left() != 0) return malformed("bytes after the last node");
    auto compiled = std::make_shared<program>();
    if (const ccs_status_t st = compile(*nodes.back(), *compiled); st != CCS_OK) return st;
    out.root = nodes.back();
    out.set_compiled(std::move(compiled));
    return CCS_OK;
}

}  // namespace ccs::dd
