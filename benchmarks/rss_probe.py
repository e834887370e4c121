"""Run a command as a child with stdin/stdout passed through; when it exits, write its peak RSS.

    python rss_probe.py OUT -- CMD...

OUT gets one JSON line {"peak_rss_kb": ...}: the child's own ru_maxrss (os.wait4), so neither this
wrapper nor the client that talks to the child over stdio is counted. Used to measure a stdio
server's peak RSS after a real tools/list: the client lists, closes stdin, the server exits.
"""

import json
import os
import signal
import subprocess
import sys


def main(argv: list[str]) -> int:
    out, command = argv[0], argv[argv.index("--") + 1 :]
    # The stdio client ends a server by SIGTERM to its process group, this wrapper included: outlive
    # the server to report it. (A handler, not SIG_IGN: an ignored signal would stay ignored in the child.)
    signal.signal(signal.SIGTERM, lambda *_: None)
    child = subprocess.Popen(command)  # inherits stdin/stdout/stderr
    _, status, usage = os.wait4(child.pid, 0)
    with open(out, "w", encoding="utf-8") as f:
        f.write(json.dumps({"peak_rss_kb": usage.ru_maxrss}) + "\n")
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
