// The software fabric's objects and how work moves between them.
#include "soft_fabric.hpp"
#include "soft_objects.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ccs::verbs::testing {

namespace {

ibv_gid gid_of(uint16_t lid, bool v2) {
    ibv_gid g{};
    g.raw[0] = 0xfe;
    g.raw[1] = 0x80;
    g.raw[14] = static_cast<uint8_t>(lid >> 8);
    g.raw[15] = static_cast<uint8_t>(lid);
    g.raw[13] = v2 ? 2 : 1;
    return g;
}

int fail(int err) {
    errno = err;
    return err;
}

}  // namespace

// ---- host: objects ------------------------------------------------------

soft_host::soft_host(soft_fabric &fabric, std::vector<soft_device_spec> devices)
    : fabric_(fabric), devices_(std::move(devices)) {
    for (soft_device_spec &d : devices_)
        if (d.lid == 0 && !d.ethernet) d.lid = fabric_.next_lid_++;
        else if (d.ethernet) d.lid = fabric_.next_lid_++;  // names its GIDs
}

soft_host::~soft_host() = default;

size_t soft_host::live_objects() const { return contexts_ + pds_ + mrs_ + channels_ + cqs_ + srqs_ + qps_ + ahs_; }

std::vector<device_entry> soft_host::list_devices(std::string &why) {
    std::vector<device_entry> out;
    for (const soft_device_spec &d : devices_) out.push_back({d.name, d.near_cpus});
    if (out.empty()) why = no_device_reason;
    return out;
}

ibv_context *soft_host::open_device(const std::string &name) {
    for (const soft_device_spec &d : devices_)
        if (d.name == name) {
            auto *c = new soft_context{};
            c->host = this;
            c->spec = &d;
            ++contexts_;
            return c;
        }
    errno = ENODEV;
    return nullptr;
}

int soft_host::close_device(ibv_context *context) {
    delete static_cast<soft_context *>(context);
    --contexts_;
    return 0;
}

int soft_host::query_device(ibv_context *context, ibv_device_attr &attr) {
    const soft_device_spec &d = *static_cast<soft_context *>(context)->spec;
    attr = ibv_device_attr{};
    attr.phys_port_cnt = 1;
    attr.atomic_cap = d.atomics ? IBV_ATOMIC_HCA : IBV_ATOMIC_NONE;
    attr.max_sge = d.max_sge;
    attr.max_qp_wr = 32768;
    attr.max_srq = d.max_srq_wr > 0 ? 1024 : 0;
    attr.max_srq_wr = d.max_srq_wr;
    attr.max_qp_rd_atom = 16;
    attr.max_cqe = d.max_cqe;
    attr.max_mr = d.max_mr;
    attr.max_mr_size = uint64_t{1} << 40;
    return 0;
}

int soft_host::query_port(ibv_context *context, uint8_t port, ibv_port_attr &attr) {
    const soft_device_spec &d = *static_cast<soft_context *>(context)->spec;
    if (port != 1) return fail(EINVAL);
    attr = ibv_port_attr{};
    attr.state = d.state;
    attr.link_layer = d.ethernet ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
    attr.lid = d.ethernet ? 0 : d.lid;
    attr.active_mtu = IBV_MTU_4096;
    attr.max_msg_sz = d.max_message;
    attr.gid_tbl_len = d.ethernet && d.gids ? 2 : 1;
    return 0;
}

int soft_host::query_gid(ibv_context *context, uint8_t port, uint32_t index, ibv_gid_entry &entry) {
    const soft_device_spec &d = *static_cast<soft_context *>(context)->spec;
    if (port != 1 || index > 1 || (!d.ethernet && index > 0) || (d.ethernet && !d.gids)) return fail(EINVAL);
    entry = ibv_gid_entry{};
    entry.gid_index = index;
    entry.port_num = port;
    if (!d.ethernet) {
        entry.gid = gid_of(d.lid, false);
        entry.gid_type = IBV_GID_TYPE_IB;
    } else if (index == 0) {
        entry.gid = gid_of(d.lid, false);
        entry.gid_type = IBV_GID_TYPE_ROCE_V1;
    } else {
        entry.gid = gid_of(d.lid, true);
        entry.gid_type = d.roce_v2 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
    }
    return 0;
}

ibv_pd *soft_host::alloc_pd(ibv_context *context) {
    auto *pd = new ibv_pd{};
    pd->context = context;
    ++pds_;
    return pd;
}

int soft_host::dealloc_pd(ibv_pd *pd) {
    delete pd;
    --pds_;
    return 0;
}

ibv_mr *soft_host::reg_mr(ibv_pd *pd, void *addr, size_t length, int access) {
    if (fail_next_reg_mr) {
        errno = fail_next_reg_mr;
        fail_next_reg_mr = 0;
        return nullptr;
    }
    const int writes = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
    for (const auto &[start, n] : read_only) {
        const auto *a = static_cast<const uint8_t *>(addr), *s = static_cast<const uint8_t *>(start);
        if ((access & writes) && a < s + n && s < a + length) {
            errno = EFAULT;
            return nullptr;
        }
    }
    auto *mr = new soft_mr{};
    mr->context = pd->context;
    mr->pd = pd;
    mr->addr = addr;
    mr->length = length;
    mr->lkey = mr->rkey = fabric_.next_key_++;
    mr->host = this;
    mr->access = access;
    fabric_.mrs_[mr->lkey] = mr;
    ++mrs_;
    return mr;
}

int soft_host::dereg_mr(ibv_mr *mr) {
    fabric_.mrs_.erase(mr->lkey);
    delete static_cast<soft_mr *>(mr);
    --mrs_;
    return 0;
}

ibv_comp_channel *soft_host::create_comp_channel(ibv_context *context) {
    auto *ch = new soft_channel{};
    ch->context = context;
    ch->fd = eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC);
    ++channels_;
    return ch;
}

int soft_host::destroy_comp_channel(ibv_comp_channel *channel) {
    ::close(channel->fd);
    delete static_cast<soft_channel *>(channel);
    --channels_;
    return 0;
}

ibv_cq *soft_host::create_cq(ibv_context *context, int entries, ibv_comp_channel *channel) {
    const soft_device_spec &d = *static_cast<soft_context *>(context)->spec;
    if (entries < 1 || entries > d.max_cqe) {
        errno = EINVAL;
        return nullptr;
    }
    auto *cq = new soft_cq{};
    cq->context = context;
    cq->channel = channel;
    cq->cqe = entries;
    ++cqs_;
    return cq;
}

int soft_host::destroy_cq(ibv_cq *cq) {
    delete static_cast<soft_cq *>(cq);
    --cqs_;
    return 0;
}

int soft_host::req_notify_cq(ibv_cq *cq) {
    static_cast<soft_cq *>(cq)->armed = true;
    return 0;
}

int soft_host::get_cq_event(ibv_comp_channel *channel, ibv_cq *&cq) {
    auto *ch = static_cast<soft_channel *>(channel);
    if (ch->events.empty()) {
        errno = EAGAIN;
        return -1;
    }
    uint64_t one;
    if (::read(ch->fd, &one, sizeof one) != sizeof one) return -1;
    cq = ch->events.front();
    ch->events.pop_front();
    return 0;
}

void soft_host::ack_cq_events(ibv_cq *, unsigned) {}

int soft_host::poll_cq(ibv_cq *cq, int entries, ibv_wc *wc) {
    fabric_.pump();
    auto *c = static_cast<soft_cq *>(cq);
    int n = 0;
    while (n < entries && !c->entries.empty()) {
        const cq_entry &e = c->entries.front();
        wc[n++] = e.wc;
        if (e.qp) e.qp->outstanding -= e.releases;
        c->entries.pop_front();
    }
    return n;
}

ibv_srq *soft_host::create_srq(ibv_pd *pd, ibv_srq_init_attr &attr) {
    const soft_device_spec &d = *static_cast<soft_context *>(pd->context)->spec;
    if (attr.attr.max_wr == 0 || attr.attr.max_wr > static_cast<uint32_t>(d.max_srq_wr)) {
        errno = EINVAL;
        return nullptr;
    }
    auto *s = new soft_srq{};
    s->context = pd->context;
    s->pd = pd;
    s->max_wr = attr.attr.max_wr;
    ++srqs_;
    return s;
}

int soft_host::destroy_srq(ibv_srq *srq) {
    delete static_cast<soft_srq *>(srq);
    --srqs_;
    return 0;
}

int soft_host::post_srq_recv(ibv_srq *srq, ibv_recv_wr *wr, ibv_recv_wr *&bad) {
    auto *s = static_cast<soft_srq *>(srq);
    for (; wr; wr = wr->next) {
        if (s->wrs.size() >= s->max_wr) {
            bad = wr;
            return fail(ENOMEM);
        }
        s->wrs.push_back({wr->wr_id, std::vector<ibv_sge>(wr->sg_list, wr->sg_list + wr->num_sge)});
    }
    fabric_.pump();
    return 0;
}

ibv_qp *soft_host::create_qp(ibv_pd *pd, ibv_qp_init_attr &attr) {
    const soft_context &c = *static_cast<soft_context *>(pd->context);
    const soft_device_spec &d = *c.spec;
    if (attr.cap.max_inline_data > d.max_inline || attr.cap.max_send_sge > static_cast<uint32_t>(d.max_sge) ||
        (attr.qp_type != IBV_QPT_RC && attr.qp_type != IBV_QPT_UD)) {
        errno = EINVAL;
        return nullptr;
    }
    auto *q = new soft_qp{};
    q->context = pd->context;
    q->pd = pd;
    q->send_cq = attr.send_cq;
    q->recv_cq = attr.recv_cq;
    q->srq = attr.srq;
    q->qp_num = fabric_.next_qpn_++;
    q->state = IBV_QPS_RESET;
    q->qp_type = attr.qp_type;
    q->host = this;
    q->lid = d.lid;
    q->gid = gid_of(d.lid, d.ethernet && d.roce_v2);
    q->max_send_wr = attr.cap.max_send_wr;
    q->max_recv_wr = attr.cap.max_recv_wr;
    q->max_inline = attr.cap.max_inline_data;
    fabric_.qps_.push_back(q);
    ++qps_;
    return q;
}

int soft_host::modify_qp(ibv_qp *qp, ibv_qp_attr &attr, int mask) {
    auto *q = static_cast<soft_qp *>(qp);
    if (fail_next_modify) {
        const int err = fail_next_modify;
        fail_next_modify = 0;
        return err;
    }
    if (!(mask & IBV_QP_STATE)) return EINVAL;
    const bool rc = q->qp_type == IBV_QPT_RC;
    const auto has = [&](int bits) { return (mask & bits) == bits; };
    switch (attr.qp_state) {
    case IBV_QPS_INIT:
        if (q->state != IBV_QPS_RESET || !has(IBV_QP_PORT | IBV_QP_PKEY_INDEX) ||
            !has(rc ? IBV_QP_ACCESS_FLAGS : IBV_QP_QKEY))
            return EINVAL;
        q->access = attr.qp_access_flags;
        q->qkey = attr.qkey;
        break;
    case IBV_QPS_RTR:
        if (q->state != IBV_QPS_INIT) return EINVAL;
        if (rc) {
            if (!has(IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                     IBV_QP_MIN_RNR_TIMER))
                return EINVAL;
            q->dest_qpn = attr.dest_qp_num;
            q->dlid = attr.ah_attr.dlid;
            q->dgid = attr.ah_attr.grh.dgid;
            q->dglobal = attr.ah_attr.is_global != 0;
        }
        break;
    case IBV_QPS_RTS:
        if (q->state != IBV_QPS_RTR || !has(IBV_QP_SQ_PSN)) return EINVAL;
        if (rc && !has(IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
            return EINVAL;
        break;
    case IBV_QPS_ERR: fabric_.to_error(*q); return 0;
    default: return EINVAL;
    }
    q->state = attr.qp_state;
    return 0;
}

int soft_host::destroy_qp(ibv_qp *qp) {
    auto *q = static_cast<soft_qp *>(qp);
    auto &all = fabric_.qps_;
    all.erase(std::remove(all.begin(), all.end(), q), all.end());
    // Completions still queued no longer free its slots.
    for (ibv_cq *cq : {q->send_cq, q->recv_cq})
        for (cq_entry &e : static_cast<soft_cq *>(cq)->entries)
            if (e.qp == q) e.qp = nullptr;
    delete q;
    --qps_;
    return 0;
}

int soft_host::post_send(ibv_qp *qp, ibv_send_wr *wr, ibv_send_wr *&bad) {
    auto *q = static_cast<soft_qp *>(qp);
    for (; wr; wr = wr->next) {
        if (q->state != IBV_QPS_RTS) {
            bad = wr;
            return EINVAL;
        }
        if (q->outstanding >= q->max_send_wr) {
            bad = wr;
            return ENOMEM;
        }
        send_item it{};
        it.wr_id = wr->wr_id;
        it.opcode = wr->opcode;
        it.signalled = (wr->send_flags & IBV_SEND_SIGNALED) != 0;
        it.inlined = (wr->send_flags & IBV_SEND_INLINE) != 0;
        it.imm = wr->imm_data;
        if (it.inlined) {
            for (int i = 0; i < wr->num_sge; ++i) {
                const auto *b = reinterpret_cast<const uint8_t *>(wr->sg_list[i].addr);
                it.inline_bytes.insert(it.inline_bytes.end(), b, b + wr->sg_list[i].length);
            }
            if (it.inline_bytes.size() > q->max_inline) {
                bad = wr;
                return EINVAL;
            }
        } else {
            it.sges.assign(wr->sg_list, wr->sg_list + wr->num_sge);
        }
        if (q->qp_type == IBV_QPT_UD) {
            it.ah = static_cast<soft_ah *>(wr->wr.ud.ah);
            it.remote_qpn = wr->wr.ud.remote_qpn;
            it.remote_qkey = wr->wr.ud.remote_qkey;
        } else if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
            it.remote_addr = wr->wr.atomic.remote_addr;
            it.rkey = wr->wr.atomic.rkey;
            it.compare_add = wr->wr.atomic.compare_add;
            it.swap = wr->wr.atomic.swap;
        } else {
            it.remote_addr = wr->wr.rdma.remote_addr;
            it.rkey = wr->wr.rdma.rkey;
        }
        q->sq.push_back(std::move(it));
        ++q->outstanding;
    }
    fabric_.pump();
    return 0;
}

int soft_host::post_recv(ibv_qp *qp, ibv_recv_wr *wr, ibv_recv_wr *&bad) {
    auto *q = static_cast<soft_qp *>(qp);
    for (; wr; wr = wr->next) {
        if (q->rq.size() >= q->max_recv_wr) {
            bad = wr;
            return ENOMEM;
        }
        q->rq.push_back({wr->wr_id, std::vector<ibv_sge>(wr->sg_list, wr->sg_list + wr->num_sge)});
    }
    return 0;
}

ibv_ah *soft_host::create_ah(ibv_pd *pd, ibv_ah_attr &attr) {
    auto *ah = new soft_ah{};
    ah->context = pd->context;
    ah->pd = pd;
    ah->dlid = attr.dlid;
    ah->dgid = attr.grh.dgid;
    ah->global = attr.is_global != 0;
    ++ahs_;
    return ah;
}

int soft_host::destroy_ah(ibv_ah *ah) {
    delete static_cast<soft_ah *>(ah);
    --ahs_;
    return 0;
}

}  // namespace ccs::verbs::testing
