#!/usr/bin/env bash
# The x86-64-v3 variant files (*_v3.cpp, core/isa.h) must export nothing but their entry points
# in a ::v3:: namespace: any other global symbol there (an inline function or template
# instantiation that escaped the anonymous namespace) could be merged with the baseline copy
# of the same name and reach callers on CPUs without AVX2.
#   isa_symbols_test.sh NM "OBJECT;OBJECT;..."   (the library's object files)
set -euo pipefail
nm_tool=$1
IFS=';' read -r -a objects <<< "$2"
found=0
bad=0
for o in "${objects[@]}"; do
  case "$o" in *_v3.cpp.o | *_v3.cpp.obj) ;; *) continue ;; esac
  found=$((found + 1))
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    # DW.ref.__gxx_personality_v0: the exception tables' pointer to the C++ personality routine
    # (data, one COMDAT copy per object; sanitizer builds emit it in more objects), no code.
    case "$line" in *::v3::* | DW.ref.__gxx_personality_v0) ;; *) echo "$o: exports $line"; bad=1 ;; esac
  done < <("$nm_tool" -C --defined-only -g "$o" | cut -d' ' -f3-)
done
if [ "$found" -eq 0 ]; then
  echo "no *_v3.cpp object among the library's objects"
  exit 1
fi
[ "$bad" -eq 0 ] && echo "$found v3 object(s): only ::v3:: entry points exported"
exit $bad
