#!/usr/bin/env bash
# Run the libFuzzer harnesses built in BUILD (make fuzz): each replays its
# regressions, then fuzzes for SECONDS from its seed corpus with its
# dictionary. FUZZ_JOBS harnesses run at once (default 2). New inputs go to
# BUILD/corpus/NAME (scratch, never the repository), crashes to
# BUILD/artifacts/NAME/, logs to BUILD/logs/NAME.log. Exits 1 if any
# harness fails, after running them all.
#   tests/fuzz/run.sh BUILD SECONDS [NAME...]
set -uo pipefail
build=${1:?usage: run.sh BUILD SECONDS [NAME...]}
seconds=${2:?usage: run.sh BUILD SECONDS [NAME...]}
shift 2
src=$(cd "$(dirname "$0")" && pwd)
jobs=${FUZZ_JOBS:-2}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(mtx mtx_gz bin gen params vector)

# Longest input each harness is given, and its dictionary.
declare -A max_len=([mtx]=8192 [mtx_gz]=4096 [bin]=1024 [gen]=128 [params]=256 [vector]=1024)
declare -A dict=([mtx]=mtx.dict [mtx_gz]=mtx.dict [gen]=gen.dict [params]=params.dict)

# One harness; its outcome line goes to BUILD/logs/NAME.result.
run_one() {
  local h=$1 bin=$build/tests/fuzz/fuzz_$1 log=$build/logs/$1.log
  local seeds=("$src/corpus/$h") replay=$src/regressions/$h
  case $h in mtx*) seeds+=("$src/../mtx_corpus"); replay=$src/../mtx_corpus ;; esac
  local opts=(-rss_limit_mb=2048 -timeout=30 -max_len="${max_len[$h]}"
              -artifact_prefix="$build/artifacts/$h/" -print_final_stats=1)
  [ -n "${dict[$h]:-}" ] && opts+=(-dict="$src/${dict[$h]}")
  # The CLI's reader prints each error: keep its stderr out of the log (the
  # fuzzer's own reports still come through).
  [ "$h" = vector ] && opts+=(-close_fd_mask=2)
  mkdir -p "$build/corpus/$h" "$build/artifacts/$h"
  if [ -d "$replay" ] && ! "$bin" "${opts[@]}" -runs=0 "$replay" >"$log" 2>&1; then
    echo "FAIL a regression input fails again (log $log)" >"$build/logs/$h.result"
  elif ! "$bin" "${opts[@]}" -max_total_time="$seconds" "$build/corpus/$h" "${seeds[@]}" \
       >>"$log" 2>&1; then
    echo "FAIL (log $log, input in $build/artifacts/$h/)" >"$build/logs/$h.result"
  else
    echo "ok $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)" >"$build/logs/$h.result"
  fi
}

mkdir -p "$build/logs"
run=()
for h in "${names[@]}"; do
  rm -f "$build/logs/$h.result"
  if [ -x "$build/tests/fuzz/fuzz_$h" ]; then
    run+=("$h")
  elif [ "$h" = mtx_gz ]; then
    echo "fuzz $h: not built (no zlib), skipped"
  else
    echo "FAIL fuzz_$h missing" >"$build/logs/$h.result"
  fi
done
for h in "${run[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  run_one "$h" &
done
wait

failed=()
for h in "${names[@]}"; do
  [ -f "$build/logs/$h.result" ] || continue
  result=$(cat "$build/logs/$h.result")
  echo "fuzz $h: $result"
  if [[ $result != ok* ]]; then
    failed+=("$h")
    [ -f "$build/logs/$h.log" ] && tail -n 60 "$build/logs/$h.log"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${run[*]} clean"
