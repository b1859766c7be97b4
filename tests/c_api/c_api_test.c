/* The C API from plain C99: compiles with -std=c99 -pedantic -Werror and
 * runs as a multi-process job (under ccsrun, Open MPI's mpirun or MPICH's
 * mpiexec). Usage: c_api_test [expected-size] */
#include <ccs/ccs.h>

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

int main(int argc, char **argv) {
    int rank = -1, size = -1, t, i;
    struct tally tally = {0, 0};
    ccs_am_handler_entry_t handlers[1];
    ccs_context_params_t params;
    ccs_context_t ctx;

    CHECK(ccs_rank(&rank) == CCS_ERR_NOT_INITIALIZED);
    CHECK(ccs_init(NULL) == CCS_OK);
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
    CHECK(ccs_context_create(&params, &ctx) == CCS_OK);

    for (t = 0; t < size; ++t) {
        uint64_t arg = (uint64_t)rank + 1;
        CHECK(ccs_am_send(ctx, t, 4, &arg, 1, "hello", 6, NULL) == CCS_OK);
    }
    for (i = 0; i < 100000000 && tally.received < size; ++i) CHECK(ccs_progress() == CCS_OK);
    CHECK(tally.received == size);
    CHECK(tally.sum == (uint64_t)size * (uint64_t)(size + 1) / 2);
    CHECK(ccs_am_send(ctx, size, 4, NULL, 0, NULL, 0, NULL) == CCS_ERR_INVALID_RANK);
    CHECK(strstr(ccs_strerror(CCS_ERR_INVALID_RANK), "CCS_ERR_INVALID_RANK") != NULL);
    CHECK(ccs_barrier() == CCS_OK);
    CHECK(ccs_context_destroy(ctx) == CCS_OK);
    CHECK(ccs_am_send(ctx, 0, 4, NULL, 0, NULL, 0, NULL) == CCS_ERR_INVALID_CONTEXT);
    CHECK(ccs_finalize() == CCS_OK);
    CHECK(ccs_barrier() == CCS_ERR_NOT_INITIALIZED);
    printf("rank %d of %d: %d passed, %d failed\n", rank, size, checks - failures, failures);
    return failures ? 1 : 0;
}
