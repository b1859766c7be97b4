/*
 * Large active messages: the target decides where the payload goes.
 *
 * A header handler runs first, in the context's message order (with the
 * context's ordinary messages), and sees the arguments, the sender and the
 * payload's size. It then accepts (names a destination and a completion),
 * refuses, or does neither: the message is deferred, and the token decides
 * later, from outside the handler (when the matching receive is posted).
 *
 *   static void on_header(const ccs_am_header_t *h, void *arg) {
 *       struct receive *r = match(h->args[0]);
 *       if (r) ccs_am_accept(h->token, r->buffer, r->length, &r->done);
 *       else remember(h->token, h->payload_size);   // ccs_am_accept later
 *   }
 *   const ccs_am_header_handler_entry_t headers[] = {{TAG_DATA, on_header, NULL}};
 *   ccs_context_params_t p = {sizeof p, 0, "rendezvous", NULL, 0, headers, 1};
 *   ccs_context_create(&p, &ctx);   // or ccs_am_header_handler_register, then ccs_barrier
 *   ...
 *   ccs_am_send_large(ctx, peer, TAG_DATA, &tag, 1, buf, len, &sent);
 *
 * The payload moves from the sender's memory straight into the
 * destination: on one node read by the target where it maps the sender's
 * memory, else written by the sender once accepted (cross-memory attach,
 * or a copy into a destination it maps); a datadesc source read with the
 * transport's get, or its emulation; or pushed by the sender once
 * accepted, which the transport lands in place where it can (UCX's
 * rendezvous) and the target otherwise copies into place as it comes. The sender's buffer is read in place,
 * never copied, until its completion runs. Payloads up to
 * CCS_AM_EAGER_LIMIT bytes (and no larger than the route's packet) travel
 * with the header instead: header->payload points at them during the
 * handler, and accepting copies them. So one handler serves every size.
 *
 * The sender's completion reports the outcome: CCS_OK once the payload is
 * in the destination, CCS_ERR_REFUSED when the target refused it (or its
 * accept failed: destination too small, datadesc of another size),
 * CCS_ERR_UNKNOWN_HANDLER without a header handler at the target,
 * CCS_ERR_CANCELED when the target destroyed the context before deciding,
 * CCS_ERR_PEER_FAILED when the target died. The target's completion runs
 * once the data is there, or with CCS_ERR_PEER_FAILED when the sender died
 * during the transfer. Data completions may finish in any order: the
 * completion's arg says which message it is.
 *
 * An ordinary ccs_am_send to a header handler reaches it too, its payload
 * in hand; a refusal is then told to no one (statistic am.large_refused).
 */
#ifndef CCS_AM_LARGE_H
#define CCS_AM_LARGE_H

#include <ccs/ccs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Names one message whose header handler ran and that is not decided yet.
 * Good for one ccs_am_accept, ccs_am_accept_datadesc or ccs_am_refuse;
 * after that, or once its context is destroyed, CCS_ERR_INVALID_ARG. */
typedef struct ccs_am_token {
    uint64_t id;
} ccs_am_token_t;

typedef struct ccs_am_header {
    ccs_context_t context;
    int source;            /* sender's rank                                  */
    uint16_t handler;      /* id the message was sent to                     */
    size_t nargs;
    const uint64_t *args;  /* nargs words, valid only during the handler     */
    size_t payload_size;   /* bytes the message carries                      */
    /* The bytes, when they came with the header: valid only during the
     * handler. NULL when they wait at the sender until accepted. */
    const void *payload;
    ccs_am_token_t token;
} ccs_am_header_t;

/* A header handler (ccs_am_header_fn, declared in ccs.h so that
 * ccs_context_params_t can carry header handlers) runs where ordinary
 * handlers run (ccs_progress, waits, or the progress thread as the
 * context's flags say). It may accept or refuse at once. */

/* Registers a header handler under an id of the context's handler table
 * (the same ids ordinary handlers use; ccs_am_handler_deregister removes
 * either). CCS_ERR_HANDLER_IN_USE if the id is taken. Peers may send to it
 * after a ccs_barrier; header handlers given in ccs_context_params_t exist
 * everywhere when ccs_context_create returns. */
CCS_API ccs_status_t ccs_am_header_handler_register(ccs_context_t context, uint16_t handler_id,
                                                    ccs_am_header_fn handler, void *arg);

/* Sends a message of any size to a header handler. `completion` is
 * required (a callback, a counter or both): the payload stays untouched
 * until it runs. Never blocks. */
CCS_API ccs_status_t ccs_am_send_large(ccs_context_t context, int target, uint16_t handler_id,
                                       const uint64_t *args, size_t nargs, const void *payload,
                                       size_t payload_size, const ccs_completion_t *completion);
/* The same from `count` elements of the committed datadesc `dd` at
 * `base`; the target reads the pieces in place. */
CCS_API ccs_status_t ccs_am_send_large_datadesc(ccs_context_t context, int target, uint16_t handler_id,
                                                const uint64_t *args, size_t nargs, const void *base,
                                                int64_t count, ccs_datadesc_t dd,
                                                const ccs_completion_t *completion);

/* Accepts the message into `length` bytes at `destination` (at least the
 * payload's size). `completion` (may be NULL) completes once the payload
 * is there. A destination too small fails the message at both ends
 * (CCS_ERR_INVALID_ARG here, CCS_ERR_REFUSED at the sender); the token is
 * used up either way. Within the header handler or later. */
CCS_API ccs_status_t ccs_am_accept(ccs_am_token_t token, void *destination, size_t length,
                                   const ccs_completion_t *completion);
/* Accepts into `count` elements of the committed datadesc `dd` at `base`,
 * which must hold exactly the payload's size. */
CCS_API ccs_status_t ccs_am_accept_datadesc(ccs_am_token_t token, void *base, int64_t count, ccs_datadesc_t dd,
                                            const ccs_completion_t *completion);
/* Refuses the message: nothing is written here, and the sender's
 * completion reports CCS_ERR_REFUSED. */
CCS_API ccs_status_t ccs_am_refuse(ccs_am_token_t token);

#ifdef __cplusplus
}
#endif
#endif /* CCS_AM_LARGE_H */
