/* Two processes bounce an 8-byte active message and print the one-way
 * latency. Run: ccsrun -n 2 ccs_pingpong [iterations] [bytes] */
#include <ccs/ccs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PING 1

static volatile int arrived; /* set by the handler, read by the loop */
static ccs_context_t ctx;

static void on_ping(const ccs_am_message_t *m, void *arg) {
    (void)m;
    (void)arg;
    arrived++;
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int check(ccs_status_t st, const char *what) {
    if (st != CCS_OK) {
        fprintf(stderr, "%s: %s (%s)\n", what, ccs_strerror(st), ccs_last_error());
        exit(1);
    }
    return 0;
}

static void wait_for(int count) {
    while (arrived < count) check(ccs_progress(), "ccs_progress");
}

int main(int argc, char **argv) {
    const int iterations = argc > 1 ? atoi(argv[1]) : 100000;
    const size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 8;
    int rank, size, i;
    ccs_am_handler_entry_t handlers[1];
    ccs_context_params_t params;
    char *buf = calloc(bytes ? bytes : 1, 1);

    check(ccs_init(NULL), "ccs_init");
    check(ccs_rank(&rank), "ccs_rank");
    check(ccs_size(&size), "ccs_size");
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "run with 2 processes: ccsrun -n 2 %s\n", argv[0]);
        ccs_finalize();
        return 2;
    }
    /* Handlers given at creation exist on every process before any process
     * returns from ccs_context_create, so the first ping cannot be early. */
    handlers[0].id = PING;
    handlers[0].handler = on_ping;
    handlers[0].arg = NULL;
    memset(&params, 0, sizeof params);
    params.struct_size = sizeof params;
    params.name = "pingpong";
    params.handlers = handlers;
    params.num_handlers = 1;
    check(ccs_context_create(&params, &ctx), "ccs_context_create");

    const int warmup = iterations / 10 + 10;
    double start = 0;
    for (i = 0; i < warmup + iterations; i++) {
        if (i == warmup) start = now_us();
        if (rank == 0) {
            check(ccs_am_send(ctx, 1, PING, NULL, 0, buf, bytes, NULL), "ccs_am_send");
            wait_for(i + 1);
        } else {
            wait_for(i + 1);
            check(ccs_am_send(ctx, 0, PING, NULL, 0, buf, bytes, NULL), "ccs_am_send");
        }
    }
    const double elapsed = now_us() - start;
    if (rank == 0)
        printf("ccs am ping-pong: %zu bytes, %d round trips, one-way latency %.3f us\n", bytes, iterations,
               elapsed / iterations / 2);
    check(ccs_context_destroy(ctx), "ccs_context_destroy");
    check(ccs_finalize(), "ccs_finalize");
    free(buf);
    return 0;
}
