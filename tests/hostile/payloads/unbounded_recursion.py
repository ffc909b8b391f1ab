"""Attack: unbounded recursion with the recursion limit raised (C stack overflow)."""
import sys

sys.setrecursionlimit(10 ** 8)

def _deeper(n):
    return _deeper(n + 1) + 1

def softmax(x):
    return _deeper(0)
