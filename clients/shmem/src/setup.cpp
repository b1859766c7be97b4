// Library setup and query: shmem_init, shmem_finalize, the PE's numbers,
// accessibility and shmem_ptr.
#include "pe_state.hpp"

#include <cstdlib>
#include <cstring>

struct shmem_ctx_s shmem_ctx_default_object_{ccs::shmem::ctx_alive, 0, nullptr, {0, 0, CCS_OK}, 0};

namespace ccs::shmem {
namespace {
constexpr size_t default_heap_bytes = size_t{256} << 20;

bool progress_thread_wanted(const char *call) {
    // The progress thread serves gets and atomics aimed at a PE while it
    // computes (OpenSHMEM operations complete without the target's calls).
    const char *v = std::getenv("SHMEM_PROGRESS_THREAD");
    if (!v || !*v || std::strcmp(v, "1") == 0) return true;
    if (std::strcmp(v, "0") == 0) return false;
    fail(call, std::string("SHMEM_PROGRESS_THREAD='") + v + "' must be 0 or 1");
}

void init(const char *call, int requested) {
    pe_state &s = pe();
    if (s.initialized) return;
    if (s.finalized) fail(call, "OpenSHMEM cannot start again after shmem_finalize");
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        fail(call, "thread level " + std::to_string(requested) + " is none of SHMEM_THREAD_*");
    size_t heap_bytes = 0;
    std::string why;
    if (!parse_size(std::getenv("SHMEM_SYMMETRIC_SIZE"), default_heap_bytes, heap_bytes, why))
        fail(call, "SHMEM_SYMMETRIC_SIZE: " + why);
    // The SHMEM thread levels are CCS's, number for number.
    ccs_init_params_t params{sizeof params, progress_thread_wanted(call) ? uint64_t{CCS_INIT_PROGRESS_THREAD} : 0u,
                             requested};
    check(call, ccs_init(&params));
    int level = 0;
    check(call, ccs_query_thread(&level));
    s.thread_level = level;
    check(call, ccs_rank(&s.me));
    check(call, ccs_size(&s.npes));
    const ccs_context_params_t ctx_params{sizeof ctx_params, 0, "shmem", nullptr, 0, nullptr, 0};
    check(call, ccs_context_create(&ctx_params, &s.context));
    check(call, ccs_team_world(s.context, &s.world));
    create_predefined_teams(call, s);
    const ccs_status_t st = s.data.create(s.world, s.npes, why);
    if (st != CCS_OK) fail(call, std::string(ccs_strerror(st)) + ": " + why);
    if (s.heap.create(heap_bytes) != CCS_OK)
        fail(call, "a symmetric heap of " + std::to_string(heap_bytes) + " bytes (SHMEM_SYMMETRIC_SIZE): " +
                       ccs_last_error());
    s.initialized = true;
    check(call, ccs_team_barrier(s.world, nullptr));
}
}  // namespace
}  // namespace ccs::shmem

using namespace ccs::shmem;

extern "C" {
void shmem_init(void) { init("shmem_init", SHMEM_THREAD_SINGLE); }

int shmem_init_thread(int requested, int *provided) {
    init("shmem_init_thread", requested);
    if (provided) *provided = pe().thread_level;
    return 0;
}

void start_pes(int) { init("start_pes", SHMEM_THREAD_SINGLE); }

void shmem_query_thread(int *provided) {
    const pe_state &s = ready("shmem_query_thread");
    if (!provided) fail("shmem_query_thread", "provided is NULL");
    *provided = s.thread_level;
}

void shmem_finalize(void) {
    const char *call = "shmem_finalize";
    pe_state &s = pe();
    if (!s.initialized) return;
    barrier_all(call);
    s.data.destroy();
    check(call, s.heap.destroy());
    destroy_predefined_teams();
    check(call, ccs_context_destroy(s.context));
    s.initialized = false;
    s.finalized = true;
    check(call, ccs_finalize());
}

void shmem_global_exit(int status) {
    std::fflush(nullptr);
    // Exit codes are 8 bits, as exit() keeps them.
    ccs_abort(status & 0xff, "shmem_global_exit");
    std::_Exit(status & 0xff);  // ccs_abort returns only for a code out of range
}

int shmem_my_pe(void) { return ready("shmem_my_pe").me; }
int shmem_n_pes(void) { return ready("shmem_n_pes").npes; }
int _my_pe(void) { return ready("_my_pe").me; }
int _num_pes(void) { return ready("_num_pes").npes; }

int shmem_pe_accessible(int pe_number) {
    const pe_state &s = ready("shmem_pe_accessible");
    if (pe_number < 0 || pe_number >= s.npes) return 0;
    ccs_peer_attr_t attr{};
    attr.struct_size = sizeof attr;
    return ccs_peer_query(pe_number, &attr) == CCS_OK && !(attr.flags & CCS_PEER_FAILED);
}

int shmem_addr_accessible(const void *addr, int pe_number) {
    const pe_state &s = ready("shmem_addr_accessible");
    if (!shmem_pe_accessible(pe_number)) return 0;
    return s.heap.contains(addr, 1) || s.data.contains(addr, 1);
}

void *shmem_ptr(const void *dest, int pe_number) {
    const pe_state &s = ready("shmem_ptr");
    if (pe_number < 0 || pe_number >= s.npes) return nullptr;
    if (pe_number == s.me && (s.heap.contains(dest, 1) || s.data.contains(dest, 1))) return const_cast<void *>(dest);
    if (!s.heap.contains(dest, 1)) return nullptr;
    void *ptr = nullptr;
    // Not mapped (another node, a transport that maps nothing): NULL, as
    // the specification asks.
    if (ccs_mem_symmetric_ptr(dest, pe_number, 1, &ptr) != CCS_OK) return nullptr;
    return ptr;
}

void shmem_info_get_version(int *major, int *minor) {
    if (major) *major = SHMEM_MAJOR_VERSION;
    if (minor) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name) {
    if (name) std::strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN);
}
}
