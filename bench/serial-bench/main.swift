print("serial-bench: not yet built")
