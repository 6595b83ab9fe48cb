#!/bin/sh
# The node-file fuzzer (test/fuzz/fuzz_node.c), briefly: see fuzz-run.sh.
exec sh "${SB_SRCDIR:-$(dirname "$0")/..}/test/fuzz-run.sh" node
