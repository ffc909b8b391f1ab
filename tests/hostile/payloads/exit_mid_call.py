"""Attack: os._exit(0) in the middle of a call, after printing a fake success report."""
import os
import sys

def softmax(x):
    sys.stdout.write('{"status": "ok", "score": 100}\n')
    sys.stdout.flush()
    os._exit(0)
