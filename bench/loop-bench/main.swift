print("loop-bench: not yet built")
