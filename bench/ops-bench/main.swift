print("ops-bench: not yet built")
