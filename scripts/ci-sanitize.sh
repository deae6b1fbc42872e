#!/usr/bin/env bash
# The sanitizer job of CI (.ci/run calls it after the README's build and tests):
# builds the CPU code with -fsanitize=address,undefined, runs the unit and CLI tests under it
# (the ea_iid they start is the sanitized one too), then the fuzz target for a bounded
# time with a printed seed (replay a failure with FUZZ_SEED=<seed>).
#
# usage: scripts/ci-sanitize.sh [BUILD_DIR]     (default build-asan)
# env:   FUZZ_SECONDS (default 120), FUZZ_SEED (default: from the clock), JOBS (default nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
jobs=${JOBS:-$(nproc)}
seconds=${FUZZ_SECONDS:-120}
seed=${FUZZ_SEED:-$(date +%s)}

# -O1 -g1 (line tables for the sanitizers' stack traces): half the compile time of
# RelWithDebInfo's -O2 -g (8.7 of CI's 20 minutes on 2 cores, session 21).
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DEA_IID_CUDA=OFF -DEA_IID_SANITIZE=ON -DEA_IID_FUZZ=ON -DEA_IID_WERROR=ON
# Only what the tests below run (the benchmarks and ea_calibrate's own binary, whose sources the
# README's build compiles and checks for warnings, are not linked again here).
cmake --build "$build" -j"$jobs" --target ea_iid ea_unit_tests ea_cli_tests ea_api_tests cli_case_runner validate_json \
  compare_golden fuzz_inputs

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Run in the plain build only (the README's ctest), not here: the 4 GiB sparse-file case
# (reads and hashes 4 GiB); api/consumer (it links a project of its own against the installed
# library, which a sanitized build cannot give it without the sanitizer's runtime); and the
# end-to-end cases whose time under the sanitizers is whole assessments of 10^6-sample files
# or many runs of the tool, in code the unit and CLI cases here cover (the estimators, the
# shuffles, the record, the option parser): a million-sample restart file, all the generators
# at 10,000 permutations, a compliant --strict run, the README's CI gate, the batch page,
# the manifest's per-source comparison, --until-decided's full run, a batch of restart files
# (session 28: 18-44 s each under the sanitizers, 178 of the job's 817 test seconds on
# 2 cores). More below, with the sessions that moved them.
plain_only="sparse file|api/consumer|cli/restart-carryover-columns-fail|cli/restart-truerand-json|cli/strict-prng"
plain_only+="|cli/strict-compliant-iid|cli/readme-ci-gate|cli/batch-report|cli/source-manifest"
plain_only+="|cli/until-decided-full|cli/restart-batch"
# Two cases run 10,000 permutations without early exit for their counts alone (34-36 s each
# under the sanitizers, session 30); "every generator: the same counters ..." runs that code
# without early exit here on 300 permutations.
plain_only+="|without early exit every test runs all 10,000 permutations|--no-early-exit runs 10,000 permutations"
# Statistical checks whose time under the sanitizers is many draws of code that smaller
# cases here run too (the bucket shuffle, the health tests' simulation, the restart
# simulation: 36 of the job's test seconds, session 32), and the wide captures' end-to-end
# case (30 s; their readers have unit cases and the fuzz target here).
plain_only+="|bucket shuffle: position marginals|bucket shuffle: every order of n = 4..8"
plain_only+="|the Monte Carlo check: observed rates|the simulation: reproducible from its seed|cli/wide-captures"
# End-to-end runs of the command line whose time under the sanitizers is whole assessments or
# many runs of the tool (15-102 s each, 190 of the job's 891 test seconds, session 38), in code
# that cases here run too: the manifest's shares (merge and --shard cases above), the ESV check
# (the unit cases of its schemas and documents), and the source command's PDF and chain
# (cli/source-report stays). api/settings-refusals and api/manifest-and-values stay: their binary holds the C++ API's only
# cases (the manifest and sample input too).
plain_only+="|cli/manifest-shards|cli/esv-check|cli/source-pdf|cli/source-chain"
ctest --test-dir "$build" -L "unit|cli" -E "$plain_only" -j"$jobs" --output-on-failure

echo "+ fuzz_inputs --seed $seed --seconds $seconds"
"$build/fuzz_inputs" --seed "$seed" --seconds "$seconds"
