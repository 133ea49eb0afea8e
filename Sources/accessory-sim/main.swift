print("accessory-sim: not yet built")
