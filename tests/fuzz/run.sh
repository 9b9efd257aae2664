#!/usr/bin/env bash
# Run the libFuzzer harnesses built in BUILD (make fuzz): for each, replay
# its regressions, then fuzz for SECONDS from its seed corpus with its
# dictionary. New inputs go to BUILD/corpus/NAME (scratch, never the
# repository), crashes to BUILD/artifacts/NAME/, logs to BUILD/logs/NAME.log.
# Exits 1 if any harness fails, after running them all.
#   tests/fuzz/run.sh BUILD SECONDS [NAME...]
set -uo pipefail
build=${1:?usage: run.sh BUILD SECONDS [NAME...]}
seconds=${2:?usage: run.sh BUILD SECONDS [NAME...]}
shift 2
src=$(cd "$(dirname "$0")" && pwd)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(mtx mtx_gz bin gen params vector)

# Longest input each harness is given, and its dictionary.
declare -A max_len=([mtx]=8192 [mtx_gz]=4096 [bin]=1024 [gen]=128 [params]=256 [vector]=1024)
declare -A dict=([mtx]=mtx.dict [mtx_gz]=mtx.dict [gen]=gen.dict [params]=params.dict)

failed=()
for h in "${names[@]}"; do
  bin=$build/tests/fuzz/fuzz_$h
  if [ ! -x "$bin" ]; then
    [ "$h" = mtx_gz ] && { echo "fuzz $h: not built (no zlib), skipped"; continue; }
    echo "fuzz $h: $bin missing"; failed+=("$h"); continue
  fi
  mkdir -p "$build/corpus/$h" "$build/artifacts/$h" "$build/logs"
  log=$build/logs/$h.log
  seeds=("$src/corpus/$h")
  replay=$src/regressions/$h
  case $h in mtx*) seeds+=("$src/../mtx_corpus"); replay=$src/../mtx_corpus ;; esac
  opts=(-rss_limit_mb=2048 -timeout=30 -max_len="${max_len[$h]}"
        -artifact_prefix="$build/artifacts/$h/" -print_final_stats=1)
  [ -n "${dict[$h]:-}" ] && opts+=(-dict="$src/${dict[$h]}")
  # The CLI's reader prints each error: keep its stderr out of the log (the
  # fuzzer's own reports still come through).
  [ "$h" = vector ] && opts+=(-close_fd_mask=2)
  if [ -d "$replay" ] && ! "$bin" "${opts[@]}" -runs=0 "$replay" >"$log" 2>&1; then
    echo "fuzz $h: a regression input fails again (log $log)"; tail -n 40 "$log"
    failed+=("$h"); continue
  fi
  if "$bin" "${opts[@]}" -max_total_time="$seconds" "$build/corpus/$h" "${seeds[@]}" >>"$log" 2>&1; then
    echo "fuzz $h: $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)"
  else
    echo "fuzz $h: FAILED (log $log, input in $build/artifacts/$h/)"; tail -n 60 "$log"
    failed+=("$h")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${names[*]} clean"
