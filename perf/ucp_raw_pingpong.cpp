// A bare UCP active-message ping-pong made the way the ucx plugin uses UCP
// (AM and RMA features, single-thread worker, whole messages, no UCP
// header but the sender's rank in front of the packet, send callbacks,
// small arrivals copied out in the callback), without CCS. It
// separates what CCS's layers cost from what these UCP settings cost, next
// to ucx_perftest. Two processes exchange worker addresses through files:
//   ucp_raw_pingpong <rank 0|1> <empty directory> [iterations] [copy] [spin]
// (perf/compare_ucx.sh runs it). Prints rank 0's one-way latency. copy 0
// leaves the arrival unread (as ucx_perftest's handler does); spin adds
// that many turns of an empty loop to the handler (about a cycle each):
// what work between an arrival and the answer costs.
#include <ucp/api/ucp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

int received = 0;
bool copy = true;
int spin = 0;
uint8_t arrived[256];

ucs_status_t on_message(void *, const void *, size_t, void *data, size_t length, const ucp_am_recv_param_t *) {
    ++received;
    if (copy) std::memcpy(arrived, data, length < sizeof arrived ? length : sizeof arrived);  // as the plugin does
    for (int i = 0; i < spin; ++i) asm volatile("");
    return UCS_OK;
}

void on_sent(void *request, ucs_status_t, void *) { ucp_request_free(request); }

bool ok(ucs_status_t st, const char *what) {
    if (st == UCS_OK) return true;
    std::fprintf(stderr, "%s: %s\n", what, ucs_status_string(st));
    return false;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <rank 0|1> <empty directory> [iterations] [copy] [spin]\n", argv[0]);
        return 2;
    }
    const int rank = std::atoi(argv[1]);
    const std::string dir = argv[2];
    const int iterations = argc > 3 ? std::atoi(argv[3]) : 200000;
    copy = argc > 4 ? std::atoi(argv[4]) != 0 : true;
    spin = argc > 5 ? std::atoi(argv[5]) : 0;
    ucp_config_t *config = nullptr;
    if (!ok(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read")) return 1;
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA;
    ucp_context_h context = nullptr;
    const bool inited = ok(ucp_init(&params, config, &context), "ucp_init");
    ucp_config_release(config);
    if (!inited) return 1;
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    ucp_worker_h worker = nullptr;
    if (!ok(ucp_worker_create(context, &wp, &worker), "ucp_worker_create")) return 1;
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    hp.id = 0;
    hp.cb = on_message;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    if (!ok(ucp_worker_set_am_recv_handler(worker, &hp), "ucp_worker_set_am_recv_handler")) return 1;
    ucp_address_t *address = nullptr;
    size_t length = 0;
    if (!ok(ucp_worker_get_address(worker, &address, &length), "ucp_worker_get_address")) return 1;
    {
        const std::string mine = dir + "/address" + std::to_string(rank);
        std::ofstream(mine + ".tmp", std::ios::binary).write(reinterpret_cast<const char *>(address),
                                                              static_cast<std::streamsize>(length));
        std::rename((mine + ".tmp").c_str(), mine.c_str());  // whole or not at all
    }
    ucp_worker_release_address(worker, address);
    const std::string theirs = dir + "/address" + std::to_string(1 - rank);
    std::vector<char> peer;
    for (int waited = 0; peer.empty() && waited < 30000; ++waited) {
        std::ifstream in(theirs, std::ios::binary);
        if (in) peer.assign(std::istreambuf_iterator<char>(in), {});
        else std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (peer.empty()) {
        std::fprintf(stderr, "no address from rank %d in %s\n", 1 - rank, dir.c_str());
        return 1;
    }
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t *>(peer.data());
    ucp_ep_h endpoint = nullptr;
    if (!ok(ucp_ep_create(worker, &ep, &endpoint), "ucp_ep_create")) return 1;
    // The sender's rank, then a CCS packet of an 8-byte AM (16-byte header,
    // an argument, 8 bytes of payload, padding).
    char payload[44] = {};
    std::memcpy(payload, &rank, sizeof rank);
    const auto send = [&] {
        ucp_request_param_t rp{};
        rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_DATATYPE;
        rp.cb.send = on_sent;
        rp.datatype = ucp_dt_make_contig(1);
        (void)ucp_am_send_nbx(endpoint, 0, nullptr, 0, payload, sizeof payload, &rp);
    };
    const auto wait_for = [&](int n) {
        while (received < n) ucp_worker_progress(worker);
    };
    for (int round = 0; round < 2; ++round) {  // the first warms up
        received = 0;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < iterations; ++i) {
            if (rank == 0) send(), wait_for(i + 1);
            else wait_for(i + 1), send();
        }
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        if (rank == 0 && round == 1) std::printf("one-way %.3f us\n", us / iterations / 2);
    }
    // Let the peer finish its last receive before the endpoint goes.
    for (int i = 0; i < 1000; ++i) ucp_worker_progress(worker), std::this_thread::sleep_for(std::chrono::microseconds(100));
    ucp_ep_destroy(endpoint);
    ucp_worker_destroy(worker);
    ucp_cleanup(context);
    return 0;
}
