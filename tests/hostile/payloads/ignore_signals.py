"""Attack: ignore SIGTERM, SIGXCPU, SIGINT, SIGHUP, SIGALRM, then spin."""
import signal

def softmax(x):
    for number in (signal.SIGTERM, signal.SIGXCPU, signal.SIGINT, signal.SIGHUP, signal.SIGALRM,
                   signal.SIGUSR1, signal.SIGVTALRM, signal.SIGPROF, signal.SIGXFSZ):
        signal.signal(number, signal.SIG_IGN)
    while True:
        pass
