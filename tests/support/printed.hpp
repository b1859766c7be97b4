// What one of CCS's printing calls (ccs_info_print, ccs_stats_print) writes,
// as a string, for tests that look for a line in it.
#pragma once

#include <ccs/ccs.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

inline std::string printed(ccs_status_t (*print)(FILE *)) {
    char *text = nullptr;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) {
        ADD_FAILURE() << "open_memstream failed";
        return {};
    }
    EXPECT_EQ(print(out), CCS_OK) << ccs_last_error();
    std::fclose(out);
    std::string result(text, size);
    std::free(text);
    return result;
}
