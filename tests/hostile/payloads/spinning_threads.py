"""Attack: many threads spinning at once (CPU limit must be process wide)."""
import threading

def _spin():
    while True:
        pass

def softmax(x):
    for _ in range(32):
        try:
            threading.Thread(target=_spin, daemon=True).start()
        except RuntimeError:
            break
    _spin()
