"""Attack: never return (pure-Python busy loop)."""
def softmax(x):
    while True:
        pass
