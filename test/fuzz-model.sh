#!/bin/sh
# The model-file fuzzer (test/fuzz/fuzz_model.c), briefly: see fuzz-run.sh.
exec sh "${SB_SRCDIR:-$(dirname "$0")/..}/test/fuzz-run.sh" model
