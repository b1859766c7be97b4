#include "core/am/large_wire.hpp"

#include <cstring>

namespace ccs::wire {

bool read_large(const uint8_t *bytes, size_t length, large_view &out, std::string &why, size_t parked) {
    if (!bytes || length < sizeof(large_header)) {
        why = "shorter than its header";
        return false;
    }
    std::memcpy(&out.header, bytes, sizeof out.header);
    const large_header &h = out.header;
    const size_t rest = length - sizeof h;
    const uint8_t *after = bytes + sizeof h;
    if (parked > 0 && (h.mode != static_cast<uint8_t>(large_mode::eager) || rest != 0)) {
        why = "a payload kept by the transport behind something but an eager header";
        return false;
    }
    switch (static_cast<large_mode>(h.mode)) {
    case large_mode::eager:
        if (h.key_length != 0 || h.layout_length != 0 || h.size != rest + parked) {
            why = "eager payload of " + std::to_string(rest + parked) + " bytes for a message of " +
                  std::to_string(h.size);
            return false;
        }
        out.data = parked ? nullptr : after;
        out.key = out.layout = nullptr;
        return true;
    case large_mode::push:
        if (h.key_length != 0 || h.layout_length != 0 || h.count != 0 || rest != 0 || h.size == 0) {
            why = "a pushed message carries nothing but its size, which is not 0";
            return false;
        }
        out.data = out.key = out.layout = nullptr;
        return true;
    case large_mode::fetch:
        if (h.key_length == 0 || size_t{h.key_length} + h.layout_length != rest) {
            why = "key and layout lengths do not add up to the packet";
            return false;
        }
        if (h.layout_length > 0 && h.count < 0) {
            why = "negative element count";
            return false;
        }
        if (h.layout_length == 0 && h.count != 0) {
            why = "element count without a layout";
            return false;
        }
        if (h.size == 0) {
            why = "fetch of nothing";
            return false;
        }
        out.data = nullptr;
        out.key = after;
        out.layout = h.layout_length ? after + h.key_length : nullptr;
        return true;
    }
    why = "unknown mode " + std::to_string(h.mode);
    return false;
}

}  // namespace ccs::wire
