"""Exits 0 once gpsd (on 127.0.0.1:PORT) reports a 2D or 3D fix (a TPV report with mode 2 or 3)
after this program asked it to watch; 1 if none comes among its first 40 reports. What gpspipe -w
shows, without gpsd-clients. Usage: gpsd_fix.py PORT"""
import json
import socket
import sys

with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=8) as s:
    s.sendall(b'?WATCH={"enable":true,"json":true}\n')
    lines = s.makefile("r", encoding="utf-8", errors="replace")
    for _ in range(40):
        line = lines.readline()
        if not line:
            break
        try:
            report = json.loads(line)
        except ValueError:
            continue
        if report.get("class") == "TPV" and report.get("mode") in (2, 3):
            sys.exit(0)
sys.exit(1)
