#!/usr/bin/env bash
# The layers, checked by what each file includes, and the size of library
# files. Below nothing: ccs/util. On util: ccs/datadesc. On both: ccs/core.
# Plugins see the plugin ABI and plugins/common only; plugins/common sees
# ccs/util. Client layers (clients/) see CCS's public headers only, as a
# runtime outside this tree would. Prints every violation; exits 1 if there
# is any.
set -euo pipefail
cd "$(dirname "$0")/../.."
bad=0
# check <folder> <what its quoted includes may start with (regex)> <why>
check() {
  local folder=$1 allowed=$2 why=$3 hits
  hits=$(grep -rnE '^\s*#\s*include\s+"' "$folder" --include='*.cpp' --include='*.hpp' --include='*.h' |
         grep -vE "#\s*include\s+\"($allowed)" || true)
  if [ -n "$hits" ]; then
    echo "$folder: $why"
    echo "$hits" | sed 's/^/  /'
    bad=1
  fi
}
same_folder='[a-z0-9_]+\.(hpp|h)"'
check ccs/util "$same_folder|util/" "util includes only util"
check ccs/datadesc "$same_folder|util/" "datadesc includes only datadesc and util"
check plugins/common "$same_folder|util/" "plugins/common includes only itself and util"
for plugin in plugins/*/; do
  case "$plugin" in plugins/common/) continue ;; esac
  check "${plugin%/}" "$same_folder|common/" "a plugin includes only its own files and plugins/common"
done
# Public headers a plugin may use: the ABI only.
hits=$(grep -rnE '#\s*include\s+<ccs/' plugins | grep -v '<ccs/plugin/' || true)
if [ -n "$hits" ]; then echo "plugins include public headers other than the plugin ABI:"; echo "$hits" | sed 's/^/  /'; bad=1; fi
for client in clients/*/; do
  check "${client%/}/src" "$same_folder" "a client layer includes only its own files (and <ccs/...> public headers)"
done
# No library file over 600 lines.
big=$(git ls-files 'ccs/*.cpp' 'ccs/*.hpp' 'ccs/*.h' 'plugins/*.cpp' 'plugins/*.hpp' 'tools/*.cpp' 'tools/*.hpp' \
      'clients/*.cpp' 'clients/*.hpp' 2>/dev/null |
      xargs -r wc -l | awk '$2 != "total" && $1 > 600 {print "  " $2 " (" $1 " lines)"}')
if [ -n "$big" ]; then echo "library files over 600 lines:"; echo "$big"; bad=1; fi
[ $bad -eq 0 ] && echo "layers: every include runs with the layers; no library file over 600 lines"
exit $bad
