/* The C API from plain C99: compiles with -std=c99 -pedantic -Werror and
 * runs as a multi-process job (under ccsrun, Open MPI's mpirun or MPICH's
 * mpiexec). Usage: c_api_test [expected-size] */
#include <ccs/am_large.h>
#include <ccs/ccs.h>
#include <ccs/datadesc.h>
#include <ccs/rma.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        ++checks;                                                                         \
        if (!(cond)) {                                                                    \
            ++failures;                                                                   \
            fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond, \
                    ccs_last_error());                                                    \
        }                                                                                 \
    } while (0)

struct tally {
    int received;
    uint64_t sum;
};

static void on_hello(const ccs_am_message_t *m, void *arg) {
    struct tally *t = (struct tally *)arg;
    t->received++;
    t->sum += m->args[0];
    if (m->payload_size != 6 || memcmp(m->payload, "hello", 6) != 0) ++failures;
}

/* Large messages from C: the header handler accepts into `in`. It may run
 * as early as inside ccs_context_create (a faster peer sends at once), so
 * `arrived` counts from zero before that. */
static unsigned char in[100000];
static ccs_counter_t arrived;
static void on_large(const ccs_am_header_t *h, void *arg) {
    ccs_completion_t c = {NULL, NULL, NULL};
    (void)arg;
    c.counter = &arrived;
    if (ccs_am_accept(h->token, in, sizeof in, &c) != CCS_OK) ++failures;
}

int main(int argc, char **argv) {
    int rank = -1, size = -1, t, i;
    struct tally tally = {0, 0};
    ccs_init_params_t init;
    int level = -1;
    ccs_am_handler_entry_t handlers[1];
    ccs_am_header_handler_entry_t headers[1];
    ccs_context_params_t params;
    ccs_context_t ctx;

    CHECK(ccs_rank(&rank) == CCS_ERR_NOT_INITIALIZED);
    memset(&init, 0, sizeof init);
    init.struct_size = sizeof init;
    init.thread_level = CCS_THREAD_SERIALIZED;
    CHECK(ccs_init(&init) == CCS_OK);
    CHECK(ccs_query_thread(&level) == CCS_OK && level >= CCS_THREAD_SERIALIZED);
    CHECK(ccs_rank(&rank) == CCS_OK);
    CHECK(ccs_size(&size) == CCS_OK);
    if (argc > 1) CHECK(size == atoi(argv[1]));

    handlers[0].id = 4;
    handlers[0].handler = on_hello;
    handlers[0].arg = &tally;
    memset(&params, 0, sizeof params);
    params.struct_size = sizeof params;
    params.name = "c99";
    params.handlers = handlers;
    params.num_handlers = 1;
    headers[0].id = 5;
    headers[0].handler = on_large;
    headers[0].arg = NULL;
    params.header_handlers = headers;
    params.num_header_handlers = 1;
    CHECK(ccs_context_create(&params, &ctx) == CCS_OK);
    {  /* a large message to the next rank, sent at once: its header handler exists */
        static unsigned char out[100000];
        ccs_counter_t sent;
        ccs_completion_t c = {NULL, NULL, NULL};
        c.counter = &sent;
        memset(out, 7, sizeof out);
        CHECK(ccs_counter_init(&sent) == CCS_OK);
        CHECK(ccs_am_send_large(ctx, (rank + 1) % size, 5, NULL, 0, out, sizeof out, &c) == CCS_OK);
        CHECK(ccs_counter_wait(&sent, 1) == CCS_OK);
        CHECK(ccs_counter_wait(&arrived, 1) == CCS_OK);
        CHECK(in[0] == 7 && in[sizeof in - 1] == 7);
    }

    for (t = 0; t < size; ++t) {
        uint64_t arg = (uint64_t)rank + 1;
        CHECK(ccs_am_send(ctx, t, 4, &arg, 1, "hello", 6, NULL) == CCS_OK);
    }
    for (i = 0; i < 100000000 && tally.received < size; ++i) CHECK(ccs_progress() == CCS_OK);
    CHECK(tally.received == size);
    CHECK(tally.sum == (uint64_t)size * (uint64_t)(size + 1) / 2);
    CHECK(ccs_am_send(ctx, size, 4, NULL, 0, NULL, 0, NULL) == CCS_ERR_INVALID_RANK);
    CHECK(strstr(ccs_strerror(CCS_ERR_INVALID_RANK), "CCS_ERR_INVALID_RANK") != NULL);
    {  /* RMA from C: a put to itself through a packed and unpacked key */
        static uint64_t window[4];
        uint64_t value = 99, back = 0;
        unsigned char key[512];
        size_t key_len = sizeof key;
        ccs_mem_t mem;
        ccs_rkey_t rk;
        ccs_counter_t done;
        ccs_completion_t c = {NULL, NULL, NULL};
        c.counter = &done;
        CHECK(ccs_counter_init(&done) == CCS_OK);
        CHECK(ccs_mem_register(window, sizeof window, &mem) == CCS_OK);
        CHECK(ccs_rkey_pack(mem, key, &key_len) == CCS_OK);
        CHECK(ccs_rkey_unpack(rank, key, key_len, &rk) == CCS_OK);
        CHECK(ccs_put(ctx, rank, &value, 8, (uint64_t)(uintptr_t)&window[1], rk, &c) == CCS_OK);
        CHECK(ccs_counter_wait(&done, 1) == CCS_OK);
        CHECK(ccs_get_datadesc(ctx, rank, &back, 8, CCS_BYTE, (uint64_t)(uintptr_t)&window[1], 8, CCS_BYTE, rk, &c) ==
              CCS_OK);
        CHECK(ccs_fence_all(ctx) == CCS_OK);
        CHECK(back == 99 && window[1] == 99);
        CHECK(ccs_wait_until(&window[1], CCS_UINT64, CCS_CMP_EQ, 99) == CCS_OK);
        CHECK(ccs_rkey_release(rk) == CCS_OK);
        CHECK(ccs_mem_deregister(mem) == CCS_OK);
        CHECK(ccs_mem_deregister(mem) == CCS_ERR_INVALID_MEMORY);
    }
    CHECK(ccs_barrier() == CCS_OK);
    CHECK(ccs_context_destroy(ctx) == CCS_OK);
    CHECK(ccs_am_send(ctx, 0, 4, NULL, 0, NULL, 0, NULL) == CCS_ERR_INVALID_CONTEXT);
    CHECK(ccs_finalize() == CCS_OK);
    CHECK(ccs_barrier() == CCS_ERR_NOT_INITIALIZED);
    CHECK(ccs_wait_until(&size, CCS_INT32, CCS_CMP_EQ, 0) == CCS_ERR_NOT_INITIALIZED);
    printf("rank %d of %d: %d passed, %d failed\n", rank, size, checks - failures, failures);
    return failures ? 1 : 0;
}
