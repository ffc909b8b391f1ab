"""Attack: os._exit(0) while being imported: no cleanup, no exception, exit code 0."""
import os

print("PASS 3/3")
os._exit(0)

def softmax(x):
    return x
