#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds a separate project
# against it with find_package(ccs) and with pkg-config, and runs both.
set -eu
build=$1
work=$2
src=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work.install.log" 2>&1 || { cat "$work.install.log"; exit 1; }
prefix=$work/prefix
test -x "$prefix/bin/ccsrun"
test -x "$prefix/bin/ccs_info"
ls "$prefix"/lib*/ccs/libccs_plugin_shm.so > /dev/null

cmake -S "$src/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$prefix/bin/ccsrun" -n 2 --timeout 60 "$work/consumer/consumer"
echo "ok: find_package(ccs) consumer"

libdir=$(dirname "$(ls "$prefix"/lib*/libccs.so)")
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c99 $(pkg-config --cflags ccs) "$src/consumer/consumer.c" -o "$work/pc-consumer" $(pkg-config --libs ccs) -Wl,-rpath,"$libdir"
"$prefix/bin/ccsrun" -n 2 --timeout 60 "$work/pc-consumer"
echo "ok: pkg-config consumer"
# The installed ccs_info finds the installed plugin.
"$prefix/bin/ccs_info" | grep -q "$libdir/ccs/libccs_plugin_shm.so"
echo "ok: installed ccs_info lists the installed plugin"
