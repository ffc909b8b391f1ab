"""Attack: flood standard output and standard error without end."""
import os
import sys

def softmax(x):
    line = "PASS " * 2000 + "\n"
    while True:
        sys.stdout.write(line)
        os.write(2, line.encode())
