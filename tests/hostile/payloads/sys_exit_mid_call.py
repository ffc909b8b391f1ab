"""Attack: sys.exit(0) in the middle of a call (SystemExit must be reported, not mistaken for success)."""
import sys

def softmax(x):
    sys.exit(0)
