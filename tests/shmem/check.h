/* What the OpenSHMEM test programs share: CHECK prints where and what
 * failed, with the PE, and ends the job with exit code 1. */
#ifndef SHMEM_TEST_CHECK_H
#define SHMEM_TEST_CHECK_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "PE %d: %s:%d: CHECK(%s) failed: ", shmem_my_pe(), __FILE__, \
                    __LINE__, #cond);                                                      \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            fflush(stderr);                                                                \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#endif
