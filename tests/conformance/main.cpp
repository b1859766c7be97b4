// The conformance suite runs inside one CCS job: ccsrun (or mpirun) starts
// it with N processes and CCS_TRANSPORT names the plugin under test.
#include "harness.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
// Ranks other than 0 report only failures, so the log stays readable.
class failures_only final : public testing::EmptyTestEventListener {
    void OnTestPartResult(const testing::TestPartResult &r) override {
        if (!r.failed()) return;
        std::fprintf(stderr, "rank %d: %s:%d: Failure\n%s\n", conformance::rank(), r.file_name() ? r.file_name() : "?",
                     r.line_number(), r.summary());
    }
    void OnTestEnd(const testing::TestInfo &t) override {
        if (t.result()->Failed())
            std::fprintf(stderr, "rank %d: [  FAILED  ] %s.%s\n", conformance::rank(), t.test_suite_name(), t.name());
    }
};

// Every rank's failures again at the end, where a log that keeps only its
// head and tail still shows them: each failed test and its first failure.
void print_failures() {
    const testing::UnitTest &all = *testing::UnitTest::GetInstance();
    for (int s = 0; s < all.total_test_suite_count(); ++s) {
        const testing::TestSuite &suite = *all.GetTestSuite(s);
        for (int t = 0; t < suite.total_test_count(); ++t) {
            const testing::TestInfo &test = *suite.GetTestInfo(t);
            const testing::TestResult &result = *test.result();
            if (!result.Failed()) continue;
            std::string first;
            for (int p = 0; p < result.total_part_count() && first.empty(); ++p) {
                const testing::TestPartResult &part = result.GetTestPartResult(p);
                if (part.failed())
                    first = std::string(part.file_name() ? part.file_name() : "?") + ":" +
                            std::to_string(part.line_number()) + ": " + part.summary();
            }
            std::fprintf(stderr, "rank %d: FAILED %s.%s: %s\n", conformance::rank(), suite.name(), test.name(),
                         first.c_str());
        }
    }
}
}  // namespace

int main(int argc, char **argv) {
    testing::InitGoogleTest(&argc, argv);
    // The level the job starts at, as a runtime's first ccs_init sets it
    // (plugins choose their locking then); tests may raise it later.
    ccs_init_params_t params{};
    params.struct_size = sizeof params;
    if (const char *level = std::getenv("CCS_TEST_THREAD_LEVEL")) params.thread_level = std::atoi(level);
    const ccs_status_t st = ccs_init(&params);
    if (st != CCS_OK) {
        std::fprintf(stderr, "ccs_init: %s: %s\n", ccs_strerror(st), ccs_last_error());
        return 1;
    }
    // Only rank 0 prints the progress listing; failures print everywhere.
    if (conformance::rank() != 0) {
        auto &listeners = testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new failures_only);
    }
    const int result = RUN_ALL_TESTS();
    if (result != 0) {
        print_failures();
        std::fprintf(stderr, "rank %d: conformance tests FAILED\n", conformance::rank());
    }
    const ccs_status_t fin = ccs_finalize();
    if (fin != CCS_OK) std::fprintf(stderr, "ccs_finalize: %s\n", ccs_strerror(fin));
    return result != 0 || fin != CCS_OK;
}
