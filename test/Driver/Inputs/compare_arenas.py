"""Compares arena sizes written by remat-compile --header.

compare_arenas.py A.h B.h        prints 'smaller' if A's arena < B's arena
compare_arenas.py A.h --at-most N  prints 'within' if A's arena <= N bytes
Otherwise prints 'not smaller' / 'above'. The sizes come first.
"""
import re
import sys


def arena(path):
    with open(path) as f:
        return int(re.search(r"#define REMAT_ARENA_BYTES (\d+)", f.read()).group(1))


first = arena(sys.argv[1])
if sys.argv[2] == "--at-most":
    limit = int(sys.argv[3])
    print(f"{first} {limit} {'within' if first <= limit else 'above'}")
else:
    second = arena(sys.argv[2])
    print(f"{first} {second} {'smaller' if first < second else 'not smaller'}")
