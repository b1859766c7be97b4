// Little helpers to pack the small records the bootstrap exchanges and the
// remote keys processes hand each other.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ccs {

class blob_writer {
public:
    blob_writer &u32(uint32_t v) { return raw(&v, sizeof v); }
    blob_writer &u64(uint64_t v) { return raw(&v, sizeof v); }
    blob_writer &str(const std::string &s) {
        u32(static_cast<uint32_t>(s.size()));
        return raw(s.data(), s.size());
    }
    blob_writer &bytes(const std::vector<uint8_t> &b) {
        u32(static_cast<uint32_t>(b.size()));
        return raw(b.data(), b.size());
    }
    std::vector<uint8_t> take() { return std::move(out_); }

private:
    blob_writer &raw(const void *p, size_t n) {
        const auto *b = static_cast<const uint8_t *>(p);
        out_.insert(out_.end(), b, b + n);
        return *this;
    }
    std::vector<uint8_t> out_;
};

// Reads what blob_writer wrote; every read is bounds-checked and a short or
// malformed blob makes ok() false instead of reading past the end.
class blob_reader {
public:
    explicit blob_reader(const std::vector<uint8_t> &b) : data_(b) {}
    uint32_t u32() {
        uint32_t v = 0;
        raw(&v, sizeof v);
        return v;
    }
    uint64_t u64() {
        uint64_t v = 0;
        raw(&v, sizeof v);
        return v;
    }
    bool at_end() const { return pos_ == data_.size(); }
    std::string str() {
        const uint32_t n = u32();
        if (!ok_ || n > data_.size() - pos_) return fail_empty<std::string>();
        std::string s(reinterpret_cast<const char *>(data_.data() + pos_), n);
        pos_ += n;
        return s;
    }
    std::vector<uint8_t> bytes() {
        const uint32_t n = u32();
        if (!ok_ || n > data_.size() - pos_) return fail_empty<std::vector<uint8_t>>();
        std::vector<uint8_t> b(data_.begin() + static_cast<long>(pos_),
                               data_.begin() + static_cast<long>(pos_ + n));
        pos_ += n;
        return b;
    }
    bool ok() const { return ok_; }

private:
    template <typename T>
    T fail_empty() {
        ok_ = false;
        return T{};
    }
    void raw(void *p, size_t n) {
        if (!ok_ || n > data_.size() - pos_) {
            ok_ = false;
            std::memset(p, 0, n);
            return;
        }
        std::memcpy(p, data_.data() + pos_, n);
        pos_ += n;
    }
    const std::vector<uint8_t> &data_;
    size_t pos_ = 0;
    bool ok_ = true;
};

}  // namespace ccs
