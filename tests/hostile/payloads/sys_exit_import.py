"""Attack: sys.exit(0) while being imported (a success exit code must not look like a pass)."""
import sys

print("All tests passed!")
sys.exit(0)

def softmax(x):
    return x
