#include "static_data.hpp"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cstring>

namespace ccs::shmem {
namespace {
struct range {
    uintptr_t start = 0, end = 0;
};

// The main program's last writable load segment (.data and .bss), less the
// part that becomes read-only after relocation (RELRO).
int find_data(struct dl_phdr_info *info, size_t, void *out) {
    range &r = *static_cast<range *>(out);
    range relro;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W)) r = {start, start + ph.p_memsz};
        if (ph.p_type == PT_GNU_RELRO) relro = {start, start + ph.p_memsz};
    }
    if (relro.end > r.start && relro.start <= r.start) r.start = relro.end;
    if (r.start > r.end) r = {};
    return 1;  // the first object is the main program
}

// What every PE tells the others: where its data is and its key.
struct announcement {
    uint64_t base;
    uint64_t length;
    uint64_t key_length;
    uint8_t key[488];
};
}  // namespace

ccs_status_t static_data::create(ccs_team_t world, int npes, std::string &why) {
    range r;
    dl_iterate_phdr(find_data, &r);
    // Page bounds: registration works on pages, and a page is the finest
    // grain a transport maps.
    const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    announcement mine{};
    ccs_status_t st = CCS_OK;
    if (r.end > r.start) {
        base_ = r.start;
        length_ = r.end - r.start;
        const uintptr_t first = r.start & ~(page - 1), last = (r.end + page - 1) & ~(page - 1);
        st = ccs_mem_register(reinterpret_cast<void *>(first), last - first, &mem_);
        size_t key_length = sizeof mine.key;
        if (st == CCS_OK) st = ccs_rkey_pack(mem_, mine.key, &key_length);
        if (st != CCS_OK) why = std::string("registering the program's static data: ") + ccs_last_error();
        mine.base = base_;
        mine.length = length_;
        mine.key_length = key_length;
    }
    // Every PE takes part in the exchange, also one that failed above, so
    // that all learn of the failure together.
    mine.length = st == CCS_OK ? mine.length : UINT64_MAX;
    std::vector<announcement> all(static_cast<size_t>(npes));
    const ccs_status_t ex = ccs_team_allgather(world, &mine, sizeof mine, all.data(), nullptr);
    if (ex != CCS_OK) {
        if (why.empty()) why = std::string("exchanging static data keys: ") + ccs_last_error();
        return ex;
    }
    peers_.assign(static_cast<size_t>(npes), peer{0, CCS_RKEY_IMPLICIT});
    for (int pe = 0; pe < npes; ++pe) {
        const announcement &a = all[static_cast<size_t>(pe)];
        if (a.length == UINT64_MAX) {
            if (why.empty()) why = "PE " + std::to_string(pe) + " could not register its static data";
            return st != CCS_OK ? st : CCS_ERR_INVALID_ARG;
        }
        if (a.length != length_) {
            why = "PE " + std::to_string(pe) + " has " + std::to_string(a.length) + " bytes of static data, this PE " +
                  std::to_string(length_) + ": not the same program";
            return CCS_ERR_INVALID_ARG;
        }
        peers_[static_cast<size_t>(pe)].base = a.base;
        if (a.length == 0) continue;
        st = ccs_rkey_unpack(pe, a.key, a.key_length, &peers_[static_cast<size_t>(pe)].key);
        if (st != CCS_OK) {
            why = "the static data key of PE " + std::to_string(pe) + ": " + ccs_last_error();
            return st;
        }
    }
    return CCS_OK;
}

void static_data::destroy() {
    for (peer &p : peers_)
        if (p.key.id != 0) ccs_rkey_release(p.key);
    peers_.clear();
    if (mem_.id != 0) ccs_mem_deregister(mem_);
    mem_ = ccs_mem_t{0};
    base_ = 0;
    length_ = 0;
}
}  // namespace ccs::shmem
