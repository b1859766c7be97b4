// Finding and opening plugin shared objects (libccs_plugin_<name>.so).
// Search order: CCS_PLUGIN_PATH entries, then the `ccs` directory beside
// libccs.so (build tree and install tree alike), then the install directory.
#pragma once

#include "core/plugin/plugin_table.hpp"

#include <ccs/ccs.h>

#include <memory>
#include <string>
#include <vector>

namespace ccs {

struct plugin_file {
    std::string name;
    std::string path;
};

std::vector<std::string> plugin_search_dirs();

// Every plugin file in the search directories; the first file of a name wins.
std::vector<plugin_file> plugin_discover();

// Looks for one plugin by name; false if no directory has it.
bool plugin_find(const std::string &name, plugin_file &out);

// A dlopen()ed plugin with its adapted table. Closes the library when
// destroyed.
class loaded_plugin {
public:
    // On failure returns the status (PLUGIN_LOAD or PLUGIN_ABI) and a reason.
    static ccs_status_t open(const plugin_file &file, std::unique_ptr<loaded_plugin> &out,
                             std::string &reason);
    ~loaded_plugin();
    loaded_plugin(const loaded_plugin &) = delete;
    loaded_plugin &operator=(const loaded_plugin &) = delete;

    const plugin_table &table() const { return table_; }
    const plugin_file &file() const { return file_; }

private:
    loaded_plugin() = default;
    void *handle_ = nullptr;
    plugin_file file_;
    plugin_table table_;
};

}  // namespace ccs
