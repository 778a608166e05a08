"""Prints 'smaller' if the arena of the first header is smaller than the
second's, else 'not smaller' (both written by remat-compile --header)."""
import re
import sys


def arena(path):
    with open(path) as f:
        return int(re.search(r"#define REMAT_ARENA_BYTES (\d+)", f.read()).group(1))


first, second = arena(sys.argv[1]), arena(sys.argv[2])
print(f"{first} {second} {'smaller' if first < second else 'not smaller'}")
