#!/usr/bin/env bash
# ABI hygiene: the shared library exports only the public C API (gj2k_*) and the public C++ API
# (gj2k:: functions and classes of include/gj2k/, with gj2k::Error's typeinfo and vtable):
# no internal namespace (gj2k::codec, ::entropy, ::transform, ::io, ::conformance), no
# Decoder::Impl, no libstdc++ template instance, no OpenMP lock, no CUDA runtime symbol.
# Usage: abi_test.sh libgj2k.so
set -euo pipefail
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{print $3}')
[ -n "$syms" ] || { echo "no exported symbols in $lib"; exit 1; }
bad=0 c=0 cpp=0
while read -r s; do
  [ -z "$s" ] && continue
  case "$s" in
    gj2k_*) c=$((c + 1)); continue ;;
    _init|_fini|_edata|_end|__bss_start) continue ;;  # linker-defined
  esac
  d=$(echo "$s" | c++filt)
  d=${d#typeinfo name for }
  d=${d#typeinfo for }
  d=${d#vtable for }
  if [[ "$d" == gj2k::* ]] &&
     ! [[ "$d" =~ ^gj2k::(codec|entropy|transform|io|conformance|test|detail):: ]] &&
     ! [[ "$d" == *::Impl::* ]]; then
    cpp=$((cpp + 1))
  else
    echo "not public API: $(echo "$s" | c++filt)"
    bad=1
  fi
done <<< "$syms"
echo "exports: $c C symbols, $cpp C++ symbols"
# The API itself must be there: C entry points and the C++ classes.
for need in gj2k_context_create gj2k_decoder_decode gj2k_encode_to_memory; do
  grep -qx "$need" <<< "$syms" || { echo "missing export $need"; bad=1; }
done
grep -q 'gj2k::Decoder::decode' <<< "$(c++filt <<< "$syms")" || { echo "missing gj2k::Decoder"; bad=1; }
exit $bad
