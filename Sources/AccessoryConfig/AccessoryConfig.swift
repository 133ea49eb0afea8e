// The AccessoryConfig module. See ../shared/DESIGN.md §2.
