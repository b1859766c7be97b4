#include "core/plugin/plugin_loader.hpp"

#include "util/params.hpp"

#include <algorithm>
#include <set>

#include <climits>
#include <cstdlib>

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#ifndef CCS_INSTALL_PLUGIN_DIR
#define CCS_INSTALL_PLUGIN_DIR ""
#endif

namespace ccs {
namespace {

constexpr const char *prefix = "libccs_plugin_";
constexpr const char *suffix = ".so";

// Any object inside libccs.so names the file it was loaded from.
const char library_anchor = 0;

std::string library_dir() {
    Dl_info info{};
    if (dladdr(&library_anchor, &info) == 0 || !info.dli_fname)
        return "";
    // Canonical, so messages and ccs_info show /prefix/lib/ccs rather than
    // the loader's /prefix/bin/../lib/ccs.
    char resolved[PATH_MAX];
    std::string path = ::realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool is_regular_file(const std::string &path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::vector<std::string> plugin_search_dirs() {
    std::vector<std::string> dirs;
    const std::string env = param_get("CCS_PLUGIN_PATH", "", "");
    size_t pos = 0;
    while (pos <= env.size()) {
        const size_t end = std::min(env.find(':', pos), env.size());
        if (end > pos) dirs.push_back(env.substr(pos, end - pos));
        pos = end + 1;
    }
    const std::string beside = library_dir();
    if (!beside.empty()) dirs.push_back(beside + "/ccs");
    const std::string installed = CCS_INSTALL_PLUGIN_DIR;
    if (!installed.empty()) dirs.push_back(installed);
    // Keep the first occurrence of each directory.
    std::vector<std::string> unique;
    for (const auto &d : dirs)
        if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
    return unique;
}

std::vector<plugin_file> plugin_discover() {
    std::vector<plugin_file> found;
    std::set<std::string> names;
    const std::string pre = prefix, suf = suffix;
    for (const auto &dir : plugin_search_dirs()) {
        DIR *d = ::opendir(dir.c_str());
        if (!d) continue;
        std::vector<std::string> entries;
        while (dirent *e = ::readdir(d)) entries.emplace_back(e->d_name);
        ::closedir(d);
        std::sort(entries.begin(), entries.end());
        for (const auto &f : entries) {
            if (f.size() <= pre.size() + suf.size() || f.compare(0, pre.size(), pre) != 0 ||
                f.compare(f.size() - suf.size(), suf.size(), suf) != 0)
                continue;
            const std::string name = f.substr(pre.size(), f.size() - pre.size() - suf.size());
            const std::string path = dir + "/" + f;
            if (!is_regular_file(path) || !names.insert(name).second) continue;
            found.push_back({name, path});
        }
    }
    return found;
}

bool plugin_find(const std::string &name, plugin_file &out) {
    for (const auto &dir : plugin_search_dirs()) {
        const std::string path = dir + "/" + prefix + name + suffix;
        if (is_regular_file(path)) {
            out = {name, path};
            return true;
        }
    }
    return false;
}

ccs_status_t loaded_plugin::open(const plugin_file &file, std::unique_ptr<loaded_plugin> &out,
                                 std::string &reason) {
    std::unique_ptr<loaded_plugin> p(new loaded_plugin());
    p->file_ = file;
    dlerror();
    p->handle_ = ::dlopen(file.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!p->handle_) {
        const char *err = dlerror();
        reason = std::string("dlopen failed: ") + (err ? err : "unknown error");
        return CCS_ERR_PLUGIN_LOAD;
    }
    // Newest ABI first; a v2 symbol would be probed here before v1, with
    // its shim to plugin_table beside plugin_table_from_v1.
    void *sym = ::dlsym(p->handle_, CCS_PLUGIN_SYMBOL_V1);
    if (!sym) {
        reason = std::string("no symbol ") + CCS_PLUGIN_SYMBOL_V1 + " (not a CCS plugin)";
        return CCS_ERR_PLUGIN_LOAD;
    }
    const auto *v1 = static_cast<const ccs_plugin_v1_t *>(sym);
    if (!plugin_table_from_v1(*v1, p->table_, reason)) return CCS_ERR_PLUGIN_ABI;
    if (p->table_.name != file.name) {
        reason = "declares name '" + p->table_.name + "' but the file is named for '" + file.name + "'";
        return CCS_ERR_PLUGIN_LOAD;
    }
    out = std::move(p);
    return CCS_OK;
}

loaded_plugin::~loaded_plugin() {
    if (handle_) ::dlclose(handle_);
}

}  // namespace ccs
