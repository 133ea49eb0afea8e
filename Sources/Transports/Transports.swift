// The Transports module. See ../shared/DESIGN.md §2.
