#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds and runs the examples from there:
# through find_package(gj2k) (examples/CMakeLists.txt, -Wall -Wextra -Werror, shared and static)
# and through pkg-config (C and C++ with -Wall -Wextra -Werror), then the Python example with
# the installed module. Also checks that only public headers were installed.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CMAKE C_COMPILER CXX_COMPILER [PYTHON]
set -euo pipefail
build=$1 src=$2 cmake=$3 cc=$4 cxx=$5 python=${6:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gj2k-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

"$cmake" --install "$build" --prefix "$prefix" >/dev/null
echo "installed into $prefix"

# Public headers only: gj2k.h and gj2k/*.h (no stage folders).
for h in include/gj2k.h include/gj2k/gj2k.h include/gj2k/version.h include/gj2k/export.h; do
  [ -f "$prefix/$h" ] || { echo "missing $h"; exit 1; }
done
extra=$(cd "$prefix/include" && find . -type f ! -path './gj2k.h' ! -path './gj2k/*.h')
[ -z "$extra" ] || { echo "non-public files installed: $extra"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'libgj2k.so' | head -1)")
[ -f "$libdir/libgj2k.a" ] || { echo "no static library"; exit 1; }
[ -f "$libdir/pkgconfig/gj2k.pc" ] || { echo "no gj2k.pc"; exit 1; }

# 1. find_package, the examples' own CMake project.
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
"$cmake" -S "$src/examples" -B "$tmp/ex" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release >/dev/null
"$cmake" --build "$tmp/ex" -j 2 >/dev/null || "$cmake" --build "$tmp/ex" -j 1
[ -x "$tmp/ex/decode_encode_cpp_static" ] || { echo "gj2k::gj2k_static not usable"; exit 1; }
mkdir -p "$tmp/out"
"$tmp/ex/decode_encode_c" "$tmp/out/c.jp2"
"$tmp/ex/decode_encode_cpp" "$tmp/out"
"$tmp/ex/decode_encode_cpp_static" "$tmp/out"

# 2. pkg-config, by hand, against the shared library and the static one.
export PKG_CONFIG_PATH=$libdir/pkgconfig
flags=$(pkg-config --cflags --libs gj2k)
"$cc" -std=c99 -pedantic -Wall -Wextra -Werror "$src/examples/decode_encode.c" $flags -o "$tmp/pc_c"
"$cxx" -std=c++20 -pedantic -Wall -Wextra -Werror "$src/examples/decode_encode.cpp" $flags \
  -o "$tmp/pc_cpp"
LD_LIBRARY_PATH=$libdir "$tmp/pc_c" "$tmp/out/pc.jp2"
LD_LIBRARY_PATH=$libdir "$tmp/pc_cpp" "$tmp/out"
# The static library through `pkg-config --static` (Libs.private names what it needs).
static=$(pkg-config --static --libs gj2k | sed 's/-lgj2k\b/-Wl,-Bstatic -lgj2k -Wl,-Bdynamic/')
"$cc" -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags gj2k) \
  "$src/examples/decode_encode.c" $static -o "$tmp/pc_c_static"
if ldd "$tmp/pc_c_static" | grep -q libgj2k; then echo "pc_c_static uses libgj2k.so"; exit 1; fi
"$tmp/pc_c_static" "$tmp/out/pc_static.jp2"

# 3. Python, with the installed module.
if [ -n "$python" ]; then
  module=$(find "$prefix" -name 'gj2k*.so' -path '*python*' | head -1)
  if [ -n "$module" ]; then
    PYTHONPATH=$(dirname "$module") "$python" "$src/examples/example.py" "$tmp/out/py.jp2"
  else
    echo "python module not installed (not built); python example skipped"
  fi
fi
echo "install test passed"
