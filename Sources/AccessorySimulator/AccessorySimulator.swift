// The AccessorySimulator module. See ../shared/DESIGN.md §2.
