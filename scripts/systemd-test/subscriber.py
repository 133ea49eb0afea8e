"""A program using the Python client with no reconnect code of its own: it subscribes to one
accessory's data and counts the device.data events it receives, writing the count to a file
after each, until the time runs out (check restart_views in checks.sh reads the file before and
after a restart). Usage: subscriber.py SOCKET DEVICE COUNT_FILE SECONDS"""
import os
import sys
import time

from accessoryd import Client, DataEvent

socket_path, device, count_file, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
client = Client(socket_path)
subscription = client.subscribe(device, ["data"])
received = 0
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    event = subscription.get(timeout=0.5)
    if isinstance(event, DataEvent):
        received += 1
        with open(count_file + ".new", "w") as f:
            f.write(f"{received}\n")
        os.replace(count_file + ".new", count_file)
