#include "message_p2p.hpp"

#include <cstring>
#include <list>
#include <mutex>

namespace ccs::armci {
namespace {
struct arrived {
    int source;
    int tag;
    std::vector<char> data;
};
struct mailbox {
    std::mutex lock;
    std::list<arrived> waiting;
};
mailbox &box() {
    static mailbox b;
    return b;
}

bool peer_failed(int proc) {
    ccs_peer_attr_t attr{};
    attr.struct_size = sizeof attr;
    return ccs_peer_query(proc, &attr) == CCS_OK && (attr.flags & CCS_PEER_FAILED);
}

// Waits for the first message with `tag` (from `from`, or anyone when
// from is -1); copies it out and returns its source.
int receive(const char *call, int tag, void *buffer, int buflen, int *msglen, int from) {
    const process_state &s = ready(call);
    if (from != -1 && !valid_proc(s, from))
        fail(call, "process " + std::to_string(from) + " is not in " + proc_range(s));
    if (buflen < 0 || (buflen > 0 && !buffer)) fail(call, "the buffer is NULL or its length negative");
    mailbox &b = box();
    for (unsigned polls = 0;; ++polls) {
        {
            std::lock_guard<std::mutex> hold(b.lock);
            for (auto it = b.waiting.begin(); it != b.waiting.end(); ++it) {
                if (it->tag != tag || (from != -1 && it->source != from)) continue;
                if (it->data.size() > static_cast<size_t>(buflen))
                    fail(call, "a message of " + std::to_string(it->data.size()) + " bytes from process " +
                                   std::to_string(it->source) + " does not fit the buffer of " +
                                   std::to_string(buflen));
                if (!it->data.empty()) std::memcpy(buffer, it->data.data(), it->data.size());
                if (msglen) *msglen = static_cast<int>(it->data.size());
                const int source = it->source;
                b.waiting.erase(it);
                return source;
            }
        }
        // ccs_progress backs off and yields while nothing comes.
        check(call, ccs_progress());
        if (from != -1 && polls % 1024 == 1023 && peer_failed(from))
            fail(call, "process " + std::to_string(from) + " failed before its message came");
    }
}
}  // namespace

void on_message(const ccs_am_message_t *m, void *) {
    const char *p = static_cast<const char *>(m->payload);
    arrived a{m->source, static_cast<int>(static_cast<int64_t>(m->args[0])), std::vector<char>(p, p + m->payload_size)};
    mailbox &b = box();
    std::lock_guard<std::mutex> hold(b.lock);
    b.waiting.push_back(std::move(a));
}

void forget_messages() {
    mailbox &b = box();
    std::lock_guard<std::mutex> hold(b.lock);
    b.waiting.clear();
}

}  // namespace ccs::armci

using namespace ccs::armci;

extern "C" {
void armci_msg_snd(int tag, void *buffer, int len, int to) {
    const char *call = "armci_msg_snd";
    const process_state &s = ready(call);
    if (!valid_proc(s, to)) fail(call, "process " + std::to_string(to) + " is not in " + proc_range(s));
    if (len < 0 || (len > 0 && !buffer)) fail(call, "the buffer is NULL or its length negative");
    const uint64_t arg = static_cast<uint64_t>(static_cast<int64_t>(tag));
    // Without a completion CCS copies what it must: the buffer is free on return.
    check(call, ccs_am_send(s.context, to, message_handler_id, &arg, 1, buffer, static_cast<size_t>(len), nullptr));
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from) {
    receive("armci_msg_rcv", tag, buffer, buflen, msglen, from);
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen) {
    return receive("armci_msg_rcvany", tag, buffer, buflen, msglen, -1);
}
}
