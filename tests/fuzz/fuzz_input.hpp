// What the fuzzers here share: the input read a byte at a time (zeros once
// it runs out, so every input is a complete run), and an invariant check
// that aborts, which libFuzzer reports as a crash with the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace fuzz {

struct input {
    const uint8_t *p;
    size_t n;
    uint8_t byte() {
        if (!n) return 0;
        --n;
        return *p++;
    }
};

inline void require(bool ok) {
    if (!ok) std::abort();
}

}  // namespace fuzz
