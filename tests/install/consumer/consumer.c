/* A program outside the CCS tree, built against the installed package. */
#include <ccs/ccs.h>

#include <stdio.h>

static int got;
static void on_msg(const ccs_am_message_t *m, void *arg) {
    (void)m;
    (void)arg;
    got++;
}

int main(void) {
    int rank, size, peer;
    ccs_am_handler_entry_t h[1];
    ccs_context_params_t p = {0};
    ccs_context_t ctx;
    h[0].id = 1;
    h[0].handler = on_msg;
    h[0].arg = NULL;
    p.struct_size = sizeof p;
    p.handlers = h;
    p.num_handlers = 1;
    if (ccs_init(NULL) != CCS_OK || ccs_rank(&rank) != CCS_OK || ccs_size(&size) != CCS_OK ||
        ccs_context_create(&p, &ctx) != CCS_OK) {
        fprintf(stderr, "consumer: %s\n", ccs_last_error());
        return 1;
    }
    peer = (rank + 1) % size;
    if (ccs_am_send(ctx, peer, 1, NULL, 0, NULL, 0, NULL) != CCS_OK) return 1;
    while (got < 1) ccs_progress();
    ccs_finalize();
    return 0;
}
